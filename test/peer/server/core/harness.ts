// Test support: a mock server serving one end of an in-memory pair, and a raw client on the other.
import { createMemoryPair, type MemoryConnection } from '../../../../src/transport/memory/index.js';
import { createMockServer, type MockServerOptions } from '../../../../src/peer/server/server.js';
import type { ReceivedMessage } from '../../../../src/transport/connection.js';

export const LIVENESS = { timeoutMs: 10_000 };

export interface RawSession {
  client: MemoryConnection;
  served: Promise<void>;
  /** Sends a request and waits for the answer with the same id (same JSON type). */
  request(method: string, params?: unknown, id?: string | number): Promise<Record<string, unknown>>;
  notify(method: string, params?: unknown): Promise<void>;
  /** The next message matching. */
  next(predicate?: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  initialize(version?: string, capabilities?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Messages still queued at the client (e.g. to check that nothing unexpected arrived). */
  pending(): Record<string, unknown>[];
  close(): Promise<void>;
}

let counter = 1000;

export function startRaw(options: MockServerOptions = {}): RawSession {
  const { client, server } = createMemoryPair();
  const mock = createMockServer(options);
  const served = mock.serve(server);
  const next = async (predicate: (m: Record<string, unknown>) => boolean = () => true) => {
    const received: ReceivedMessage = await client.next((r) => predicate(r.message as Record<string, unknown>), LIVENESS);
    return received.message as Record<string, unknown>;
  };
  const request = async (method: string, params?: unknown, id: string | number = ++counter) => {
    const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message['params'] = params;
    await client.send(message);
    return next((m) => m['id'] === id && !('method' in m));
  };
  const session: RawSession = {
    client,
    served,
    request,
    notify: (method, params) => client.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }),
    next,
    async initialize(version = '2025-11-25', capabilities = {}) {
      const answer = await request('initialize', { protocolVersion: version, capabilities, clientInfo: { name: 'raw-test-client', version: '1.0.0' } });
      await session.notify('notifications/initialized');
      return answer;
    },
    pending: () => client.pending().map((r) => r.message as Record<string, unknown>),
    async close() {
      await client.close('test done');
      await served;
    },
  };
  return session;
}

/** Sends ping and waits for its answer: once it is back, everything sent before it was handled. */
export async function barrier(session: RawSession): Promise<void> {
  const answer = await session.request('ping', undefined, `barrier-${++counter}`);
  if (!('result' in answer)) throw new Error(`barrier ping failed: ${JSON.stringify(answer)}`);
}
