// Shared fixtures for the WebTransport tests: a loopback server with a minimal responder. Its
// sessions carry the server binding's rules (src/peer/server/binding.ts: admission before READY,
// result.transport), as the mock server's do.
import { webTransportBinding } from '../../../src/peer/server/binding.js';
import { listenWebTransport, type WebTransportServer, type WebTransportServerOptions } from '../../../src/transport/webtransport/server.js';
import { connectWebTransport, initializeSession, type WebTransportClientOptions } from '../../../src/transport/webtransport/client.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { generateSelfSignedCertificate, type TlsMaterial } from '../../../src/transport/webtransport/tls.js';

let sharedTls: Promise<TlsMaterial> | undefined;
/** One certificate per test file (generation is cheap, but there is no need to repeat it). */
export function testTls(): Promise<TlsMaterial> {
  sharedTls ??= generateSelfSignedCertificate();
  return sharedTls;
}

export const LIVENESS_MS = 20_000;

/** Requests with this method are never answered by `respond` (they stay in flight). */
export const HOLD = 'test/hold';

/**
 * Answers initialize with the session's negotiated transport capabilities and every other
 * request except HOLD with an empty result (ping and the like), until the connection closes.
 */
export function respond(connection: WebTransportSessionConnection): void {
  void (async () => {
    for (;;) {
      let received;
      try {
        received = await connection.next();
      } catch {
        return;
      }
      const message = received.message as { id?: unknown; method?: unknown } | null;
      if (message === null || typeof message !== 'object' || message.id === undefined || typeof message.method !== 'string' || message.method === HOLD) continue;
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'test', version: '1' }, transport: connection.negotiate() }
          : {};
      await connection.send({ jsonrpc: '2.0', id: message.id, result }).catch(() => undefined);
    }
  })();
}

/** Options of a test listener: the listener's, plus the binding faults switched on. */
export interface TestServerOptions extends WebTransportServerOptions {
  faults?: { has(name: string): boolean };
}

export async function startServer(options: TestServerOptions = {}): Promise<WebTransportServer> {
  const { faults, ...listen } = options;
  return listenWebTransport({ tls: await testTls(), ...listen, ...webTransportBinding(faults ? { faults } : {}).listener });
}

/** Opens a session to `server` (pinned to its certificate; a liveness deadline, not the 10 s default). */
export function connect(server: WebTransportServer, options: WebTransportClientOptions = {}): Promise<WebTransportSessionConnection> {
  return connectWebTransport(server.url, { certificateHash: server.certificateHash, timeoutMs: LIVENESS_MS, ...options });
}

export async function connectReady(server: WebTransportServer, options: WebTransportClientOptions = {}): Promise<WebTransportSessionConnection> {
  const client = await connect(server, options);
  await initializeSession(client, { timeoutMs: LIVENESS_MS });
  return client;
}

/** Waits for a message with this id. */
export function answerTo(connection: WebTransportSessionConnection, id: unknown) {
  return connection.next((received) => (received.message as { id?: unknown }).id === id, { timeoutMs: LIVENESS_MS });
}
