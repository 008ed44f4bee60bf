// Suite `mcp-core` (client side, seeds 002/003): the client answers ping, refuses a feature it did
// not declare, sends cursors back exactly, never reuses a request id, never answers a
// notification, and calls only what the server declared.
import { defineCase, type Applicability, type CaseContext, type ConformanceCase, type Discovery } from '../../../src/harness/index.js';
import { findMethod, isDefinedIn, isProtocolVersion } from '../../../src/protocol/methods.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  askDuringCall,
  callInFlight,
  clientMessages,
  CODE,
  describe,
  ECHO_CALL,
  errorOf,
  errorResponse,
  EXIT_WAIT_MS,
  exitText,
  isNotification,
  isRequest,
  isResponse,
  notification,
  paramsOf,
  QUIET_MS,
  resultResponse,
  servedSession,
  stderrTail,
  STEP_WAIT_MS,
  TOOL_PAGES,
  withoutSampling,
  type ClientMessage,
  type RequestId,
} from '../../support/scripted-server.js';

const SUITE = 'mcp-core';

/** The sampling/createMessage params the sampling cases send. */
const SAMPLING_QUESTION = { messages: [{ role: 'user', content: { type: 'text', text: 'What is 2 + 2?' } }], maxTokens: 16 };

const pingAnswered = defineCase({
  id: 'mcp-core/ping-answered',
  suite: SUITE,
  title: 'CORE-LIFE-12, CORE-RPC-14: a ping from the server is answered with the empty result {}',
  requirements: ['CORE-LIFE-12', 'CORE-RPC-14'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  async run(ctx) {
    await askDuringCall(ctx, 'CORE-LIFE-12', 'ping', undefined, (answer) => {
      ctx.check('CORE-LIFE-12', 'result' in answer, { message: 'ping is answered with a result', expected: { result: {} }, actual: answer });
      if (!('result' in answer)) return;
      ctx.check('CORE-RPC-14', isRecord(answer.result), {
        message: 'the ping result is an object, the empty object {}',
        expected: {},
        actual: answer.result,
      });
      // Members in it (e.g. _meta) are not a failure: reported.
      if (isRecord(answer.result) && Object.keys(answer.result).length > 0) ctx.info('CORE-RPC-14', `the ping result is not empty: ${JSON.stringify(answer.result)}`, answer.result);
    });
  },
});

const samplingRefused = defineCase({
  id: 'mcp-core/undeclared-sampling-refused',
  suite: SUITE,
  title: 'CORE-SAMPLING-4: a client that did not declare sampling answers sampling/createMessage with an error',
  requirements: ['CORE-SAMPLING-4'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  applies: withoutSampling,
  async run(ctx) {
    await askDuringCall(ctx, 'CORE-SAMPLING-4', 'sampling/createMessage', SAMPLING_QUESTION, (answer) => {
      const error = errorOf(answer);
      ctx.check('CORE-SAMPLING-4', error !== undefined, {
        message: 'sampling/createMessage to a client without the sampling capability is answered with an error',
        expected: { error: { code: CODE.methodNotFound } },
        actual: answer,
      });
      if (error !== undefined && error.code !== CODE.methodNotFound) ctx.info('CORE-SAMPLING-4', `refused with error code ${JSON.stringify(error.code)} rather than -32601 (another JSON-RPC error code, an accepted reading)`, error);
    });
  },
});

const cursorsExact = defineCase({
  id: 'mcp-core/cursor-sent-back-exactly',
  suite: SUITE,
  title: 'CORE-PAGE-4: tools/list cursors are sent back exactly as received (opaque)',
  requirements: ['CORE-PAGE-4'],
  scenario: { name: 'initialize' },
  async run(ctx) {
    const { server } = await servedSession(ctx);
    const given = new Set(TOOL_PAGES.flatMap((p) => (p.nextCursor !== undefined ? [p.nextCursor] : [])));
    const lists = server.requests().filter((r) => r.method === 'tools/list');
    const cursors = lists.map((r) => paramsOf(r).cursor).filter((c) => c !== undefined);
    const invented = cursors.filter((c) => typeof c !== 'string' || !given.has(c));
    if (lists.length === 0) {
      ctx.info('CORE-PAGE-4', `the client sent no tools/list, so no cursor to judge: ${server.observed()}`);
      return;
    }
    ctx.check('CORE-PAGE-4', invented.length === 0, {
      message: 'every cursor the client sends is one the server gave, unchanged',
      expected: [...given],
      actual: cursors,
    });
    // The scenario follows every nextCursor: that is the contract, not a requirement; reported.
    ctx.info('CORE-PAGE-4', `the client fetched ${lists.length} of ${TOOL_PAGES.length} tools/list pages`, cursors);
  },
});

const idsNotReused = defineCase({
  id: 'mcp-core/request-ids-not-reused',
  suite: SUITE,
  title: 'CORE-RPC-4, CORE-RPC-3: no two requests of the client share an id; ids are strings or integers',
  requirements: ['CORE-RPC-4', 'CORE-RPC-3', 'WT-ID-1'],
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 3 } },
  async run(ctx) {
    const { server } = await servedSession(ctx);
    const requests = clientMessages(ctx).filter((m) => isRecord(m.message) && typeof m.message.method === 'string' && 'id' in m.message);
    const seen = new Map<string, string>();
    const reused: string[] = [];
    for (const { message } of requests) {
      const key = `${typeof message.id}:${String(message.id)}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) reused.push(`${describe(message)} reuses the id of ${earlier}`);
      else seen.set(key, describe(message));
    }
    if (requests.length < 2) ctx.info('CORE-RPC-4', `the client sent ${requests.length} request(s), so no ids to compare: ${server.observed()}`);
    else {
      ctx.check('CORE-RPC-4', reused.length === 0, {
        message: 'every request the client sends in the session has an id not used before',
        expected: 'distinct ids',
        actual: reused.length > 0 ? reused : `${requests.length} requests, all ids distinct`,
      });
    }
    if (ctx.connection.kind === 'webtransport') {
      const outOfRange = requests.filter(({ message }) => !(typeof message.id === 'number' && Number.isInteger(message.id) && message.id >= 0 && message.id <= 0xffff_ffff));
      ctx.check('WT-ID-1', outOfRange.length === 0, {
        message: 'over WebTransport every request id is an integer in 0..2^32-1 (stream and datagram headers carry it)',
        expected: 'integers in 0..4294967295',
        actual: outOfRange.length > 0 ? outOfRange.map((m) => m.message.id) : 'all in range',
      });
    } else {
      ctx.info('WT-ID-1', 'not WebTransport: string ids are allowed here');
    }
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
  async run(ctx) {
    const { server, call } = await callInFlight(ctx, { result: { capabilities: { tools: { listChanged: true } } } });
    await server.send(notification('notifications/tools/list_changed'));
    const answers = await server.collectUnsolicited(QUIET_MS);
    ctx.check('CORE-RPC-6', answers.length === 0, {
      message: 'notifications/tools/list_changed gets no response',
      expected: 'no response',
      actual: answers.length > 0 ? answers.map((r) => r.message) : 'none',
    });
    await server.finishCall(call);
  },
});

const declaredFeaturesOnly = defineCase({
  id: 'mcp-core/declared-features-only',
  suite: SUITE,
  title: 'CORE-CAP-1: the client calls only features the server declared (here: none, not even tools)',
  requirements: ['CORE-CAP-1'],
  scenario: { name: 'initialize' },
  async run(ctx) {
    // The scenario lists tools: a server that declared no tools must not be asked for them.
    const { server } = await servedSession(ctx, { result: { capabilities: { tools: undefined } } });
    const NEEDS: Record<string, string> = { 'tools/': 'tools', 'resources/': 'resources', 'prompts/': 'prompts', 'logging/': 'logging', 'completion/': 'completions' };
    const undeclared = server.requests().filter((r) => Object.keys(NEEDS).some((prefix) => r.method.startsWith(prefix)));
    ctx.check('CORE-CAP-1', undeclared.length === 0, {
      message: 'no tools/*, resources/*, prompts/*, logging/* or completion/* request to a server that declared none of these capabilities',
      expected: 'no feature request',
      actual: undeclared.length > 0 ? undeclared.map((r) => describe(r)) : 'none',
    });
  },
});

/** The progress token the scripted server puts in the ping it sends (the only token it ever gives). */
const PING_PROGRESS_TOKEN = 'conformance-ping-progress';

/**
 * CORE-PROG-1..4 over whatever the client sent: the progress tokens of its requests are strings or
 * integers, unique among its requests still in flight; any notifications/progress it sends names a
 * token the server gave it (the scripted server gives one, in its ping), increases per token, and
 * does not come after the client's answer to the request that carried the token.
 */
function checkProgress(ctx: CaseContext, messages: readonly ClientMessage[], tokenRequests: ReadonlyMap<unknown, RequestId>): void {
  const tokens: unknown[] = [];
  const bad: unknown[] = [];
  const active = new Map<string, RequestId>();
  for (const { message: m } of messages) {
    if (isRequest(m)) {
      const meta = paramsOf(m)._meta;
      const token = isRecord(meta) ? meta.progressToken : undefined;
      if (token === undefined) continue;
      tokens.push(token);
      const key = `${typeof token}:${String(token)}`;
      if (!(typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token))) || active.has(key)) bad.push(token);
      active.set(key, m.id);
    }
  }
  // The harness answers calls at once: in this scenario a token is active only until its call's answer.
  ctx.check('CORE-PROG-1', bad.length === 0, {
    message: 'every progressToken the client puts in a request is a string or an integer, not reused while active',
    expected: 'string or integer tokens',
    actual: bad.length > 0 ? bad : `${tokens.length} token(s)`,
  });
  const progress = messages.filter((m) => isNotification(m.message, 'notifications/progress'));
  if (progress.length === 0) {
    for (const requirement of ['CORE-PROG-2', 'CORE-PROG-3', 'CORE-PROG-4']) ctx.info(requirement, 'the client sent no notifications/progress (nothing asked for it), so none to judge');
    return;
  }
  const tokenOf = (m: ClientMessage) => paramsOf(m.message).progressToken;
  const unknown = progress.filter((m) => !tokenRequests.has(tokenOf(m)));
  ctx.check('CORE-PROG-2', unknown.length === 0, {
    message: `notifications/progress names only a progress token the server gave (it gave ${JSON.stringify([...tokenRequests.keys()])})`,
    expected: 'tokens the server supplied',
    actual: unknown.length > 0 ? unknown.slice(0, 3).map((m) => paramsOf(m.message)) : `${progress.length} notification(s), all for given tokens`,
  });
  const notIncreasing: unknown[] = [];
  const last = new Map<unknown, number>();
  for (const m of progress) {
    const params = paramsOf(m.message);
    const value = params.progress;
    const before = last.get(tokenOf(m));
    if (typeof value !== 'number' || (before !== undefined && value <= before) || (params.total !== undefined && typeof params.total !== 'number')) notIncreasing.push(params);
    if (typeof value === 'number') last.set(tokenOf(m), value);
  }
  ctx.check('CORE-PROG-3', notIncreasing.length === 0, {
    message: 'for each token, progress increases with every notification; total, when present, is a number',
    expected: 'increasing progress per token',
    actual: notIncreasing.length > 0 ? notIncreasing.slice(0, 3) : `${progress.length} notification(s), increasing`,
  });
  const answeredAt = (id: RequestId) => messages.find((m) => isResponse(m.message) && m.message.id === id)?.seq ?? Infinity;
  const late = progress.filter((m) => tokenRequests.has(tokenOf(m)) && m.seq > answeredAt(tokenRequests.get(tokenOf(m))!));
  ctx.check('CORE-PROG-4', late.length === 0, {
    message: 'no progress notification for a request after the client answered that request',
    expected: 'progress before the response',
    actual: late.length > 0 ? late.slice(0, 3).map((m) => paramsOf(m.message)) : 'all before the response',
  });
}

/** A method no MCP version defines: the client answers it with an error (-32601). */
const UNKNOWN_METHOD = 'conformance/no-such-method';

const wellFormed = defineCase({
  id: 'mcp-core/messages-well-formed',
  suite: SUITE,
  title: 'CORE-RPC-1/2/5/7/16: every client message is JSON-RPC 2.0; requests have a method and object params; each server request is answered once, by id, with a well-formed result or error',
  requirements: ['CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-5', 'CORE-RPC-7', 'CORE-RPC-16', 'CORE-ERR-1', 'CORE-LIFE-11', 'CORE-PROG-1', 'CORE-PROG-2', 'CORE-PROG-3', 'CORE-PROG-4'],
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 2 } },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    // Two requests to the client: one it can serve (ping, carrying a progress token), one it cannot (an unknown method).
    const ping = await server.request('CORE-RPC-16', 'ping', { _meta: { progressToken: PING_PROGRESS_TOKEN } });
    const unknown = await server.request('CORE-RPC-16', UNKNOWN_METHOD);
    await server.finishCall(call);
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
    // No response at all is CORE-RPC-16's (below): here only the responses that came are judged.
    if (answers.length === 0) ctx.info('CORE-RPC-5', `the client sent no response, so none to judge: ${server.observed()}`);
    else {
      ctx.check('CORE-RPC-5', badAnswers.length === 0, {
        message: 'every response carries the id of a server request (same JSON type) and exactly one of result or error',
        expected: `ids among ${JSON.stringify(sentIds)}`,
        actual: badAnswers.length > 0 ? badAnswers.slice(0, 3) : `${answers.length} responses`,
      });
    }
    const badErrors = answers.filter((m) => 'error' in m).filter((m) => {
      const error = errorOf(m);
      return !(error && Number.isInteger(error.code) && typeof error.message === 'string' && error.message.length > 0);
    });
    // The shape of the error responses that came; which code the unknown method gets is CORE-ERR-1's,
    // and no answer at all CORE-RPC-16's.
    const errors = answers.filter((m) => 'error' in m);
    if (errors.length === 0) ctx.info('CORE-RPC-7', `the client sent no error response, so none to judge${unknown ? `; it answered ${UNKNOWN_METHOD} with ${JSON.stringify(unknown.result)}` : ''}`);
    else {
      ctx.check('CORE-RPC-7', badErrors.length === 0, {
        message: `error responses (e.g. to ${UNKNOWN_METHOD}) have an integer code and a non-empty message`,
        expected: { error: { code: -32601, message: 'Method not found' } },
        actual: badErrors.length > 0 ? badErrors.slice(0, 3) : `${errors.length} error response(s), well formed`,
      });
    }
    if (unknown) {
      ctx.check('CORE-ERR-1', errorOf(unknown)?.code === -32601, {
        message: `a request for an unknown method (${UNKNOWN_METHOD}) is answered with -32601 Method not found, the standard meaning of the code`,
        expected: { error: { code: -32601 } },
        actual: unknown,
      });
    } else ctx.info('CORE-ERR-1', `${UNKNOWN_METHOD} got no answer (judged under CORE-RPC-16), so no code to judge`);
    const version = isRecord(server.initializeResult) ? server.initializeResult.protocolVersion : undefined;
    if (isProtocolVersion(version)) {
      const undefinedThere = requests.filter((m) => typeof m.method === 'string' && findMethod(m.method) !== undefined && !isDefinedIn(m.method, version));
      ctx.check('CORE-LIFE-11', undefinedThere.length === 0, {
        message: `the client sends no method that the negotiated version ${version} does not define`,
        expected: `methods of ${version}`,
        actual: undefinedThere.length > 0 ? undefinedThere.map((m) => m.method) : 'none outside the version',
      });
    } else {
      ctx.info('CORE-LIFE-11', `the negotiated version ${JSON.stringify(version)} is not a known one: no method table to judge against`);
    }
    // The answer to the ping carries its id: progress for its token may come until then.
    checkProgress(ctx, clientMessages(ctx), new Map<unknown, RequestId>([[PING_PROGRESS_TOKEN, (ping?.id as RequestId | undefined) ?? Infinity]]));
    const answered = (id: RequestId) => answers.filter((m) => m.id === id).length;
    const notOnce = sentIds.filter((id) => answered(id) !== 1);
    ctx.check('CORE-RPC-16', ping !== undefined && unknown !== undefined && notOnce.length === 0, {
      message: 'every request the server sent is answered exactly once',
      expected: 'one answer each',
      actual: notOnce.length > 0 ? notOnce.map((id) => `id ${JSON.stringify(id)}: ${answered(id)} answers`) : 'one answer each',
    });
  },
});

const unknownCancelIgnored = defineCase({
  id: 'mcp-core/unknown-cancel-ignored',
  suite: SUITE,
  title: 'CORE-CANCEL-4: notifications/cancelled naming a request the client never received is ignored (no response, the session goes on)',
  requirements: ['CORE-CANCEL-4'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    // An answer that came after the quiet window, up to the ping's answer, counts too.
    const { answers, ping } = await server.unansweredThenPing('CORE-CANCEL-4', notification('notifications/cancelled', { requestId: 987_654_321, reason: 'no such request' }), QUIET_MS);
    if (answers.length > 0 || ping) {
      ctx.check('CORE-CANCEL-4', answers.length === 0 && ping !== undefined && 'result' in ping, {
        message: 'a cancellation of an unknown request gets no response and the session goes on (ping answered)',
        expected: 'no response; ping answered',
        actual: answers.length > 0 ? answers : ping,
      });
    }
    await server.finishCall(call);
  },
});

const carriesOnAfterError = defineCase({
  id: 'mcp-core/carries-on-after-error',
  suite: SUITE,
  title: 'CORE-ERR-4: after an error response without data the client carries on with the session (its next call)',
  requirements: ['CORE-ERR-4'],
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 2 } },
  async run(ctx) {
    const { server, call: first } = await callInFlight(ctx);
    const mark = server.mark();
    await server.send(errorResponse(first.id, -32603, 'Internal error'));
    const second = await server.awaitCall();
    if (!second) server.absent('a second tools/call', mark);
    ctx.check('CORE-ERR-4', second !== undefined, {
      message: 'after an error without error.data the client goes on with its next call',
      expected: 'a second tools/call',
      actual: second ? describe(second) : `no further request within ${ctx.scaled(STEP_WAIT_MS)} ms: ${server.observed()}`,
    });
    if (second) await server.answerCall(second);
    await server.untilExit();
  },
});

const toolErrorFailsStep = defineCase({
  id: 'mcp-core/tool-error-fails-step',
  suite: SUITE,
  title: 'CORE-TOOLS-10: a tools/call result with isError: true is a failed tool execution (the scenario exits non-zero)',
  requirements: ['CORE-TOOLS-10'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    await server.send(resultResponse(call.id, { content: [{ type: 'text', text: 'the tool failed (the conformance harness, on purpose)' }], isError: true }));
    const exit = await server.untilExit();
    // A client still running at the deadline has not reported its outcome.
    if (exit === undefined) {
      ctx.info('CORE-TOOLS-10', `the client was still running ${ctx.scaled(EXIT_WAIT_MS)} ms after its call was answered with isError: true: its outcome is not known`);
      return;
    }
    ctx.check('CORE-TOOLS-10', exit.code !== 0, {
      message: 'a call answered with isError: true is a failed step: the client exits non-zero (docs/client-scenarios.md)',
      expected: 'a non-zero exit status',
      actual: { exit: exitText(exit), stderr: stderrTail(ctx) },
    });
  },
});

/** Applicability: the client declared `name` in its initialize capabilities. */
function declaresCapability(name: string): (discovery: Discovery) => Applicability {
  return (discovery) =>
    isRecord(discovery.capabilities) && Object.hasOwn(discovery.capabilities, name) ? true : `the client does not declare the "${name}" capability`;
}

const rootsAnswered = defineCase({
  id: 'mcp-core/declared-roots-answered',
  suite: SUITE,
  title: 'CORE-CAP-7: a client that declared roots answers roots/list with roots whose uri starts with file://',
  requirements: ['CORE-CAP-7'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  applies: declaresCapability('roots'),
  async run(ctx) {
    await askDuringCall(ctx, 'CORE-CAP-7', 'roots/list', undefined, (answer) => {
      const roots = isRecord(answer.result) ? answer.result.roots : undefined;
      const ok = Array.isArray(roots) && roots.every((r) => isRecord(r) && typeof r.uri === 'string' && r.uri.startsWith('file://') && (r.name === undefined || typeof r.name === 'string'));
      ctx.check('CORE-CAP-7', ok, { message: 'roots/list is answered with roots, each a file:// uri and an optional name', expected: { result: { roots: [{ uri: 'file:///...' }] } }, actual: answer });
    });
  },
});

const elicitationAnswered = defineCase({
  id: 'mcp-core/declared-elicitation-answered',
  suite: SUITE,
  title: 'CORE-CAP-8: a client that declared elicitation answers elicitation/create with action accept, decline or cancel',
  requirements: ['CORE-CAP-8'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  applies: (discovery) => {
    const declared = declaresCapability('elicitation')(discovery);
    if (declared !== true) return declared;
    return discovery.protocolVersion === '2025-06-18' || discovery.protocolVersion === '2025-11-25' ? true : 'elicitation/create exists from 2025-06-18 on';
  },
  async run(ctx) {
    const question = { message: 'Which colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } };
    await askDuringCall(ctx, 'CORE-CAP-8', 'elicitation/create', question, (answer) => {
      const result = isRecord(answer.result) ? answer.result : undefined;
      const action = result?.action;
      const ok = (action === 'accept' || action === 'decline' || action === 'cancel') && (action === 'accept' || result?.content === undefined);
      ctx.check('CORE-CAP-8', ok, { message: 'elicitation/create is answered with action accept/decline/cancel (content only with accept)', expected: { result: { action: 'accept | decline | cancel' } }, actual: answer });
    });
  },
});

const samplingAnswered = defineCase({
  id: 'mcp-core/declared-sampling-answered',
  suite: SUITE,
  title: 'CORE-SAMPLING-1: a client that declared sampling answers sampling/createMessage with role, content and model, or an error',
  requirements: ['CORE-SAMPLING-1'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  applies: declaresCapability('sampling'),
  async run(ctx) {
    await askDuringCall(ctx, 'CORE-SAMPLING-1', 'sampling/createMessage', SAMPLING_QUESTION, (answer) => {
      const result = isRecord(answer.result) ? answer.result : undefined;
      const ok = errorOf(answer) !== undefined || (result !== undefined && typeof result.role === 'string' && isRecord(result.content) && typeof result.model === 'string');
      ctx.check('CORE-SAMPLING-1', ok, { message: 'sampling/createMessage is answered with {role, content, model} or an error', expected: { result: { role: 'assistant', content: {}, model: '...' } }, actual: answer });
    });
  },
});

export const cases: readonly ConformanceCase[] = [wellFormed, unknownCancelIgnored, carriesOnAfterError, toolErrorFailsStep, rootsAnswered, elicitationAnswered, samplingAnswered, pingAnswered, samplingRefused, cursorsExact, idsNotReused, notificationsUnanswered, declaredFeaturesOnly];
