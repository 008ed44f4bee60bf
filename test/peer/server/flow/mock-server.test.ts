// The engine plugged into the real mock server core over an in-memory connection: the wire
// messages of a whole interactive session, and the timeout warning as notifications/message.
import { afterEach, describe, expect, it } from 'vitest';
import { createMockServer } from '../../../../src/peer/server/server.js';
import { flowExtension } from '../../../../src/peer/server/flow/index.js';
import { createMemoryPair, type MemoryConnection } from '../../../../src/transport/memory/index.js';
import type { ReceivedMessage } from '../../../../src/transport/connection.js';

type Message = Record<string, any>;
const DEADLINE = { timeoutMs: 10_000 };

const open: MemoryConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function connect(options: Parameters<typeof flowExtension>[0] = {}): Promise<{ client: MemoryConnection; call: (method: string, params?: unknown) => Promise<Message> }> {
  const server = createMockServer({ extensions: [flowExtension(options)] });
  const pair = createMemoryPair();
  open.push(pair.client);
  void server.serve(pair.server);
  let nextId = 1;
  const call = async (method: string, params?: unknown): Promise<Message> => {
    const id = nextId++;
    await pair.client.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    const { message } = await pair.client.next((r: ReceivedMessage) => (r.message as Message).id === id && !('method' in (r.message as Message)), DEADLINE);
    return message as Message;
  };
  const init = await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  expect(init.result.capabilities.experimental.interactive).toMatchObject({ interactive: true, version: '0.1.0' });
  await pair.client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { client: pair.client, call };
}

async function serverRequest(client: MemoryConnection, method: string): Promise<Message> {
  const { message } = await client.next((r) => (r.message as Message).method === method && 'id' in (r.message as Message), DEADLINE);
  return message as Message;
}

describe('MCP Flow engine in the mock server', () => {
  it('serves a registration session over the wire', async () => {
    const { client, call } = await connect();
    expect((await call('capabilities')).result.interactive).toBe(true);
    expect((await call('tools/list')).result.tools.map((t: Message) => t.name)).toEqual(expect.arrayContaining(['booking', 'registration', 'file-export']));
    const start = await call('interaction.start', { toolName: 'registration' });
    const sessionId = start.result.sessionId as string;
    const answers = ['Eve', 'eve@example.com', 33, 'free', true, null, null];
    for (const value of answers) {
      const prompt = await serverRequest(client, 'interaction.prompt');
      expect(prompt.params.sessionId).toBe(sessionId);
      await client.send({ jsonrpc: '2.0', id: prompt.id, result: { acknowledged: true } });
      expect((await call('interaction.respond', { sessionId, response: { value } })).result).toEqual({ accepted: true, validation: { valid: true } });
    }
    const complete = await serverRequest(client, 'interaction.complete');
    expect(complete.params.result).toMatchObject({ success: true, data: { user: { name: 'Eve' }, plan: 'free' } });
    await client.send({ jsonrpc: '2.0', id: complete.id, result: { success: true, finalResult: complete.params.result.data } });
    expect((await call('interaction.getState', { sessionId })).result.state).toBe('completed');
    expect((await call('interaction.getState', { sessionId: 'session_unknown' })).error).toEqual({
      code: -32001,
      message: 'Session not found: session_unknown',
      data: { sessionId: 'session_unknown' },
    });
  });

  it('warns with notifications/message before a session expires, then answers -32002', async () => {
    const { client, call } = await connect();
    const start = await call('interaction.start', { toolName: 'booking', timeout: 300 });
    const sessionId = start.result.sessionId as string;
    const { message } = await client.next((r) => (r.message as Message).method === 'notifications/message', DEADLINE);
    expect((message as Message).params).toMatchObject({ level: 'warning', logger: 'mcp-flow', data: { sessionId } });
    // Liveness only: wait (generously) until the session is gone.
    let code: number | undefined;
    const until = Date.now() + 10_000;
    while (code === undefined && Date.now() < until) {
      code = (await call('interaction.getState', { sessionId })).error?.code;
      if (code === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(code).toBe(-32002);
  });
});
