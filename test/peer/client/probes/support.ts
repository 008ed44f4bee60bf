// Shared by the probes of the mock client's faults (test/peer/client/faults.test.ts): the exchanges
// a probe drives by hand from the server side, and what it reads back.
import { describe, expect, it } from 'vitest';
import { scriptedAnswerer, type MockClientOptions } from '../../../../src/peer/client/index.js';
import type { Connection } from '../../../../src/transport/connection.js';
import { DEADLINE, isRequest, isResponseTo, memoryPeer, webTransportPeer, type Message, type ScriptedPeer } from '../support.js';

/** Sends a request the client always answers (-32601) and returns every message the client sent before that answer. */
export async function sync(server: Connection, label = 'sync'): Promise<Message[]> {
  await server.send({ jsonrpc: '2.0', id: label, method: 'sync/unknown' });
  const before: Message[] = [];
  for (;;) {
    const { message } = await server.next(undefined, DEADLINE);
    if (isResponseTo(label)({ message } as never)) return before;
    if ((message as Message).method !== 'notifications/initialized') before.push(message as Message);
  }
}

/** An initialized peer (the client's initialize answered and its notifications/initialized taken, when it sends one). */
export async function initialized(peer: ScriptedPeer): Promise<ScriptedPeer> {
  const init = peer.client.initialize();
  await peer.answerInitialize();
  await init;
  return peer;
}

export const method = (m: Message) => (typeof m.method === 'string' ? m.method : 'error' in m ? `error ${m.error?.code} id ${JSON.stringify(m.id)}` : `result id ${JSON.stringify(m.id)}`);

/**
 * One fault's probe: the exchange run against the client without and with the fault (on an
 * in-memory pair, a WebTransport listener, or, for 'http', whatever server `run` starts), what it
 * returns being compared; `expected` says what each run must show where a plain difference says too
 * little; `client` adds options to both clients (a capability declared, say).
 */
export interface Probe {
  transport: 'memory' | 'wt' | 'http';
  run(peer: ScriptedPeer | undefined, faults: string[]): Promise<unknown>;
  expected?: (correct: any, faulty: any) => boolean;
  client?: MockClientOptions;
}

/** Interaction.start answered with a session (and an initial prompt when given); resolves with the session id. */
export async function startSession(peer: ScriptedPeer, initialPrompt?: Message): Promise<string> {
  const { message } = await peer.server.next(isRequest('interaction.start'), DEADLINE);
  const sessionId = 'session_probe';
  await peer.server.send({ jsonrpc: '2.0', id: (message as Message).id, result: { sessionId, state: initialPrompt ? 'waiting_user' : 'idle', ...(initialPrompt ? { initialPrompt } : {}) } });
  return sessionId;
}

/** Answers the client's next request `name` with `result`; returns the request. */
export async function answerNext(server: Connection, name: string, result: Message): Promise<Message> {
  const { message } = await server.next(isRequest(name), DEADLINE);
  await server.send({ jsonrpc: '2.0', id: (message as Message).id, result });
  return message as Message;
}

/**
 * Opens an execution stream naming a request the client never sent, waits (bounded) for the
 * client's -32002, then keeps writing: 'stopped' when the client stopped reading it (STOP_SENDING
 * fails a later write), 'read' when every write and the FIN went through. Also the id-null errors seen.
 */
export async function inject(peer: ScriptedPeer): Promise<{ stream: 'read' | 'stopped'; reported: boolean }> {
  const stream = await peer.server.webtransport!.openExecutionStream({ requestId: 4242, streamTag: 1 });
  await stream.write(new Uint8Array(1000).fill(0x41));
  // The client waits its correlation grace (1 s) before it refuses the stream.
  const reported = await peer.server
    .next((r) => (r.message as Message)?.error?.code === -32002 && (r.message as Message).id === null, { timeoutMs: 6000 })
    .then(() => true, () => false);
  try {
    for (let i = 0; i < 50; i++) {
      await stream.write(new Uint8Array(64 * 1024).fill(0x41));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await stream.close();
    return { stream: 'read', reported };
  } catch {
    return { stream: 'stopped', reported };
  }
}

/** A session completed by the server with result.data {answer: 42}: the client's answer to interaction.complete. */
export async function completion(peer: ScriptedPeer): Promise<Message> {
  await initialized(peer);
  const run = peer.client.interact('wizard', undefined, scriptedAnswerer([]));
  const sessionId = await startSession(peer);
  await peer.server.send({ jsonrpc: '2.0', id: 'done', method: 'interaction.complete', params: { sessionId, result: { success: true, data: { answer: 42 } }, summary: 'ok' } });
  const answer = (await peer.server.next(isResponseTo('done'), DEADLINE)).message as Message;
  await run;
  return answer;
}

/** The next message from the client matching `predicate`, described (method), or `none` after `timeoutMs`. */
export async function nextWithin(server: Connection, predicate: (message: Message) => boolean, timeoutMs = 3000, none = 'none'): Promise<string> {
  try {
    return method((await server.next((r) => predicate(r.message as Message), { timeoutMs })).message as Message);
  } catch {
    return none;
  }
}

/** 'closed' when the connection closed within `timeoutMs`, else 'open'. */
export async function closedWithin(connection: Connection, timeoutMs = 3000): Promise<'closed' | 'open'> {
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), timeoutMs)));
  try {
    return await Promise.race([connection.closed.then(() => 'closed' as const), open]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a probe against a client with `faults` on (none: the correct client) and returns what it observed. */
async function observe(probe: Probe, faults: string[]): Promise<unknown> {
  if (probe.transport === 'http') return probe.run(undefined, faults);
  const client = probe.client ?? {};
  const peer = probe.transport === 'wt' ? await webTransportPeer(faults, client, { maxMessageSize: 1024 }) : memoryPeer(faults, client);
  try {
    return await probe.run(peer, faults);
  } finally {
    await peer.close();
  }
}

/** One test per probe: the client with the fault on shows something else than without it, and what `expected` says. */
export function describeProbes(title: string, probes: Readonly<Record<string, Probe>>): void {
  describe(title, () => {
    it.each(Object.keys(probes))('%s', async (fault) => {
      const probe = probes[fault]!;
      const correct = await observe(probe, []);
      const faulty = await observe(probe, [fault]);
      expect(faulty, `with ${fault}: ${JSON.stringify(faulty)}; without: ${JSON.stringify(correct)}`).not.toEqual(correct);
      expect(probe.expected?.(correct, faulty) ?? true, `${fault}: without ${JSON.stringify(correct)}, with ${JSON.stringify(faulty)}`).toBe(true);
    });
  });
}
