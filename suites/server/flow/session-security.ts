// Suite `session-security`: MCP Flow session ids are unpredictable (C-21), sessions are isolated
// from each other, on one connection and across two (ctx.openConnection), a session named on
// another connection is reported (FLOW-SEC-4), limits are answered with errors rather than
// silence, and sessions travel over TLS off the loopback interface (000 §Session Isolation,
// §Rate Limiting, §Data Privacy).
import { randomUUID } from 'node:crypto';
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { FLOW_ERROR } from '../../../src/protocol/error-codes.js';
import { FLOW_METHOD } from '../../../src/protocol/methods.js';
import { assessSessionIds, RECOMMENDED_ENTROPY_BITS, REQUIRED_ENTROPY_BITS } from '../../../src/protocol/session-ids.js';
import { ConnectionTimeoutError } from '../../../src/transport/errors.js';
import { isRecord } from '../../../src/wire/index.js';
import { errorOf, interactiveTool, isResponseTo, openSession, request, requiresInteractiveTool, setupRequest, type Message } from '../../support/session.js';
import { firstPrompt, getState, maybeFlowEvent, respond, respondOutcome, startInteraction, validValue } from '../../support/flow.js';

const SUITE = 'session-security';

/** Sessions opened to judge the ids (C-21: 64 by default). */
export const SESSION_ID_SAMPLE = 64;

/** The fewest ids the estimate can judge (assessSessionIds needs 16). */
export const MIN_SESSION_ID_SAMPLE = 16;

/** Requests sent at once on one session to look for a rate limit (above the usual per-second limits). */
export const RATE_BURST = 150;

const sessionIds = defineCase({
  id: 'session-security/session-ids-unpredictable',
  suite: SUITE,
  title: `the ids of ${SESSION_ID_SAMPLE} sessions are distinct and carry an estimated 64 bits (recommended 120) of entropy in their varying part, counting parts left out (C-21)`,
  requirements: ['FLOW-SEC-2', 'FLOW-SEC-9'],
  applies: requiresInteractiveTool,
  timeLimitMs: 20_000,
  async run(ctx) {
    await openSession(ctx);
    const toolName = interactiveTool(ctx);
    const ids: string[] = [];
    for (let i = 0; i < SESSION_ID_SAMPLE; i++) {
      const answer = await setupRequest(ctx, FLOW_METHOD.start, { toolName }, 'FLOW-START-2');
      const sessionId = isRecord(answer.result) ? answer.result.sessionId : undefined;
      if (errorOf(answer) !== undefined && ids.length > 0) {
        // 000 recommends per-user session limits: a refusal ends the sample where it is.
        ctx.note(`interaction.start number ${i + 1} was refused (a session limit?): the ids are judged on the ${ids.length} issued`);
        break;
      }
      if (typeof sessionId !== 'string' || sessionId === '') {
        throw new TargetPreconditionError(`interaction.start number ${i + 1} gave no session id`, { requirement: 'FLOW-START-2', actual: answer });
      }
      ids.push(sessionId);
      // Ended at once so that no per-connection session limit is reached; the answer is not needed.
      await ctx.connection.send(request(ctx.nextId(), FLOW_METHOD.cancel, { sessionId, reason: 'session id sample' }));
    }
    if (ids.length < MIN_SESSION_ID_SAMPLE) {
      ctx.info('FLOW-SEC-2', `not judged: only ${ids.length} sessions could be started before a limit (at least ${MIN_SESSION_ID_SAMPLE} are needed)`, ids);
      ctx.info('FLOW-SEC-9', 'not judged: too few sessions');
      return;
    }
    const assessment = assessSessionIds(ids);
    const summary = {
      sample: ids.slice(0, 4),
      commonPrefix: assessment.commonPrefix,
      commonSuffix: assessment.commonSuffix,
      alphabet: assessment.alphabet,
      varyingPositions: assessment.varyingPositions,
      entropyBits: assessment.entropyBits,
      duplicates: assessment.duplicates,
      counting: assessment.counting,
    };
    ctx.check('FLOW-SEC-2', assessment.unpredictable, {
      message: `${ids.length} session ids are distinct and carry >= ${REQUIRED_ENTROPY_BITS} estimated bits besides any counting part${assessment.findings.length ? `: ${assessment.findings.join('; ')}` : ''}`,
      expected: `distinct ids, >= ${REQUIRED_ENTROPY_BITS} bits`,
      actual: summary,
    });
    ctx.check('FLOW-SEC-9', assessment.recommendedEntropy, {
      message: `the varying part of the session ids carries >= ${RECOMMENDED_ENTROPY_BITS} estimated bits (${assessment.entropyBits} estimated)`,
      expected: `>= ${RECOMMENDED_ENTROPY_BITS} bits`,
      actual: summary,
    });
  },
});

/** The parts of a getState result that belong to the session's own data. */
function sessionData(state: Message): { accumulatedData: unknown; history: unknown } {
  return { accumulatedData: state.accumulatedData, history: state.history };
}

const isolation = defineCase({
  id: 'session-security/sessions-isolated',
  suite: SUITE,
  title: "an answer given in one session changes nothing in another session's getState (accumulatedData, history)",
  requirements: ['FLOW-SEC-1'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const a = await startInteraction(ctx);
    const b = await startInteraction(ctx);
    const firstA = await firstPrompt(ctx, a);
    await firstPrompt(ctx, b);
    const before = sessionData(await getState(ctx, b.sessionId, 'FLOW-SEC-1'));
    const value = validValue(firstA.prompt);
    if (value === undefined) throw new TargetPreconditionError('no valid value could be built for the first prompt', { actual: firstA.prompt });
    const answer = await respond(ctx, a, value, 'FLOW-SEC-1');
    if (respondOutcome(answer) !== 'accepted') {
      throw new TargetPreconditionError(`the value ${JSON.stringify(value)} was not accepted in the first session`, { requirement: 'FLOW-RESPOND-2', actual: answer });
    }
    // Let the first session move on (its next prompt is acknowledged) before looking at the second.
    await maybeFlowEvent(ctx, a.sessionId);
    const after = sessionData(await getState(ctx, b.sessionId, 'FLOW-SEC-1'));
    ctx.check('FLOW-SEC-1', JSON.stringify(after) === JSON.stringify(before), {
      message: `answering ${JSON.stringify(value)} in session ${a.sessionId} leaves session ${b.sessionId}'s accumulatedData and history as they were`,
      expected: before,
      actual: after,
    });
  },
});

/**
 * FLOW-SEC-4: how the target answered a request naming a session another connection started: -32001
 * (bound to its connection, the safer reading), a result (the id alone gives access), or another error.
 */
export function reportForeignSessionAccess(ctx: CaseContext, response: Message): void {
  const error = errorOf(response);
  if (error?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
    ctx.reading('FLOW-SEC-4', 1, 'sessions are bound to their connection (the safer reading)', response);
  } else if (isRecord(response.result)) {
    ctx.reading('FLOW-SEC-4', 2, 'a session id alone gives access to the session', response);
  } else {
    ctx.info('FLOW-SEC-4', `refused from another connection with error ${String(error?.code)}`, response);
  }
}

const acrossConnections = defineCase({
  id: 'session-security/sessions-isolated-across-connections',
  suite: SUITE,
  title: "sessions of two connections are isolated: an answer given in one changes nothing in the other's getState, and a session named on the other connection is refused or served (reported, FLOW-SEC-4)",
  requirements: ['FLOW-SEC-1', 'FLOW-SEC-4'],
  // Over stdio a second connection is a second process, which shares nothing with the first.
  transports: ['webtransport', 'http'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const other = await ctx.openConnection();
    await openSession(other);
    // Both sessions start alike, with a context of this case's own: nothing but the connection tells them apart.
    const context = { conformanceCase: ctx.caseId, probe: randomUUID() };
    const a = await startInteraction(ctx, { params: { context } });
    const firstA = await firstPrompt(ctx, a);
    const b = await startInteraction(other, { toolName: a.toolName, params: { context } });
    await firstPrompt(other, b);
    const before = sessionData(await getState(other, b.sessionId, 'FLOW-SEC-1'));
    // Over Streamable HTTP injection/flow-session-of-another-connection reports FLOW-SEC-4.
    if (ctx.connection.kind !== 'http') {
      const foreign = await other.request('FLOW-SEC-4', FLOW_METHOD.getState, { sessionId: a.sessionId }, { what: 'interaction.getState of the first connection\'s session' });
      if (foreign !== undefined) reportForeignSessionAccess(ctx, foreign);
    }
    const value = validValue(firstA.prompt);
    if (value === undefined) throw new TargetPreconditionError('no valid value could be built for the first prompt', { actual: firstA.prompt });
    const answer = await respond(ctx, a, value, 'FLOW-SEC-1');
    if (respondOutcome(answer) !== 'accepted') {
      throw new TargetPreconditionError(`the value ${JSON.stringify(value)} was not accepted in the first session`, { requirement: 'FLOW-RESPOND-2', actual: answer });
    }
    await maybeFlowEvent(ctx, a.sessionId);
    const after = sessionData(await getState(other, b.sessionId, 'FLOW-SEC-1'));
    ctx.check('FLOW-SEC-1', b.sessionId !== a.sessionId && JSON.stringify(after) === JSON.stringify(before), {
      message: `answering ${JSON.stringify(value)} in session ${a.sessionId} (first connection) leaves session ${b.sessionId} (second connection) as it was`,
      expected: { sessionId: `not ${a.sessionId}`, ...before },
      actual: { sessionId: b.sessionId, ...after },
    });
  },
});

/**
 * Waits for the answers to `ids` until all came, or until none came for `gapMs` (scaled) while some
 * are still missing (a target still answering is given the time it needs); returns them by id.
 */
async function collectAnswers(ctx: CaseContext, ids: readonly number[], gapMs: number): Promise<Map<number, Message>> {
  const answers = new Map<number, Message>();
  const waiting = new Set(ids);
  while (waiting.size > 0) {
    try {
      const received = await ctx.connection.next((r) => [...waiting].some((id) => isResponseTo(r.message, id)), { timeoutMs: ctx.scaled(gapMs), signal: ctx.signal });
      const message = received.message as Message;
      answers.set(message.id as number, message);
      waiting.delete(message.id as number);
    } catch (error) {
      if (error instanceof ConnectionTimeoutError) break;
      throw error;
    }
  }
  return answers;
}

function isJsonRpcError(answer: Message): boolean {
  const error = errorOf(answer);
  return error !== undefined && Number.isInteger(error.code) && typeof error.message === 'string';
}

const rateLimit = defineCase({
  id: 'session-security/limit-answered-with-error',
  suite: SUITE,
  title: `${RATE_BURST} interaction.getState requests sent at once on one session are each answered (a result, or a JSON-RPC error where a limit is hit) and another session keeps answering`,
  requirements: ['FLOW-RATE-5'],
  applies: requiresInteractiveTool,
  timeLimitMs: 20_000,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    await firstPrompt(ctx, session);
    const ids: number[] = [];
    for (let i = 0; i < RATE_BURST; i++) {
      const id = ctx.nextId();
      ids.push(id);
      await ctx.connection.send(request(id, FLOW_METHOD.getState, { sessionId: session.sessionId }));
    }
    const answers = await collectAnswers(ctx, ids, 3_000);
    const unanswered = ids.filter((id) => !answers.has(id));
    const malformed = [...answers.values()].filter((a) => !isRecord(a.result) && !isJsonRpcError(a));
    const limited = [...answers.values()].filter((a) => isJsonRpcError(a));
    ctx.check('FLOW-RATE-5', unanswered.length === 0 && malformed.length === 0, {
      message: `every one of ${RATE_BURST} requests on one session is answered with a result or a JSON-RPC error`,
      expected: `${RATE_BURST} answers`,
      actual: { answered: answers.size, unanswered: unanswered.slice(0, 10), unansweredCount: unanswered.length, malformed: malformed.slice(0, 3) },
    });
    if (limited.length === 0) {
      ctx.info('FLOW-RATE-5', `no limit was hit: all ${RATE_BURST} requests got a result (FLOW-RATE-1: a higher limit cannot be told from none)`);
    } else {
      const first = ids.findIndex((id) => answers.get(id) !== undefined && isJsonRpcError(answers.get(id) as Message));
      ctx.info('FLOW-RATE-5', `a limit was hit from request ${first + 1} of ${RATE_BURST}: ${limited.length} answered with an error`, errorOf(limited[0]));
    }
    // Another session answers too: with a result, or (000 recommends per-user limits too) an error.
    const start = await ctx.request('FLOW-RATE-5', FLOW_METHOD.start, { toolName: session.toolName }, { what: 'interaction.start of another session' });
    if (start === undefined) return;
    const otherId = isRecord(start.result) ? start.result.sessionId : undefined;
    if (typeof otherId !== 'string') {
      ctx.check('FLOW-RATE-5', isJsonRpcError(start), { message: 'another interaction.start after the burst is answered (a session, or a JSON-RPC error where a limit is hit)', actual: start });
      if (isJsonRpcError(start)) ctx.info('FLOW-RATE-5', 'another session could not be started after the burst (a limit)', errorOf(start));
      return;
    }
    const state = await ctx.request('FLOW-RATE-5', FLOW_METHOD.getState, { sessionId: otherId }, { what: 'interaction.getState of another session' });
    if (state === undefined) return;
    ctx.check('FLOW-RATE-5', isRecord(state.result) || isJsonRpcError(state), {
      message: 'another session of the connection keeps answering after the burst (its getState has a result, or a JSON-RPC error where a limit is hit)',
      expected: 'a getState result',
      actual: state,
    });
    if (!isRecord(state.result)) ctx.info('FLOW-RATE-5', "another session's getState met a limit too", errorOf(state));
  },
});

/** Hosts on the loopback interface (where plain http is acceptable). */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}

const tls = defineCase({
  id: 'session-security/tls-off-loopback',
  suite: SUITE,
  title: 'a Streamable HTTP server reached on an address other than loopback is served over https',
  requirements: ['FLOW-SEC-5'],
  transports: ['http'],
  async run(ctx) {
    let url: URL;
    try {
      url = new URL(ctx.target.description);
    } catch {
      ctx.info('FLOW-SEC-5', `not judged: the target ${JSON.stringify(ctx.target.description)} is not a URL`);
      return;
    }
    if (isLoopback(url.hostname)) {
      ctx.info('FLOW-SEC-5', `not judged: the target is on the loopback interface (${url.hostname}), where plain http stays on the machine`, url.protocol);
      return;
    }
    ctx.check('FLOW-SEC-5', url.protocol === 'https:', {
      message: `the server on ${url.hostname} is reached over TLS (https)`,
      expected: 'https:',
      actual: url.protocol,
    });
  },
});

export const cases: readonly ConformanceCase[] = [sessionIds, isolation, acrossConnections, rateLimit, tls];
