// Targets for harness tests: the real mock server core over in-memory pairs, and scripted peers
// that misbehave on purpose (never answer, close mid-case, answer with broken messages).
import { createMockServer, type MockServerOptions } from '../../src/peer/server/server.js';
import { connectionTarget } from '../../src/harness/target.js';
import type { Target } from '../../src/harness/case.js';
import { createMemoryPair, type MemoryConnection } from '../../src/transport/memory/index.js';

export const RERUN_ARGS = ['--url', 'memory://test'];

/** Every connection a target opened, so tests can check they were all closed. */
export interface TrackedTarget extends Target {
  readonly opened: MemoryConnection[];
}

function tracked(connect: () => MemoryConnection, description: string): TrackedTarget {
  const opened: MemoryConnection[] = [];
  const target = connectionTarget({
    description,
    transport: 'stdio',
    rerunArgs: RERUN_ARGS,
    connect: async () => {
      const client = connect();
      opened.push(client);
      return client;
    },
  });
  return Object.assign(target, { opened });
}

/** The reference mock server, one session per connection. */
export function mockServerTarget(options: MockServerOptions = {}): TrackedTarget {
  const server = createMockServer(options);
  return tracked(() => {
    const pair = createMemoryPair();
    void server.serve(pair.server);
    return pair.client;
  }, 'in-memory mock server');
}

/** A peer driven by `script`, which gets the server end of each connection. */
export function scriptedTarget(script: (server: MemoryConnection) => Promise<void>): TrackedTarget {
  return tracked(() => {
    const pair = createMemoryPair();
    void script(pair.server).catch(() => undefined);
    return pair.client;
  }, 'scripted in-memory peer');
}

type Msg = Record<string, unknown>;

/** Answers initialize (with `initResult`) and lists like a tiny server; ignores everything else unless `onOther` answers it. */
export function tinyServer(
  initResult: Msg = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1' } },
  onOther?: (message: Msg, server: MemoryConnection) => Promise<void>,
): (server: MemoryConnection) => Promise<void> {
  return async (server) => {
    for (;;) {
      const { message } = await server.next();
      const m = message as Msg;
      if (m.method === 'initialize') await server.send({ jsonrpc: '2.0', id: m.id, result: initResult });
      else if (m.method === 'tools/list') await server.send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
      else if (onOther) await onOther(m, server);
    }
  };
}
