// The scripted server of the client suites (suites/support/scripted-server.ts) over an in-memory pair: a
// hand-written client on the other end shows what it serves, what it holds for the case, and
// how a request the client leaves unanswered becomes a failed check.
import { afterEach, describe, expect, it } from 'vitest';
import { CaseMisuseError, CaseRegistry, CaseRun, defineCase, TargetPreconditionError } from '../../../src/harness/index.js';
import { requirements } from '../../../src/protocol/requirements.js';
import { createMemoryPair, type MemoryPair } from '../../../src/transport/memory/index.js';
import {
  askDuringCall,
  callInFlight,
  clientMessages,
  initializeSeq,
  isRequest,
  ScriptedServer,
  servedSession,
  TOOL_PAGES,
  type Message,
} from '../../../suites/support/scripted-server.js';

const registry = new CaseRegistry(undefined, { role: 'client' });
const probe = registry.register(
  defineCase({ id: 'support/probe', suite: 'support', title: 'probe', requirements: ['CORE-LIFE-12'], scenario: { name: 'initialize' }, run: async () => undefined }),
);

let pair: MemoryPair | undefined;
afterEach(async () => {
  await pair?.client.close();
  pair = undefined;
});

function setup(): { server: ScriptedServer; run: CaseRun; client: MemoryPair['client'] } {
  pair = createMemoryPair();
  const run = new CaseRun({
    case: probe,
    connection: pair.server,
    signal: new AbortController().signal,
    discovery: {},
    target: { description: 'memory', transport: 'stdio', role: 'client', rerunArgs: [] },
    requirements: requirements(),
    timeoutScale: 1,
    seed: 1,
  });
  return { server: new ScriptedServer(run), run, client: pair.client };
}

/** The client side: sends `message` and returns the answer to it. */
async function ask(client: MemoryPair['client'], message: Message): Promise<Message> {
  await client.send(message);
  const answer = await client.next((r) => (r.message as Message).id === message.id && !('method' in (r.message as Message)), { timeoutMs: 5_000 });
  return answer.message as Message;
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const ECHO = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };

describe('ScriptedServer', () => {
  it('answers initialize, then serves ping, the tools/list pages (cursors verbatim) and the echo tool', async () => {
    const { server, client } = setup();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await server.open();
    const init = await client.next(undefined, { timeoutMs: 5_000 });
    expect((init.message as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-06-18');

    const serving = server.serveUntil((r) => isRequest(r.message, 'stop'), 5_000);
    expect(await ask(client, { jsonrpc: '2.0', id: 2, method: 'ping' })).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const first = await ask(client, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect((first.result as { nextCursor: string }).nextCursor).toBe(TOOL_PAGES[0]!.nextCursor);
    const second = await ask(client, { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: TOOL_PAGES[0]!.nextCursor } });
    expect((second.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['download', 'slow']);
    const modified = await ask(client, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { cursor: `${TOOL_PAGES[0]!.nextCursor}x` } });
    expect((modified.error as { code: number }).code).toBe(-32602);
    const echo = await ask(client, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    expect(echo.result).toEqual({ content: [{ type: 'text', text: '{"text":"hi"}' }] });
    const unknown = await ask(client, { jsonrpc: '2.0', id: 7, method: 'resources/list' });
    expect((unknown.error as { code: number }).code).toBe(-32601);
    await client.send({ jsonrpc: '2.0', id: 8, method: 'stop' });
    expect((await serving)?.message).toMatchObject({ method: 'stop' });
    expect(clientMessages(server.ctx).map((m) => m.message.method ?? 'response')).toEqual([
      'initialize', 'ping', 'tools/list', 'tools/list', 'tools/list', 'tools/call', 'resources/list', 'stop',
    ]);
  });

  it('holds MCP Flow requests for the case instead of answering them, and finds them later', async () => {
    const { server, client } = setup();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'interaction.start', params: { toolName: 'interview' } });
    await client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    // Waiting for the ping answer's trigger serves the ping but keeps the interaction.start.
    const stop = server.serveUntil((r) => isRequest(r.message, 'stop'), 5_000);
    await client.next((r) => (r.message as Message).id === 2, { timeoutMs: 5_000 });
    await client.send({ jsonrpc: '2.0', id: 3, method: 'stop' });
    await stop;
    const held = await server.serveUntil((r) => isRequest(r.message, 'interaction.start'), 100);
    expect(held?.message).toMatchObject({ id: 1, method: 'interaction.start' });
    expect(client.pending().some((r) => (r.message as Message).id === 1)).toBe(false);
  });

  it('a request the client leaves unanswered is a failed check of the requirement named', async () => {
    const { server, run } = setup();
    const answer = await server.request('CORE-LIFE-12', 'ping', undefined, 200);
    expect(answer).toBeUndefined();
    expect(run.checks).toEqual([expect.objectContaining({ requirement: 'CORE-LIFE-12', verdict: 'FAIL' })]);
  });

  it('a request the client answers resolves with the answer and records no check', async () => {
    const { server, run, client } = setup();
    const pending = server.request('CORE-LIFE-12', 'ping', undefined, 5_000);
    const ping = await client.next((r) => isRequest(r.message, 'ping'), { timeoutMs: 5_000 });
    await client.send({ jsonrpc: '2.0', id: (ping.message as Message).id, result: {} });
    expect(await pending).toMatchObject({ result: {} });
    expect(run.checks).toEqual([]);
  });

  it('reserveRequestId: a fresh id whose answer counts as solicited; collectUnsolicited returns only the others and serves what came', async () => {
    const { server, client } = setup();
    const reserved = server.reserveRequestId();
    expect(server.sentRequestIds.has(reserved)).toBe(true);
    await client.send({ jsonrpc: '2.0', id: reserved, result: {} });
    await client.send({ jsonrpc: '2.0', id: 'never-asked', result: {} });
    await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    const unsolicited = await server.collectUnsolicited(300);
    expect(unsolicited.map((r) => r.message)).toEqual([{ jsonrpc: '2.0', id: 'never-asked', result: {} }]);
    const pong = await client.next((r) => (r.message as Message).id === 9, { timeoutMs: 5_000 });
    expect(pong.message).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('awaitNullIdResponse returns the first response with id null, serving the rest meanwhile', async () => {
    const { server, client } = setup();
    await client.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await client.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(await server.awaitNullIdResponse(5_000)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect((await client.next((r) => (r.message as Message).id === 3, { timeoutMs: 5_000 })).message).toMatchObject({ result: {} });
  });

  it('initializeAnsweredAt is the transcript position of the initialize answer, after the request (initializeSeq)', async () => {
    const { server, client } = setup();
    expect(() => server.initializeAnsweredAt()).toThrow(CaseMisuseError);
    await client.send(INITIALIZE);
    await server.open();
    const answeredAt = server.initializeAnsweredAt();
    const answer = server.ctx.connection.transcript.entries().find((e) => e.seq === answeredAt);
    expect(answer?.direction).toBe('sent');
    expect(answer?.decoded).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    expect(initializeSeq(server.ctx)).toBeLessThan(answeredAt);
  });
});

describe('how cases open', () => {
  it('callInFlight answers initialize and returns the client\'s tools/call unanswered', async () => {
    const { run, client } = setup();
    await client.send(INITIALIZE);
    await client.send(ECHO);
    const { server, call } = await callInFlight(run);
    expect(call).toMatchObject({ id: 2, method: 'tools/call' });
    expect(server.initializeResult).toMatchObject({ protocolVersion: '2025-06-18' });
    expect(client.pending().some((r) => (r.message as Message).id === 2)).toBe(false);
    await server.finishCall(call);
    const answer = await client.next((r) => (r.message as Message).id === 2, { timeoutMs: 5_000 });
    expect(answer.message).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{"text":"hi"}' }] } });
  });

  it('callInFlight: a client that leaves without a tools/call is a precondition failure', async () => {
    const { run, client } = setup();
    await client.send(INITIALIZE);
    const opening = callInFlight(run);
    await client.next(undefined, { timeoutMs: 5_000 });
    await client.close();
    await expect(opening).rejects.toThrow(TargetPreconditionError);
  });

  /** A client that called echo; the case pings it during the call. Returns the ping as the client got it. */
  async function pingDuringCall(): Promise<{ run: CaseRun; client: MemoryPair['client']; judged: Message[]; asking: Promise<void>; ping: Message }> {
    const { run, client } = setup();
    await client.send(INITIALIZE);
    await client.send(ECHO);
    const judged: Message[] = [];
    const asking = askDuringCall(run, 'CORE-LIFE-12', 'ping', undefined, (answer) => judged.push(answer));
    const ping = await client.next((r) => isRequest(r.message, 'ping'), { timeoutMs: 5_000 });
    return { run, client, judged, asking, ping: ping.message as Message };
  }

  it('askDuringCall judges the answer to its request, then answers the call', async () => {
    const { run, client, judged, asking, ping } = await pingDuringCall();
    await client.send({ jsonrpc: '2.0', id: ping.id, result: {} });
    await asking;
    expect(judged).toEqual([expect.objectContaining({ result: {} })]);
    expect((await client.next((r) => (r.message as Message).id === 2, { timeoutMs: 5_000 })).message).toMatchObject({ result: {} });
    expect(run.checks).toEqual([]);
  });

  it('askDuringCall: no answer is a failed check of the requirement and the judge is not called', async () => {
    const { run, client, judged, asking } = await pingDuringCall();
    await client.close();
    await asking;
    expect(judged).toEqual([]);
    expect(run.checks).toEqual([expect.objectContaining({ requirement: 'CORE-LIFE-12', verdict: 'FAIL' })]);
  });

  it('servedSession answers initialize and serves until the client is gone (no process here: no exit status)', async () => {
    const { run, client } = setup();
    await client.send(INITIALIZE);
    const { server, exit } = await servedSession(run, { result: { protocolVersion: '2025-03-26' } });
    expect(exit).toBeUndefined();
    expect((await client.next(undefined, { timeoutMs: 5_000 })).message).toMatchObject({ id: 1, result: { protocolVersion: '2025-03-26' } });
    expect(server.initialize).toMatchObject({ id: 1 });
  });
});
