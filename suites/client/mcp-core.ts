// Suite `mcp-core` (client side, seeds 002/003): the client answers ping, refuses a feature it did
// not declare, sends cursors back exactly, never reuses a request id, never answers a
// notification, and calls only what the server declared.
import { defineCase, TargetPreconditionError, type ConformanceCase } from '../../src/harness/index.js';
import { isRecord } from '../../src/wire/index.js';
import {
  clientMessages,
  describe,
  ECHO_CALL,
  errorOf,
  isRequest,
  isResponse,
  paramsOf,
  QUIET_MS,
  ScriptedServer,
  TOOL_PAGES,
  withoutSampling,
  type RequestId,
} from './support.js';

const SUITE = 'mcp-core';

const pingAnswered = defineCase({
  id: 'mcp-core/ping-answered',
  suite: SUITE,
  title: 'CORE-LIFE-12, CORE-RPC-14: a ping from the server is answered with the empty result {}',
  requirements: ['CORE-LIFE-12', 'CORE-RPC-14'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    const call = await server.awaitCall();
    if (!call) throw new TargetPreconditionError('the client made no tools/call');
    const answer = await server.request('CORE-LIFE-12', 'ping');
    if (answer) {
      ctx.check('CORE-LIFE-12', 'result' in answer, { message: 'ping is answered with a result', expected: { result: {} }, actual: answer });
      ctx.check('CORE-RPC-14', isRecord(answer.result) && Object.keys(answer.result).length === 0, {
        message: 'the ping result is the empty object {}',
        expected: {},
        actual: answer.result ?? answer.error,
      });
    }
    await server.answerCall(call);
    await server.untilExit();
  },
});

const samplingRefused = defineCase({
  id: 'mcp-core/undeclared-sampling-refused',
  suite: SUITE,
  title: 'CORE-SAMPLING-4: a client that did not declare sampling answers sampling/createMessage with an error',
  requirements: ['CORE-SAMPLING-4'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  applies: withoutSampling,
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    const call = await server.awaitCall();
    if (!call) throw new TargetPreconditionError('the client made no tools/call');
    const answer = await server.request('CORE-SAMPLING-4', 'sampling/createMessage', {
      messages: [{ role: 'user', content: { type: 'text', text: 'What is 2 + 2?' } }],
      maxTokens: 16,
    });
    if (answer) {
      ctx.check('CORE-SAMPLING-4', errorOf(answer) !== undefined, {
        message: 'sampling/createMessage to a client without the sampling capability is answered with an error',
        expected: { error: { code: '...' } },
        actual: answer,
      });
    }
    await server.answerCall(call);
    await server.untilExit();
  },
});

const cursorsExact = defineCase({
  id: 'mcp-core/cursor-sent-back-exactly',
  suite: SUITE,
  title: 'CORE-PAGE-4: tools/list cursors are sent back exactly as received (opaque)',
  requirements: ['CORE-PAGE-4'],
  scenario: { name: 'initialize' },
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    await server.untilExit();
    const given = new Set(TOOL_PAGES.flatMap((p) => (p.nextCursor !== undefined ? [p.nextCursor] : [])));
    const lists = server.requests().filter((r) => r.method === 'tools/list');
    const cursors = lists.map((r) => paramsOf(r).cursor).filter((c) => c !== undefined);
    const invented = cursors.filter((c) => typeof c !== 'string' || !given.has(c));
    ctx.check('CORE-PAGE-4', lists.length > 0 && invented.length === 0, {
      message: 'every cursor the client sends is one the server gave, unchanged',
      expected: [...given],
      actual: lists.length === 0 ? 'the client sent no tools/list' : cursors,
    });
    // The scenario follows every nextCursor: that is the contract, not a requirement; reported.
    ctx.info('CORE-PAGE-4', `the client fetched ${lists.length} of ${TOOL_PAGES.length} tools/list pages`, cursors);
  },
});

const idsNotReused = defineCase({
  id: 'mcp-core/request-ids-not-reused',
  suite: SUITE,
  title: 'CORE-RPC-4, CORE-RPC-3: no two requests of the client share an id; ids are strings or integers',
  requirements: ['CORE-RPC-4', 'CORE-RPC-3'],
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 3 } },
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    await server.untilExit();
    const requests = clientMessages(ctx).filter((m) => isRecord(m.message) && typeof m.message.method === 'string' && 'id' in m.message);
    const seen = new Map<string, string>();
    const reused: string[] = [];
    for (const { message } of requests) {
      const key = `${typeof message.id}:${String(message.id)}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) reused.push(`${describe(message)} reuses the id of ${earlier}`);
      else seen.set(key, describe(message));
    }
    ctx.check('CORE-RPC-4', requests.length > 1 && reused.length === 0, {
      message: 'every request the client sends in the session has an id not used before',
      expected: 'distinct ids',
      actual: reused.length > 0 ? reused : `${requests.length} requests, all ids distinct`,
    });
    const badIds = requests.filter(({ message }) => !(typeof message.id === 'string' || (typeof message.id === 'number' && Number.isInteger(message.id))));
    ctx.check('CORE-RPC-3', badIds.length === 0, {
      message: 'every request id is a string or an integer (never null or fractional)',
      expected: 'string or integer ids',
      actual: badIds.length > 0 ? badIds.map((m) => m.message.id) : 'all ids well formed',
    });
  },
});

const notificationsUnanswered = defineCase({
  id: 'mcp-core/notification-not-answered',
  suite: SUITE,
  title: 'CORE-RPC-6: a notification from the server gets no response, not even an error',
  requirements: ['CORE-RPC-6'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open({ result: { capabilities: { tools: { listChanged: true } } } });
    const call = await server.awaitCall();
    if (!call) throw new TargetPreconditionError('the client made no tools/call');
    await server.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const quiet = await server.collect(QUIET_MS);
    const answers = quiet.filter((r) => isResponse(r.message) && !server.sentRequestIds.has(r.message.id as RequestId));
    ctx.check('CORE-RPC-6', answers.length === 0, {
      message: 'notifications/tools/list_changed gets no response',
      expected: 'no response',
      actual: answers.length > 0 ? answers.map((r) => r.message) : 'none',
    });
    for (const r of quiet) await server.serve(r.message);
    await server.answerCall(call);
    await server.untilExit();
  },
});

const declaredFeaturesOnly = defineCase({
  id: 'mcp-core/declared-features-only',
  suite: SUITE,
  title: 'CORE-CAP-1: the client calls only features the server declared (here: tools only)',
  requirements: ['CORE-CAP-1'],
  scenario: { name: 'initialize' },
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    await server.untilExit();
    const NEEDS: Record<string, string> = { 'resources/': 'resources', 'prompts/': 'prompts', 'logging/': 'logging', 'completion/': 'completions' };
    const undeclared = server.requests().filter((r) => Object.keys(NEEDS).some((prefix) => r.method.startsWith(prefix)));
    ctx.check('CORE-CAP-1', undeclared.length === 0, {
      message: 'no resources/*, prompts/*, logging/* or completion/* request to a server that declared only tools',
      expected: 'tools/* requests only',
      actual: undeclared.length > 0 ? undeclared.map((r) => describe(r)) : 'none',
    });
  },
});

/** A method no MCP version defines: the client answers it with an error (-32601). */
const UNKNOWN_METHOD = 'conformance/no-such-method';

const wellFormed = defineCase({
  id: 'mcp-core/messages-well-formed',
  suite: SUITE,
  title: 'CORE-RPC-1/2/5/7/16: every client message is JSON-RPC 2.0; requests have a method and object params; each server request is answered once, by id, with a well-formed result or error',
  requirements: ['CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-5', 'CORE-RPC-7', 'CORE-RPC-16'],
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 2 } },
  timeLimitMs: 15_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    const call = await server.awaitCall();
    if (!call) throw new TargetPreconditionError('the client made no tools/call');
    // Two requests to the client: one it can serve (ping), one it cannot (an unknown method).
    const ping = await server.request('CORE-RPC-16', 'ping');
    const unknown = await server.request('CORE-RPC-16', UNKNOWN_METHOD);
    await server.answerCall(call);
    await server.untilExit();
    const messages = clientMessages(ctx).map((m) => m.message);
    const notRpc = messages.filter((m) => m.jsonrpc !== '2.0');
    ctx.check('CORE-RPC-1', messages.length > 0 && notRpc.length === 0, {
      message: 'every message the client sends has jsonrpc "2.0"',
      expected: '"2.0"',
      actual: notRpc.length > 0 ? notRpc.slice(0, 3).map((m) => ({ message: describe(m), jsonrpc: m.jsonrpc ?? null })) : `${messages.length} messages, all "2.0"`,
    });
    const requests = messages.filter((m) => 'method' in m);
    const badRequests = requests.filter((m) => typeof m.method !== 'string' || (m.params !== undefined && !isRecord(m.params)));
    ctx.check('CORE-RPC-2', badRequests.length === 0, {
      message: 'every request and notification has a string method, and params (when present) is an object',
      expected: 'string method, object params',
      actual: badRequests.length > 0 ? badRequests.slice(0, 3) : `${requests.length} well formed`,
    });
    const answers = messages.filter((m) => !('method' in m));
    const sentIds = [...server.sentRequestIds];
    const badAnswers = answers.filter((m) => !sentIds.some((id) => id === m.id) || ('result' in m) === ('error' in m));
    ctx.check('CORE-RPC-5', answers.length > 0 && badAnswers.length === 0, {
      message: 'every response carries the id of a server request (same JSON type) and exactly one of result or error',
      expected: `ids among ${JSON.stringify(sentIds)}`,
      actual: badAnswers.length > 0 ? badAnswers.slice(0, 3) : `${answers.length} responses`,
    });
    const badErrors = answers.filter((m) => 'error' in m).filter((m) => {
      const error = errorOf(m);
      return !(error && Number.isInteger(error.code) && typeof error.message === 'string' && error.message.length > 0);
    });
    ctx.check('CORE-RPC-7', unknown !== undefined && errorOf(unknown) !== undefined && badErrors.length === 0, {
      message: `error responses (e.g. to ${UNKNOWN_METHOD}) have an integer code and a non-empty message`,
      expected: { error: { code: -32601, message: 'Method not found' } },
      actual: badErrors.length > 0 ? badErrors.slice(0, 3) : (unknown ?? 'no answer'),
    });
    const answered = (id: RequestId) => answers.filter((m) => m.id === id).length;
    const notOnce = sentIds.filter((id) => answered(id) !== 1);
    ctx.check('CORE-RPC-16', ping !== undefined && unknown !== undefined && notOnce.length === 0, {
      message: 'every request the server sent is answered exactly once',
      expected: 'one answer each',
      actual: notOnce.length > 0 ? notOnce.map((id) => `id ${JSON.stringify(id)}: ${answered(id)} answers`) : 'one answer each',
    });
  },
});

export const cases: readonly ConformanceCase[] = [wellFormed, pingAnswered, samplingRefused, cursorsExact, idsNotReused, notificationsUnanswered, declaredFeaturesOnly];
