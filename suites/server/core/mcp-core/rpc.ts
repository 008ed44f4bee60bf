// mcp-core: JSON-RPC rules every MCP server keeps (CORE-RPC, CORE-ERR): ids echoed with their type,
// notifications never answered, unknown members ignored, batches under 2025-03-26, error objects,
// exactly one answer per request, results that are objects, error codes that keep their meaning.
import { TargetPreconditionError, defineCase, type CaseContext, type ConformanceCase } from '../../../../src/harness/index.js';
import type { ReceivedMessage } from '../../../../src/transport/connection.js';
import { ConnectionTimeoutError } from '../../../../src/transport/errors.js';
import { isRecord } from '../../../../src/wire/index.js';
import { checkErrorCode, errorOf, initializeParams, isResponseTo, notification, openSession, request, setupRequest, type Message } from '../../../support/session.js';
import { checkNoLeaks, isErrorCode, randomName } from '../../../support/core.js';
import { orderedChannel, takeQueued, untilPostsAnswered } from '../../../support/quiet.js';

const SUITE = 'mcp-core';
/** How long "nothing more arrives" is waited for, before --timeout-scale. */
export const QUIET_MS = 300;
/** Deadline for an answer in these cases, before --timeout-scale. */
const ANSWER_MS = 5_000;
/** The shortest deadline for the answer to a batch of two pings, before --timeout-scale (longer for a slow target, up to ANSWER_MS). */
const BATCH_ANSWER_FLOOR_MS = 1_000;

/** Collects every message that arrives within `ms` (already scaled): a window in which nothing is owed. */
export async function drain(ctx: CaseContext, ms: number): Promise<ReceivedMessage[]> {
  const got: ReceivedMessage[] = [];
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) return got;
    try {
      got.push(await ctx.next(undefined, { timeoutMs: left / ctx.scaled(1), silence: 'anything more from the target' }));
    } catch (error) {
      if (error instanceof ConnectionTimeoutError) return got;
      throw error;
    }
  }
}

/**
 * Everything that arrived once nothing more is owed for the messages sent so far, the last of them
 * the ping `pingId` (its answer included). Silence by ordering: on stdio and the
 * WebTransport control stream the ping is answered after anything owed for what came before it;
 * over Streamable HTTP each POST carries its own answer (a notification's: 202), so once every
 * POST is answered nothing more is owed. Otherwise (the ping unanswered) a window of `ms` (scaled
 * from the target's speed).
 */
async function receivedUpTo(ctx: CaseContext, pingId: string | number, ms: number): Promise<ReceivedMessage[]> {
  let pong: ReceivedMessage | undefined;
  try {
    pong = await ctx.next((r) => isResponseTo(r.message, pingId), { timeoutMs: ANSWER_MS });
  } catch (error) {
    if (!(error instanceof ConnectionTimeoutError)) throw error;
  }
  if (pong && (orderedChannel(ctx) || (ctx.connection.kind === 'http' && (await untilPostsAnswered(ctx, ms, 'the answers to the POSTs'))))) {
    return [pong, ...(await takeQueued(ctx, () => true))];
  }
  return [...(pong ? [pong] : []), ...(await drain(ctx, ctx.scaled(ctx.quietMs(ms))))];
}

/** Waits for a response whose id equals `id` once both are written as strings (7 and "7" alike). */
async function looseAnswer(ctx: CaseContext, id: string | number): Promise<Message | undefined> {
  try {
    const received = await ctx.next(
      (r) => isRecord(r.message) && !('method' in r.message) && ('result' in r.message || 'error' in r.message) && String(r.message.id) === String(id),
      { timeoutMs: ANSWER_MS },
    );
    return received.message as Message;
  } catch (error) {
    if (error instanceof ConnectionTimeoutError) return undefined;
    throw error;
  }
}

/** Checks that `answer` echoes `id` with its JSON type (CORE-RPC-5; CORE-RPC-12 outside WebTransport). */
function checkEcho(ctx: CaseContext, id: string | number, answer: Message, what: string): void {
  const details = { expected: id, actual: answer.id };
  ctx.check('CORE-RPC-5', answer.id === id, { message: `the response to ${what} echoes id ${JSON.stringify(id)} as a ${typeof id}`, ...details });
  if (ctx.connection.kind !== 'webtransport') {
    ctx.check('CORE-RPC-12', answer.id === id, { message: `the ${typeof id} id ${JSON.stringify(id)} of ${what} is accepted and echoed unchanged`, ...details });
  }
}

const idsEchoed = defineCase({
  id: `${SUITE}/ids-echoed-with-their-type`,
  suite: SUITE,
  title: 'a response carries the request id with the same JSON type: integer ids everywhere, string ids (also numeric strings) outside WebTransport',
  requirements: ['CORE-RPC-5', 'CORE-RPC-12', 'CORE-RPC-16'],
  async run(ctx) {
    // initialize by hand: an echo of the wrong type must be seen here, not lost as an unanswered set-up step.
    const initId = ctx.nextId() + 500;
    await ctx.connection.send(request(initId, 'initialize', initializeParams(ctx)));
    const init = await looseAnswer(ctx, initId);
    if (!init || !isRecord(init.result)) {
      throw new TargetPreconditionError('initialize was not answered with a result', { requirement: 'CORE-LIFE-3', actual: init?.error ?? 'no answer' });
    }
    checkEcho(ctx, initId, init, 'initialize');
    await ctx.connection.send(notification('notifications/initialized'));
    const ids: Array<string | number> = [ctx.nextId() + 1_000];
    if (ctx.connection.kind !== 'webtransport') ids.push(String(ctx.nextId() + 2_000), `conformance-${ctx.nextId()}`);
    else ctx.info('CORE-RPC-12', 'string ids are not sent over WebTransport (C-04); only integer ids are checked there');
    for (const id of ids) {
      await ctx.connection.send(request(id, 'ping'));
      const answer = await looseAnswer(ctx, id);
      if (ctx.check('CORE-RPC-16', answer !== undefined, { message: `ping with id ${JSON.stringify(id)} is answered`, expected: 'one response' })) checkEcho(ctx, id, answer!, 'ping');
    }
  },
});

const notificationsNotAnswered = defineCase({
  id: `${SUITE}/notifications-not-answered`,
  suite: SUITE,
  title: 'a notification (known or unknown) is never answered, not even with an error',
  requirements: ['CORE-RPC-6'],
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const method = `notifications/${randomName()}`;
    await ctx.connection.send(notification(method, { conformance: true }));
    await ctx.connection.send(notification('notifications/progress', { progressToken: randomName('x-conformance-token'), progress: 1 }));
    const id = ctx.nextId();
    await ctx.connection.send(request(id, 'ping'));
    const got = await receivedUpTo(ctx, id, QUIET_MS * 2);
    const isAnswer = (m: unknown): m is Message => isRecord(m) && !('method' in m) && ('result' in m || 'error' in m);
    // Streamable HTTP: an HTTP error status refusing a notification's POST, its body an error without an id, is the transport's refusal (MCP transports).
    const refusal = (r: ReceivedMessage) => r.channel.kind === 'http' && (r.channel.status ?? 0) >= 400 && isRecord(r.message) && (r.message.id === undefined || r.message.id === null);
    const refused = got.filter((r) => isAnswer(r.message) && r.message.id !== id && refusal(r));
    if (refused.length > 0) ctx.info('CORE-RPC-6', 'the HTTP transport refused a notification\'s POST with an error status and an error without an id', refused.map((r) => r.message));
    const stray = got.filter((r) => isAnswer(r.message) && r.message.id !== id && !refusal(r)).map((r) => r.message);
    ctx.check('CORE-RPC-6', stray.length === 0, {
      message: `no response answers the notifications ${method} and notifications/progress`,
      expected: 'no response but the one to ping',
      ...(stray.length ? { actual: stray } : {}),
    });
  },
});

const unknownMembersIgnored = defineCase({
  id: `${SUITE}/unknown-members-ignored`,
  suite: SUITE,
  title: 'members the server does not know in params are ignored, not rejected',
  requirements: ['CORE-RPC-15'],
  sendsInvalid: true,
  async run(ctx) {
    // An initialize refused over the unknown capability is this requirement's failure, not a set-up one.
    await openSession(ctx, { capabilities: { 'x-conformance-capability': { enabled: true } }, requirement: 'CORE-RPC-15' });
    const extra = { 'x-conformance-extension': { nested: [1, 'two', null] } };
    const tools = ctx.discovery.capabilities?.tools !== undefined;
    const method = tools ? 'tools/list' : 'ping';
    const answer = await ctx.request('CORE-RPC-15', method, extra);
    if (answer) ctx.check('CORE-RPC-15', isRecord(answer.result), { message: `${method} with an unknown params member is served`, expected: 'a result', actual: answer.error ?? answer.result });
  },
});

const batch = defineCase({
  id: `${SUITE}/batch-under-2025-03-26`,
  suite: SUITE,
  title: 'under protocol version 2025-03-26 a JSON-RPC batch is accepted and answered with an array of the responses to its requests',
  requirements: ['CORE-RPC-13'],
  sendsInvalid: true,
  async run(ctx) {
    const init = await openSession(ctx, { protocolVersion: '2025-03-26' });
    if (init.protocolVersion !== '2025-03-26') {
      ctx.info('CORE-RPC-13', `the target does not speak 2025-03-26 (it answered ${JSON.stringify(init.protocolVersion)}); batches are not required`);
      return;
    }
    const first = ctx.nextId();
    const second = `conformance-batch-${ctx.nextId()}`;
    const last = ctx.connection.kind === 'webtransport' ? ctx.nextId() : second;
    const ids = [first, last];
    const body = [request(first, 'ping'), notification(`notifications/${randomName()}`), request(last, 'ping')];
    let reply: unknown;
    const http = ctx.connection.http;
    if (http) {
      // The HTTP connection splits array bodies into messages: read the raw answer instead.
      const response = await http.request(
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) },
        { timeoutMs: ctx.scaled(ANSWER_MS), signal: ctx.signal },
      );
      if (response.bodyKind === 'json') {
        try {
          reply = JSON.parse(response.text);
        } catch {
          reply = response.text;
        }
      } else if (response.bodyKind === 'sse') {
        // Over SSE each response may travel as its own event: the batch is answered when both are there.
        reply = response.messages.flatMap((m) => (Array.isArray(m) ? m : [m]));
      } else reply = `HTTP ${response.status} with ${response.bodyKind} body`;
    } else {
      await ctx.connection.send(body);
      // The answer to two pings takes a round trip or two: the deadline follows the target's speed (at least a second).
      try {
        reply = (await ctx.next((r) => Array.isArray(r.message) || (isRecord(r.message) && !('method' in r.message)), { timeoutMs: Math.max(BATCH_ANSWER_FLOOR_MS, ctx.quietMs(ANSWER_MS)) })).message;
      } catch (error) {
        if (!(error instanceof ConnectionTimeoutError)) throw error;
      }
    }
    const answered = Array.isArray(reply) ? reply.filter(isRecord).map((m) => m.id) : [];
    ctx.check('CORE-RPC-13', Array.isArray(reply) && reply.length === 2 && ids.every((id) => answered.includes(id)), {
      message: 'the batch of two pings and a notification is answered with an array of two responses',
      expected: ids.map((id) => ({ id, result: {} })),
      actual: reply ?? 'no answer',
    });
  },
});

const errorShape = defineCase({
  id: `${SUITE}/unknown-method-error-shape`,
  suite: SUITE,
  title: 'an unknown method is answered with -32601 in an error object with an integer code and a non-empty message',
  requirements: ['CORE-RPC-7', 'CORE-RPC-10', 'CORE-ERR-3'],
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const method = `${randomName()}/${randomName('call')}`;
    const answer = await ctx.request('CORE-RPC-10', method, {});
    if (!answer) return;
    checkErrorCode(ctx, 'CORE-RPC-10', answer, -32601, `the unknown method ${method}`);
    const error = errorOf(answer);
    ctx.check('CORE-RPC-7', error !== undefined && isErrorCode(error.code) && typeof error.message === 'string', {
      message: 'the error object has an integer code and a string message',
      expected: { code: 'integer', message: 'string' },
      actual: answer.error ?? answer.result,
    });
    if (error?.message === '') ctx.info('CORE-RPC-7', 'the error message is an empty string (a short description is recommended)', error);
    checkNoLeaks(ctx, [answer]);
  },
});

const oneAnswer = defineCase({
  id: `${SUITE}/one-answer-per-request`,
  suite: SUITE,
  title: 'every request is answered exactly once (success or error)',
  requirements: ['CORE-RPC-16'],
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const sent: Array<{ id: number; method: string }> = [
      { id: ctx.nextId(), method: 'ping' },
      { id: ctx.nextId(), method: `${randomName()}/method` },
      { id: ctx.nextId(), method: 'ping' },
    ];
    for (const { id, method } of sent) await ctx.connection.send(request(id, method));
    const got: ReceivedMessage[] = [];
    for (const { id, method } of sent) {
      try {
        got.push(await ctx.next((r) => isResponseTo(r.message, id), { timeoutMs: ANSWER_MS }));
      } catch (error) {
        if (!(error instanceof ConnectionTimeoutError)) throw error;
        ctx.check('CORE-RPC-16', false, { message: `${method} (id ${id}) is answered`, expected: 'one response', actual: 'no response' });
      }
    }
    // A second answer to any of them comes before the answer to a ping sent after (silence by ordering; over Streamable HTTP, once every POST was answered).
    const barrier = ctx.nextId();
    await ctx.connection.send(request(barrier, 'ping'));
    got.push(...(await receivedUpTo(ctx, barrier, QUIET_MS)).filter((r) => !isResponseTo(r.message, barrier)));
    for (const { id, method } of sent) {
      const count = got.filter((r) => isResponseTo(r.message, id)).length;
      if (count > 0) ctx.check('CORE-RPC-16', count === 1, { message: `${method} (id ${id}) is answered exactly once`, expected: 1, actual: count });
    }
  },
});

/** completion/complete params the target may serve: prompt arguments and template variables (a few). */
async function completionRequests(ctx: CaseContext): Promise<Message[]> {
  const caps = ctx.discovery.capabilities ?? {};
  const found: Message[] = [];
  if (caps.prompts !== undefined) {
    const listed = await setupRequest(ctx, 'prompts/list', {});
    const prompts = isRecord(listed.result) && Array.isArray(listed.result.prompts) ? listed.result.prompts.filter(isRecord) : [];
    for (const prompt of prompts) {
      const argument = Array.isArray(prompt.arguments) ? prompt.arguments.filter(isRecord).find((a) => typeof a.name === 'string') : undefined;
      if (typeof prompt.name === 'string' && argument) found.push({ ref: { type: 'ref/prompt', name: prompt.name }, argument: { name: argument.name, value: '' } });
    }
  }
  if (caps.resources !== undefined) {
    const listed = await setupRequest(ctx, 'resources/templates/list', {});
    const templates = isRecord(listed.result) && Array.isArray(listed.result.resourceTemplates) ? listed.result.resourceTemplates.filter(isRecord) : [];
    for (const template of templates) {
      const variable = typeof template.uriTemplate === 'string' ? /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(template.uriTemplate)?.[1] : undefined;
      if (variable) found.push({ ref: { type: 'ref/resource', uri: template.uriTemplate }, argument: { name: variable, value: '' } });
    }
  }
  return found.slice(0, MAX_COMPLETIONS);
}

/** Most completion/complete requests one case sends. */
const MAX_COMPLETIONS = 6;

const resultsAreObjects = defineCase({
  id: `${SUITE}/results-are-objects`,
  suite: SUITE,
  title: 'responses say jsonrpc "2.0"; a result is an object, and ping is answered with {}',
  requirements: ['CORE-RPC-1', 'CORE-RPC-14'],
  async run(ctx) {
    await openSession(ctx);
    const answers: Message[] = [];
    const ping = await ctx.request('CORE-RPC-14', 'ping');
    if (ping) {
      answers.push(ping);
      // Empty: the reserved _meta is the only member a ping result may carry (MCP: "an empty response").
      const empty = isRecord(ping.result) && Object.keys(ping.result).every((key) => key === '_meta');
      ctx.check('CORE-RPC-14', empty, { message: 'ping is answered with {}', expected: {}, actual: ping.result ?? ping.error });
      if (empty && Object.keys(ping.result as object).length > 0) ctx.info('CORE-RPC-14', 'the empty ping result carries the reserved _meta member', ping.result);
    }
    if (ctx.discovery.capabilities?.completions !== undefined) {
      const requests = await completionRequests(ctx);
      if (requests.length === 0) ctx.info('CORE-RPC-14', 'completions is declared but no prompt argument or resource template was found to complete');
      let results = 0;
      for (const params of requests) {
        const answer = await ctx.request('CORE-RPC-14', 'completion/complete', params);
        if (!answer) continue;
        answers.push(answer);
        if (!('result' in answer)) continue;
        results++;
        ctx.check('CORE-RPC-14', isRecord(answer.result), { message: 'the completion/complete result is an object', expected: { completion: { values: [] } }, actual: answer.result });
      }
      if (requests.length > 0 && results === 0) ctx.info('CORE-RPC-14', `completion/complete was answered with an error each of the ${requests.length} time(s)`, answers.at(-1)?.error);
    }
    for (const answer of answers) {
      ctx.check('CORE-RPC-1', answer.jsonrpc === '2.0', { message: `the response to id ${JSON.stringify(answer.id)} has jsonrpc "2.0"`, expected: '2.0', actual: answer.jsonrpc });
    }
  },
});

/** Requests of declared features with a required params member left out. */
function missingMemberRequests(ctx: CaseContext): Array<{ method: string; params: Message; missing: string }> {
  const caps = ctx.discovery.capabilities ?? {};
  const requests: Array<{ method: string; params: Message; missing: string }> = [];
  if (caps.tools !== undefined) requests.push({ method: 'tools/call', params: { arguments: {} }, missing: 'name' });
  if (caps.resources !== undefined) requests.push({ method: 'resources/read', params: {}, missing: 'uri' });
  if (caps.prompts !== undefined) requests.push({ method: 'prompts/get', params: { arguments: {} }, missing: 'name' });
  if (caps.logging !== undefined) requests.push({ method: 'logging/setLevel', params: {}, missing: 'level' });
  return requests;
}

const invalidParams = defineCase({
  id: `${SUITE}/missing-required-params-member`,
  suite: SUITE,
  title: 'a known method whose params lack a required member is answered with -32602 Invalid params',
  requirements: ['CORE-RPC-11', 'CORE-ERR-3'],
  sendsInvalid: true,
  applies: (discovery) => {
    const caps = discovery.capabilities ?? {};
    return ['tools', 'resources', 'prompts', 'logging'].some((c) => caps[c] !== undefined) ? true : 'the target declared none of tools, resources, prompts, logging';
  },
  async run(ctx) {
    await openSession(ctx);
    const answers: Message[] = [];
    for (const { method, params, missing } of missingMemberRequests(ctx)) {
      const answer = await ctx.request('CORE-RPC-11', method, params);
      if (!answer) continue;
      answers.push(answer);
      checkErrorCode(ctx, 'CORE-RPC-11', answer, -32602, `${method} without ${missing}`);
    }
    checkNoLeaks(ctx, answers);
  },
});

export const cases: readonly ConformanceCase[] = [idsEchoed, notificationsNotAnswered, unknownMembersIgnored, batch, errorShape, oneAnswer, resultsAreObjects, invalidParams];
