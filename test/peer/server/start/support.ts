// Raw clients of a started mock server: open an initialized connection on its transport, call
// methods by id, and run the shipped registration wizard end to end through raw messages.
import { expect } from 'vitest';
import type { Connection, ReceivedMessage } from '../../../../src/transport/connection.js';
import { connectHttp } from '../../../../src/transport/http/index.js';
import { connectWebTransport, initializeSession } from '../../../../src/transport/webtransport/index.js';
import type { RunningMockServer } from '../../../../src/peer/server/index.js';

export type Message = Record<string, any>;
export const DEADLINE = { timeoutMs: 15_000 };

export interface RawClient {
  connection: Connection;
  initializeResult: Message;
  /** Sends a request and waits for its response (result or error). */
  call(method: string, params?: unknown): Promise<Message>;
  /** The next server-to-client request with this method. */
  serverRequest(method: string): Promise<Message>;
}

const isResponseTo = (id: number) => (r: ReceivedMessage) => {
  const m = r.message as Message;
  return m !== null && typeof m === 'object' && m.id === id && !('method' in m);
};

/** An initialized raw connection (notifications/initialized sent). wt and http only. */
export async function openRaw(server: RunningMockServer, protocolVersion = '2025-06-18'): Promise<RawClient> {
  let connection: Connection;
  let initializeResult: Message;
  if (server.transport === 'wt') {
    const wt = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    connection = wt;
    initializeResult = (await initializeSession(wt, { protocolVersion, timeoutMs: DEADLINE.timeoutMs })).result;
  } else {
    connection = await connectHttp(server.url, { eventStream: true });
    await connection.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'start-test', version: '1' } },
    });
    const { message } = await connection.next(isResponseTo(0), DEADLINE);
    initializeResult = (message as Message).result;
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  return rawClient(connection, initializeResult);
}

/** A RawClient over a connection that is already initialized. */
export function rawClient(connection: Connection, initializeResult: Message): RawClient {
  let nextId = 100;
  return {
    connection,
    initializeResult,
    async call(method, params) {
      const id = nextId++;
      await connection.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      return (await connection.next(isResponseTo(id), DEADLINE)).message as Message;
    },
    async serverRequest(method) {
      const { message } = await connection.next((r) => (r.message as Message)?.method === method && 'id' in (r.message as Message), DEADLINE);
      return message as Message;
    },
  };
}

/** Runs the shipped registration wizard: interaction.start -> prompts -> respond -> complete. */
export async function runRegistration(client: RawClient): Promise<Message> {
  const start = await client.call('interaction.start', { toolName: 'registration' });
  expect(start.error).toBeUndefined();
  const sessionId = start.result.sessionId as string;
  for (const value of ['Eve', 'eve@example.com', 33, 'free', true, null, null]) {
    const prompt = await client.serverRequest('interaction.prompt');
    expect(prompt.params.sessionId).toBe(sessionId);
    await client.connection.send({ jsonrpc: '2.0', id: prompt.id, result: { acknowledged: true } });
    const respond = await client.call('interaction.respond', { sessionId, response: { value } });
    expect(respond.result).toEqual({ accepted: true, validation: { valid: true } });
  }
  const complete = await client.serverRequest('interaction.complete');
  expect(complete.params.result).toMatchObject({ success: true, data: { user: { name: 'Eve' }, plan: 'free' } });
  await client.connection.send({ jsonrpc: '2.0', id: complete.id, result: { success: true, finalResult: complete.params.result.data } });
  const state = await client.call('interaction.getState', { sessionId });
  expect(state.result.state).toBe('completed');
  return complete.params.result;
}
