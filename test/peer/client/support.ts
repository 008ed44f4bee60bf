// Shared by the mock client tests: the mock server on each transport as a target, and a scripted
// peer (an in-memory pair, or a WebTransport listener) whose server side a test drives by hand.
import { startMockServer, type MockTransport, type RunningMockServer, type StartMockServerOptions } from '../../../src/peer/server/index.js';
import { ClientFaults, connectMockClient, MockClient, type MockClientOptions, type MockClientTarget } from '../../../src/peer/client/index.js';
import type { Connection, ReceivedMessage } from '../../../src/transport/connection.js';
import { createMemoryPair } from '../../../src/transport/memory/index.js';
import { listenWebTransport, type WebTransportServer } from '../../../src/transport/webtransport/index.js';
import { webTransportBinding } from '../../../src/peer/server/binding.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { cliCommand } from '../../support/cli.js';

export type Message = Record<string, any>;
export const DEADLINE = { timeoutMs: 20_000 };

/** argv that runs `mock-server --transport stdio` (compiled when dist/ is current, from source otherwise). */
export function stdioServerCommand(...extra: string[]): string[] {
  return cliCommand('mock-server', '--transport', 'stdio', ...extra);
}

/** A mock server on `transport` (stdio: nothing runs until a client spawns it) and the target naming it. */
export async function mockServerTarget(
  transport: MockTransport,
  options: Omit<StartMockServerOptions, 'transport'> = {},
): Promise<{ target: MockClientTarget; server?: RunningMockServer; close(): Promise<void> }> {
  if (transport === 'stdio') {
    const extra = [...(options.faults ?? [])].flatMap((name) => ['--fault', name]);
    return { target: { stdio: stdioServerCommand(...extra) }, close: async () => undefined };
  }
  const server = await startMockServer({ transport, ...options });
  return {
    target: { url: server.url, ...(server.certificateHash ? { certificateHash: server.certificateHash } : {}) },
    server,
    close: () => server.close(),
  };
}

export function isRequest(method: string) {
  return (r: ReceivedMessage) => (r.message as Message)?.method === method && 'id' in (r.message as Message);
}

export function isNotification(method: string) {
  return (r: ReceivedMessage) => (r.message as Message)?.method === method && !('id' in (r.message as Message));
}

export function isResponseTo(id: unknown) {
  return (r: ReceivedMessage) => {
    const m = r.message as Message;
    return m !== null && typeof m === 'object' && !('method' in m) && m.id === id;
  };
}

/** A client and the server side of its connection, driven by the test. */
export interface ScriptedPeer {
  client: MockClient;
  server: Connection;
  /** Answers the client's initialize (standard result, overridable) and returns the request. */
  answerInitialize(result?: Message | ((request: Message) => Message), taken?: Message): Promise<Message>;
  close(): Promise<void>;
}

function standardResult(server: Connection, request: Message): Message {
  const result: Message = {
    protocolVersion: request.params?.protocolVersion ?? '2025-06-18',
    capabilities: { tools: {}, experimental: { interactive: { interactive: true, version: '0.1.0' } } },
    serverInfo: { name: 'scripted', version: '1' },
  };
  const wt = server as WebTransportSessionConnection;
  if (server.kind === 'webtransport') result.transport = wt.negotiate();
  return result;
}

function scripted(client: MockClient, server: Connection, cleanup: () => Promise<void>): ScriptedPeer {
  return {
    client,
    server,
    async answerInitialize(result, taken) {
      const request = taken ?? ((await server.next(isRequest('initialize'), DEADLINE)).message as Message);
      const body = typeof result === 'function' ? result(request) : { ...standardResult(server, request), ...result };
      await server.send({ jsonrpc: '2.0', id: request.id, ...(body.error ? { error: body.error } : { result: body }) });
      return request;
    },
    async close() {
      await client.close();
      await cleanup();
    },
  };
}

/** A client over an in-memory pair (the stdio transport without a process). */
export function memoryPeer(faults: string[] = [], options: MockClientOptions = {}): ScriptedPeer {
  const pair = createMemoryPair();
  const client = new MockClient(pair.client, new ClientFaults(faults), { requestTimeoutMs: DEADLINE.timeoutMs, ...options });
  return scripted(client, pair.server, () => pair.server.close());
}

/** A client over WebTransport to a listener whose server-role session the test drives. */
export async function webTransportPeer(
  faults: string[] = [],
  options: MockClientOptions = {},
  listen: { maxMessageSize?: number } = {},
): Promise<ScriptedPeer> {
  const listener: WebTransportServer = await listenWebTransport({
    host: '127.0.0.1',
    port: 0,
    ...webTransportBinding().listener,
    ...(listen.maxMessageSize !== undefined ? { limits: { maxMessageSize: listen.maxMessageSize } } : {}),
  });
  const accepted = listener.nextConnection(DEADLINE);
  const client = await connectMockClient({ url: listener.url, certificateHash: listener.certificateHash }, { requestTimeoutMs: DEADLINE.timeoutMs, ...options, faults });
  const server = await accepted;
  return scripted(client, server, () => listener.close());
}
