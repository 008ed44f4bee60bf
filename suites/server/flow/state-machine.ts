// Suite `state-machine` (MCP Flow, 000): interaction.start results and errors, the seven states and
// the transitions between them as seen from outside (C-28), interaction.respond in a state that
// has no prompt waiting, interaction.getState, interaction.continue and interaction.complete from
// the server, and the Flow error codes -32001..-32007 where the profile puts them (FLOW-ERR).
// Every case drives whatever interactive tools discovery found, answering prompts generically.
import { randomBytes } from 'node:crypto';
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { FLOW_ERROR } from '../../../src/protocol/error-codes.js';
import { findIllegalObservation, findLiteralAnyMove, INTERACTION_STATES, isInteractionState, type InteractionState } from '../../../src/protocol/flow-session.js';
import { FLOW_METHOD } from '../../../src/protocol/methods.js';
import { isRecord } from '../../../src/wire/index.js';
import { checkErrorCode, errorOf, openSession, requiresInteractiveTool, resultResponse, setupRequest, type Message } from '../../support/session.js';
import {
  checkFlowError,
  checkProblems,
  firstPrompt,
  FLOW_ERROR_NAMES,
  FLOW_QUIET_MS,
  isFlowErrorCode,
  getState,
  maybeFlowEvent,
  nextFlowEvent,
  progressProblems,
  promptProblems,
  respond,
  respondOutcome,
  runToCompletion,
  SESSION_REQUEST_METHODS,
  shapeProblems,
  startInteraction,
  unknownSessionCodes,
  unknownSessionIdLike,
  validValue,
  type FlowEvent,
  type FlowSession,
} from '../../support/flow.js';

const SUITE = 'state-machine';

/** Every interactive tool discovery found (cases are gated by requiresInteractiveTool). */
function tools(ctx: CaseContext): string[] {
  return ctx.discovery.interactiveTools ?? [];
}

const stateList = INTERACTION_STATES.join(', ');

/**
 * Cancels a session the case no longer needs. The answer is not judged here (suite cancellation
 * does), and a missing one does not fail this case.
 */
async function cancelQuietly(ctx: CaseContext, sessionId: string): Promise<void> {
  try {
    await setupRequest(ctx, FLOW_METHOD.cancel, { sessionId, reason: 'conformance case cleanup' });
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof TargetPreconditionError)) throw error;
  }
}

const startResult = defineCase({
  id: `${SUITE}/start-result`,
  suite: SUITE,
  title: 'interaction.start answers a string sessionId and one of the seven states (waiting_user, or idle, with an initialPrompt)',
  requirements: ['FLOW-START-2', 'FLOW-SM-1', 'FLOW-START-5'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    let withInitialPrompt = 0;
    for (const toolName of tools(ctx)) {
      const answer = await ctx.request('FLOW-START-2', FLOW_METHOD.start, { toolName });
      if (!answer) continue;
      const result = isRecord(answer.result) ? answer.result : undefined;
      ctx.check('FLOW-START-2', typeof result?.sessionId === 'string' && isInteractionState(result.state), {
        message: `interaction.start for ${toolName} has a string sessionId and a state among ${stateList}`,
        actual: answer.result ?? answer.error,
      });
      if (!result) continue;
      ctx.check('FLOW-SM-1', isInteractionState(result.state), { message: `the start state of ${toolName} is one of ${stateList}`, actual: result.state });
      if (isRecord(result.initialPrompt)) {
        withInitialPrompt++;
        const ok = ctx.check('FLOW-START-5', result.state === 'waiting_user' || result.state === 'idle', {
          message: `a start of ${toolName} with an initialPrompt reports waiting_user (or idle, C-03)`,
          expected: 'waiting_user',
          actual: result.state,
        });
        if (ok) ctx.reading('FLOW-START-5', result.state === 'waiting_user' ? 1 : 2, `the start of ${toolName}`);
      }
      if (typeof result.sessionId === 'string') await cancelQuietly(ctx, result.sessionId);
    }
    if (withInitialPrompt === 0) ctx.info('FLOW-START-5', 'no interactive tool answered with an initialPrompt; the state it pairs with was not observed');
  },
});

const startInvalidParams = defineCase({
  id: `${SUITE}/start-invalid-params`,
  suite: SUITE,
  title: 'interaction.start without a string toolName is -32602; one whose timeout is not a positive integer is -32602 (or starts, reading the timeout leniently)',
  requirements: ['FLOW-START-3', 'FLOW-START-9'],
  applies: requiresInteractiveTool,
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const toolName = tools(ctx)[0] as string;
    const toolProbes: [string, Message, number[]][] = [
      ['no toolName', {}, [-32602]],
      // A server may read 42 as the tool named "42", which it does not have (FLOW-START-4's -32601).
      ['a numeric toolName', { toolName: 42 }, [-32602, -32601]],
    ];
    for (const [what, params, codes] of toolProbes) {
      const answer = await ctx.request('FLOW-START-3', FLOW_METHOD.start, params);
      checkErrorCode(ctx, 'FLOW-START-3', answer, codes, `interaction.start with ${what}`);
      const sessionId = isRecord(answer?.result) ? answer.result.sessionId : undefined;
      if (typeof sessionId === 'string') await cancelQuietly(ctx, sessionId);
    }
    const timeoutProbes: [string, Message][] = [
      ['timeout 0', { toolName, timeout: 0 }],
      ['a negative timeout', { toolName, timeout: -1000 }],
      ['a fractional timeout', { toolName, timeout: 1500.5 }],
      ['a string timeout', { toolName, timeout: '60000' }],
    ];
    for (const [what, params] of timeoutProbes) {
      const answer = await ctx.request('FLOW-START-9', FLOW_METHOD.start, params);
      if (answer === undefined) continue;
      const sessionId = isRecord(answer.result) ? answer.result.sessionId : undefined;
      if (typeof sessionId === 'string') {
        ctx.reading('FLOW-START-9', 2, `interaction.start with ${what} started a session`);
        await cancelQuietly(ctx, sessionId);
        continue;
      }
      if (checkErrorCode(ctx, 'FLOW-START-9', answer, -32602, `interaction.start with ${what}`)) {
        ctx.reading('FLOW-START-9', 1, `interaction.start with ${what}`);
      }
    }
  },
});

const startUnknownTool = defineCase({
  id: `${SUITE}/start-unknown-tool`,
  suite: SUITE,
  title: 'interaction.start for a tool the server does not have is an error and starts no session',
  requirements: ['FLOW-START-4', 'FLOW-ERR-1'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const toolName = `conformance_no_such_tool_${randomBytes(6).toString('hex')}`;
    const answer = await ctx.request('FLOW-START-4', FLOW_METHOD.start, { toolName });
    checkStartRefused(ctx, answer, `interaction.start for the unknown tool ${toolName}`, [-32602, -32601, FLOW_ERROR.NOT_INTERACTIVE]);
    // The server sends session requests on its own schedule: a window from its speed decides.
    const stray = await ctx
      .next((r) => isRecord(r.message) && typeof r.message.method === 'string' && SESSION_REQUEST_METHODS.includes(r.message.method), {
        timeoutMs: ctx.quietMs(FLOW_QUIET_MS),
        silence: 'a session request after the refused start',
      })
      .catch(() => undefined);
    ctx.check('FLOW-START-4', stray === undefined, { message: 'no session request follows a refused interaction.start', actual: stray?.message });
  },
});

/** FLOW-START-4's readings by the refusal's code. */
const START_REFUSAL_READINGS: Readonly<Record<number, number>> = { [-32602]: 1, [-32601]: 2, [FLOW_ERROR.NOT_INTERACTIVE]: 3 };

/**
 * FLOW-START-4: the start is refused with an error, whatever its code (no document assigns one; the
 * listed codes are the readings, another is reported). A Flow code must mean what 000 says
 * (FLOW-ERR-1: one of the listed codes).
 */
function checkStartRefused(ctx: CaseContext, answer: Message | undefined, what: string, flowCodes: readonly number[]): void {
  if (answer === undefined) return;
  const error = errorOf(answer);
  if (!ctx.check('FLOW-START-4', error !== undefined, { message: `${what} is answered with an error`, expected: { error: { code: -32602 } }, actual: answer.result ?? answer.error })) return;
  const code = error?.code as number;
  const reading = START_REFUSAL_READINGS[code];
  if (reading !== undefined) ctx.reading('FLOW-START-4', reading, what);
  else ctx.info('FLOW-START-4', `${what} is answered with ${String(code)}, another code than the listed readings`);
  if (isFlowErrorCode(code)) {
    ctx.check('FLOW-ERR-1', flowCodes.includes(code), {
      message: `${what}: a Flow error code must carry its 000 meaning, not ${code} ${FLOW_ERROR_NAMES[code]}`,
      actual: { error },
    });
  }
}

/** The tools tools/list named that interaction.start refused in discovery (plain MCP tools). */
function plainTools(ctx: { discovery: { tools?: string[]; interactiveTools?: string[] } }): string[] {
  const interactive = new Set(ctx.discovery.interactiveTools ?? []);
  return (ctx.discovery.tools ?? []).filter((t) => !interactive.has(t));
}

const startPlainTool = defineCase({
  id: `${SUITE}/start-plain-tool`,
  suite: SUITE,
  title: 'interaction.start for a tool that exists but is not interactive is an error (-32007 NOT_INTERACTIVE, -32602, -32601 or another code)',
  requirements: ['FLOW-START-4', 'FLOW-ERR-1'],
  applies: (discovery) => {
    const interactive = requiresInteractiveTool(discovery);
    if (interactive !== true) return interactive;
    return plainTools({ discovery }).length > 0 ? true : 'every tool tools/list names is interactive';
  },
  async run(ctx) {
    await openSession(ctx);
    const toolName = plainTools(ctx)[0] as string;
    const answer = await ctx.request('FLOW-START-4', FLOW_METHOD.start, { toolName });
    checkStartRefused(ctx, answer, `interaction.start for the plain tool ${toolName}`, [FLOW_ERROR.NOT_INTERACTIVE]);
    const sessionId = isRecord(answer?.result) ? answer.result.sessionId : undefined;
    if (typeof sessionId === 'string') await cancelQuietly(ctx, sessionId);
  },
});

const sessionIdsUnique = defineCase({
  id: `${SUITE}/session-ids-unique`,
  suite: SUITE,
  title: 'every interaction.start creates a session with a sessionId never returned before (also after a session finished)',
  requirements: ['FLOW-START-7'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const seen: string[] = [];
    const first = await startInteraction(ctx);
    seen.push(first.sessionId);
    await runToCompletion(ctx, first);
    for (const toolName of [tools(ctx)[0] as string, ...tools(ctx)]) {
      const next = await startInteraction(ctx, { toolName });
      ctx.check('FLOW-START-7', !seen.includes(next.sessionId), {
        message: `interaction.start for ${toolName} returns a sessionId not returned before`,
        expected: `none of ${JSON.stringify(seen)}`,
        actual: next.sessionId,
      });
      seen.push(next.sessionId);
      await cancelQuietly(ctx, next.sessionId);
    }
  },
});

const initialPromptCurrent = defineCase({
  id: `${SUITE}/initial-prompt-current`,
  suite: SUITE,
  title: 'an initialPrompt is a valid prompt and the current one: answering it is accepted, with no interaction.prompt for it',
  requirements: ['FLOW-START-6', 'FLOW-PROMPT-14'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    let seen = 0;
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      const current = await firstPrompt(ctx, session);
      const stray = await maybeFlowEvent(ctx, session.sessionId);
      ctx.check('FLOW-PROMPT-14', stray === undefined, {
        message: `no further session request while the first prompt of ${toolName} (${current.via}) waits for its answer`,
        actual: stray?.message,
      });
      if (current.via !== 'initialPrompt') {
        await cancelQuietly(ctx, session.sessionId);
        continue;
      }
      seen++;
      checkProblems(ctx, ['FLOW-START-6'], shapeProblems(promptProblems(current.prompt), 'FLOW-START-6'), `the initialPrompt of ${toolName}`, current.prompt);
      const answer = await respond(ctx, session, validValue(current.prompt), 'FLOW-START-6');
      ctx.check('FLOW-START-6', respondOutcome(answer) === 'accepted', {
        message: `a valid answer to the initialPrompt of ${toolName} is accepted without a separate interaction.prompt`,
        actual: answer.result ?? answer.error,
      });
      await cancelQuietly(ctx, session.sessionId);
    }
    if (seen === 0) ctx.info('FLOW-START-6', 'no interactive tool answered interaction.start with an initialPrompt');
  },
});

const firstPromptRequest = defineCase({
  id: `${SUITE}/first-prompt-request`,
  suite: SUITE,
  title: 'without an initialPrompt the first prompt arrives as an interaction.prompt request (id, sessionId, prompt, progress), or an interaction.continue with nextPrompt',
  requirements: ['FLOW-START-8', 'FLOW-PROMPT-1'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    let seen = 0;
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      if (isRecord(session.start.initialPrompt)) {
        await cancelQuietly(ctx, session.sessionId);
        continue;
      }
      seen++;
      const event = await nextFlowEvent(ctx, session.sessionId, { methods: [FLOW_METHOD.prompt, FLOW_METHOD.continue] }).catch((error: unknown) => {
        if (ctx.signal.aborted) throw error;
        return undefined;
      });
      const asPrompt = event?.method === FLOW_METHOD.prompt && event.prompt !== undefined;
      const asContinue = event?.method === FLOW_METHOD.continue && event.prompt !== undefined;
      if (
        ctx.check('FLOW-START-8', asPrompt || asContinue, {
          message: `the first prompt of ${toolName} (started without initialPrompt) arrives as interaction.prompt, or as interaction.continue with nextPrompt`,
          actual: event?.message ?? 'nothing in time',
        }) &&
        asContinue
      ) {
        ctx.reading('FLOW-START-8', 2, `the first prompt of ${toolName}`);
      }
      if (asPrompt) ctx.reading('FLOW-START-8', 1, `the first prompt of ${toolName}`);
      if (event?.method === FLOW_METHOD.prompt) {
        const { params, message } = event;
        ctx.check('FLOW-PROMPT-1', 'id' in message && params.sessionId === session.sessionId && isRecord(params.prompt) && (params.progress === undefined || isRecord(params.progress)), {
          message: `interaction.prompt is a request (id) with the sessionId, a prompt object and an optional progress object`,
          expected: { id: '<request id>', params: { sessionId: session.sessionId, prompt: '<object>' } },
          actual: message,
        });
      }
      await cancelQuietly(ctx, session.sessionId);
    }
    if (seen === 0) {
      ctx.info('FLOW-START-8', 'every interactive tool answered with an initialPrompt; no first interaction.prompt to check');
      ctx.info('FLOW-PROMPT-1', 'no session started without an initialPrompt');
    }
  },
});

const continueRequests = defineCase({
  id: `${SUITE}/continue`,
  suite: SUITE,
  title: 'interaction.continue carries the sessionId, an optional valid nextPrompt and progress; its nextPrompt becomes the current prompt',
  requirements: ['FLOW-PROMPT-11', 'FLOW-PROMPT-13'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    let continues = 0;
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      await runToCompletion(ctx, session, {
        onEvent(event) {
          if (event.method !== FLOW_METHOD.continue) return;
          continues++;
          const { params } = event;
          const problems = [
            ...(params.sessionId === session.sessionId ? [] : [{ requirement: 'FLOW-PROMPT-11', message: `sessionId ${JSON.stringify(params.sessionId)} is not the session's` }]),
            ...(params.nextPrompt === undefined ? [] : shapeProblems(promptProblems(params.nextPrompt), 'FLOW-PROMPT-11')),
            ...shapeProblems(progressProblems(params.progress), 'FLOW-PROMPT-11'),
          ];
          checkProblems(ctx, ['FLOW-PROMPT-11'], problems, `interaction.continue of ${toolName}`, event.message);
        },
        onTurn(turn) {
          if (turn.via !== 'interaction.continue') return;
          ctx.check('FLOW-PROMPT-13', respondOutcome(turn.answer) === 'accepted', {
            message: `a valid answer to the nextPrompt of an interaction.continue (${toolName}) is accepted: that prompt is current`,
            actual: turn.answer.result ?? turn.answer.error,
          });
        },
      });
    }
    if (continues === 0) {
      ctx.info('FLOW-PROMPT-11', 'no interactive tool sent interaction.continue while driven to completion');
      ctx.info('FLOW-PROMPT-13', 'no interaction.continue seen');
    }
  },
});

const acceptedLeavesWaiting = defineCase({
  id: `${SUITE}/accepted-leaves-waiting`,
  suite: SUITE,
  title: 'after an accepted response the session moves on: the next prompt (or interaction.complete) follows',
  requirements: ['FLOW-SM-5'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    const current = await firstPrompt(ctx, session);
    const value = validValue(current.prompt);
    const answer = await respond(ctx, session, value, 'FLOW-SM-5');
    if (respondOutcome(answer) !== 'accepted') {
      ctx.check('FLOW-SM-5', false, { message: `the valid value ${JSON.stringify(value)} was accepted`, actual: answer.result ?? answer.error });
      return;
    }
    let event: FlowEvent | undefined;
    try {
      event = await nextFlowEvent(ctx, session.sessionId);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
    }
    ctx.check('FLOW-SM-5', event !== undefined, {
      message: 'an accepted response moves the session out of waiting_user: a next prompt, a progress update or interaction.complete follows',
      actual: event?.message ?? 'no session request in time',
    });
    if (event === undefined) {
      const state = await getState(ctx, session.sessionId, 'FLOW-SM-5');
      ctx.check('FLOW-SM-5', !(state.state === 'waiting_user' && JSON.stringify(state.currentPrompt) === JSON.stringify(current.prompt)), {
        message: 'after an accepted response the session does not keep waiting for the same prompt',
        actual: { state: state.state, currentPrompt: state.currentPrompt },
      });
    }
    await cancelQuietly(ctx, session.sessionId);
  },
});

const completeRequest = defineCase({
  id: `${SUITE}/complete`,
  suite: SUITE,
  title: 'a finished session gets exactly one interaction.complete request (sessionId, result.success, data, summary) and nothing after it',
  requirements: ['FLOW-SM-6', 'FLOW-SM-7', 'FLOW-SM-10'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      const run = await runToCompletion(ctx, session);
      const { message, params } = run.complete;
      const result = isRecord(params.result) ? params.result : undefined;
      ctx.check('FLOW-SM-7', 'id' in message && params.sessionId === session.sessionId && typeof result?.success === 'boolean' && (params.summary === undefined || typeof params.summary === 'string'), {
        message: `interaction.complete of ${toolName} is a request with the sessionId, result.success (boolean), optional data and an optional string summary`,
        expected: { id: '<request id>', params: { sessionId: session.sessionId, result: { success: '<boolean>' } } },
        actual: message,
      });
      ctx.check('FLOW-SM-6', run.turns.length > 0 && respondOutcome(run.turns.at(-1)?.answer) === 'accepted', {
        message: `interaction.complete of ${toolName} follows the last accepted response`,
        actual: run.turns.map((t) => respondOutcome(t.answer)),
      });
      const after = await maybeFlowEvent(ctx, session.sessionId);
      ctx.check('FLOW-SM-6', after?.method !== FLOW_METHOD.complete, { message: `interaction.complete is sent once for ${toolName}'s session`, actual: after?.message });
      ctx.check('FLOW-SM-10', after === undefined || after.method === FLOW_METHOD.complete, {
        message: `no interaction.prompt or interaction.continue for ${toolName}'s session after it completed`,
        actual: after?.message,
      });
    }
  },
});

const respondWrongState = defineCase({
  id: `${SUITE}/respond-when-completed`,
  suite: SUITE,
  title: 'interaction.respond on a completed session is -32003 INVALID_STATE_TRANSITION with data.sessionId',
  requirements: ['FLOW-RESPOND-5', 'FLOW-SM-4', 'FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-ERR-3', 'FLOW-STATE-6'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    const run = await runToCompletion(ctx, session);
    const last = run.turns.at(-1);
    const answer = await ctx.request('FLOW-RESPOND-5', FLOW_METHOD.respond, { sessionId: session.sessionId, response: { value: last?.value ?? true } });
    if (errorOf(answer)?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
      // FLOW-STATE-6 reading 2: a finished session may be cleaned up; then it has no state at all.
      const state = await ctx.request('FLOW-STATE-6', FLOW_METHOD.getState, { sessionId: session.sessionId });
      if (errorOf(state)?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
        ctx.reading('FLOW-STATE-6', 2, 'the completed session was cleaned up at once: respond and getState answer -32001');
        checkFlowError(ctx, answer, { requirement: 'FLOW-RESPOND-5', codes: [FLOW_ERROR.SESSION_NOT_FOUND], what: 'interaction.respond on a cleaned-up session', sessionId: session.sessionId, also: ['FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-ERR-3'] });
        return;
      }
    }
    const what = 'interaction.respond on a completed session';
    checkFlowError(ctx, answer, {
      requirement: 'FLOW-RESPOND-5',
      codes: [FLOW_ERROR.INVALID_STATE_TRANSITION],
      what,
      sessionId: session.sessionId,
      also: ['FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-ERR-3'],
    });
    checkFlowError(ctx, answer, { requirement: 'FLOW-SM-4', codes: [FLOW_ERROR.INVALID_STATE_TRANSITION], what: `${what} (completed -> processing is no transition)` });
  },
});

const respondInProcessing = defineCase({
  id: `${SUITE}/respond-while-processing`,
  suite: SUITE,
  title: 'interaction.respond while the session is processing (a progress-only interaction.continue not yet acknowledged) is -32003',
  requirements: ['FLOW-RESPOND-5', 'FLOW-SM-4'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    // A progress-only interaction.continue keeps the session in processing (FLOW-PROMPT-13); while
    // its answer is held back there is no prompt awaiting a value.
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      let current = await firstPrompt(ctx, session);
      for (let turn = 0; turn < 40; turn++) {
        const answer = await respond(ctx, session, validValue(current.prompt));
        if (respondOutcome(answer) !== 'accepted') break;
        const event = await nextFlowEvent(ctx, session.sessionId, { acknowledge: false }).catch(() => undefined);
        if (event === undefined || event.method === FLOW_METHOD.complete) {
          if (event && 'id' in event.message) await ctx.connection.send(resultResponse(event.message.id, { success: true }));
          break;
        }
        if (event.method === FLOW_METHOD.continue && event.prompt === undefined && 'id' in event.message) {
          const refused = await ctx.request('FLOW-RESPOND-5', FLOW_METHOD.respond, { sessionId: session.sessionId, response: { value: validValue(current.prompt) } });
          const what = `interaction.respond while ${toolName}'s session is processing`;
          checkFlowError(ctx, refused, { requirement: 'FLOW-RESPOND-5', codes: [FLOW_ERROR.INVALID_STATE_TRANSITION], what });
          checkFlowError(ctx, refused, { requirement: 'FLOW-SM-4', codes: [FLOW_ERROR.INVALID_STATE_TRANSITION], what });
          await ctx.connection.send(resultResponse(event.message.id, { acknowledged: true }));
          await cancelQuietly(ctx, session.sessionId);
          return;
        }
        if ('id' in event.message) await ctx.connection.send(resultResponse(event.message.id, { acknowledged: true }));
        if (event.prompt === undefined) {
          const next = await nextFlowEvent(ctx, session.sessionId).catch(() => undefined);
          if (next?.prompt === undefined) break;
          current = { prompt: next.prompt, via: next.method as 'interaction.prompt' };
        } else current = { prompt: event.prompt, via: event.method as 'interaction.prompt' };
      }
      await cancelQuietly(ctx, session.sessionId);
    }
    ctx.info('FLOW-RESPOND-5', 'no interactive tool sent a progress-only interaction.continue; the processing state could not be held');
    ctx.info('FLOW-SM-4', 'the processing state was not observed');
  },
});

const respondWhenCancelled = defineCase({
  id: `${SUITE}/respond-when-cancelled`,
  suite: SUITE,
  title: 'interaction.respond on a cancelled session is an error naming the session (-32006, or -32003) and the session stays cancelled',
  requirements: ['FLOW-RESPOND-6', 'FLOW-SM-3', 'FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-STATE-6'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    const current = await firstPrompt(ctx, session);
    const cancel = await setupRequest(ctx, FLOW_METHOD.cancel, { sessionId: session.sessionId }, 'FLOW-CANCEL-1');
    if (!isRecord(cancel.result) || cancel.result.cancelled !== true) {
      ctx.check('FLOW-SM-3', false, { message: 'the session could be cancelled (precondition)', actual: cancel.result ?? cancel.error });
      return;
    }
    const answer = await ctx.request('FLOW-RESPOND-6', FLOW_METHOD.respond, { sessionId: session.sessionId, response: { value: validValue(current.prompt) } });
    if (errorOf(answer)?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
      // FLOW-STATE-6 reading 2: a finished session may be cleaned up; then it has no state at all.
      const state = await ctx.request('FLOW-STATE-6', FLOW_METHOD.getState, { sessionId: session.sessionId });
      if (errorOf(state)?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
        ctx.reading('FLOW-STATE-6', 2, 'the cancelled session was cleaned up at once: respond and getState answer -32001');
        if (checkFlowError(ctx, answer, { requirement: 'FLOW-RESPOND-6', codes: [FLOW_ERROR.SESSION_NOT_FOUND], what: 'interaction.respond on a cleaned-up session', sessionId: session.sessionId, also: ['FLOW-ERR-1', 'FLOW-ERR-2'] })) {
          ctx.reading('FLOW-RESPOND-6', 3);
        }
        return;
      }
    }
    const ok = checkFlowError(ctx, answer, {
      requirement: 'FLOW-RESPOND-6',
      codes: [FLOW_ERROR.ALREADY_CANCELLED, FLOW_ERROR.INVALID_STATE_TRANSITION],
      what: 'interaction.respond on a cancelled session',
      sessionId: session.sessionId,
      also: ['FLOW-ERR-1', 'FLOW-ERR-2'],
    });
    if (ok) {
      const code = errorOf(answer)?.code;
      ctx.reading('FLOW-RESPOND-6', code === FLOW_ERROR.ALREADY_CANCELLED ? 1 : 2);
    }
    await checkStillTerminal(ctx, session, 'cancelled');
  },
});

/**
 * FLOW-SM-3: getState still reports one of `states` (or, FLOW-STATE-6, -32001 after clean-up).
 * Returns the state reported, if any.
 */
async function checkStillTerminal(ctx: CaseContext, session: FlowSession, state: InteractionState, also: readonly InteractionState[] = []): Promise<InteractionState | undefined> {
  const answer = await ctx.request('FLOW-SM-3', FLOW_METHOD.getState, { sessionId: session.sessionId });
  if (!answer) return undefined;
  if (errorOf(answer)?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
    ctx.reading('FLOW-STATE-6', 2, `the ${state} session was cleaned up: interaction.getState answers -32001`);
    return undefined;
  }
  const result = isRecord(answer.result) ? answer.result : {};
  const allowed = [state, ...also];
  ctx.check('FLOW-SM-3', allowed.includes(result.state as InteractionState), {
    message: `a ${state} session stays ${allowed.join(' or ')}`,
    expected: { state: allowed.length === 1 ? state : allowed },
    actual: answer.result ?? answer.error,
  });
  if (allowed.includes(result.state as InteractionState)) ctx.reading('FLOW-STATE-6', 1, `interaction.getState of the finished session reports ${String(result.state)}`);
  return result.state as InteractionState;
}

const completedIsTerminal = defineCase({
  id: `${SUITE}/completed-is-terminal`,
  suite: SUITE,
  title: 'a completed session never goes back: respond is refused, cancel is refused (or, reading "Any -> CANCELLED" literally, cancels it), with no current prompt',
  requirements: ['FLOW-SM-3', 'FLOW-SM-4', 'FLOW-STATE-3', 'FLOW-STATE-6'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    const run = await runToCompletion(ctx, session);
    const snapshot = await ctx.request('FLOW-SM-3', FLOW_METHOD.getState, { sessionId: session.sessionId });
    if (snapshot && isRecord(snapshot.result)) {
      const current = snapshot.result.currentPrompt;
      ctx.check('FLOW-STATE-3', current === undefined || current === null || (isRecord(current) && Object.keys(current).length === 0), {
        message: 'a completed session reports no currentPrompt (absent, null or {})',
        actual: current,
      });
    } else ctx.info('FLOW-STATE-3', 'the completed session was cleaned up at once; no currentPrompt to check');
    await checkStillTerminal(ctx, session, 'completed');
    const again = await ctx.request('FLOW-SM-4', FLOW_METHOD.respond, { sessionId: session.sessionId, response: { value: run.turns.at(-1)?.value ?? true } });
    const refused = errorOf(again) !== undefined || (isRecord(again?.result) && again.result.accepted === false);
    ctx.check('FLOW-SM-3', again !== undefined && refused, { message: 'interaction.respond on a completed session is refused', actual: again?.result ?? again?.error });
    checkFlowError(ctx, again, { requirement: 'FLOW-SM-4', codes: [FLOW_ERROR.INVALID_STATE_TRANSITION, FLOW_ERROR.SESSION_NOT_FOUND], what: 'interaction.respond on a completed session' });
    await checkStillTerminal(ctx, session, 'completed');
    const cancel = await ctx.request('FLOW-SM-3', FLOW_METHOD.cancel, { sessionId: session.sessionId });
    // C-23: refused (-32003, {"cancelled": false}), or cancelled when "Any -> CANCELLED" is read literally.
    const cancelled = isRecord(cancel?.result) && cancel.result.cancelled === true;
    ctx.check('FLOW-SM-3', cancel !== undefined && (errorOf(cancel) !== undefined || (isRecord(cancel.result) && typeof cancel.result.cancelled === 'boolean')), {
      message: 'interaction.cancel on a completed session is answered: refused (-32003, {"cancelled": false}) or cancelled (C-23)',
      actual: cancel?.result ?? cancel?.error,
    });
    const after = await checkStillTerminal(ctx, session, cancelled ? 'cancelled' : 'completed');
    const literal = after === undefined ? undefined : findLiteralAnyMove(['completed', after]);
    if (literal) ctx.reading('FLOW-SM-3', 2, `the completed session became ${literal.to}`);
    else if (after === 'completed') ctx.reading('FLOW-SM-3', 1, 'the completed session stayed completed after interaction.cancel');
  },
});

const unknownSession = defineCase({
  id: `${SUITE}/unknown-session`,
  suite: SUITE,
  title: 'interaction.respond, .getState and .cancel naming a session that does not exist (an id of the form the server issues) are -32001 SESSION_NOT_FOUND with data.sessionId',
  requirements: ['FLOW-ERR-4', 'FLOW-STATE-5', 'FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-ERR-3'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    // One real session shows the form of the server's ids; the probe id has that form (FLOW-ERR-4).
    const real = await startInteraction(ctx);
    await cancelQuietly(ctx, real.sessionId);
    const sessionId = unknownSessionIdLike(real.sessionId);
    const also = ['FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-ERR-3'];
    const asks: [string, Message][] = [
      [FLOW_METHOD.respond, { sessionId, response: { value: 'x' } }],
      [FLOW_METHOD.getState, { sessionId }],
      [FLOW_METHOD.cancel, { sessionId }],
    ];
    const codes = unknownSessionCodes(ctx);
    for (const [method, params] of asks) {
      const answer = await ctx.request('FLOW-ERR-4', method, params);
      const what = `${method} for an unknown session`;
      checkFlowError(ctx, answer, { requirement: 'FLOW-ERR-4', codes, what, sessionId, also });
      if (method === FLOW_METHOD.getState) checkFlowError(ctx, answer, { requirement: 'FLOW-STATE-5', codes, what, sessionId });
      const code = errorOf(answer)?.code;
      if (code === -32602 || code === FLOW_ERROR.SESSION_NOT_FOUND) {
        ctx.reading('FLOW-ERR-4', code === -32602 ? 2 : 1, what);
        if (method === FLOW_METHOD.getState) ctx.reading('FLOW-STATE-5', code === -32602 ? 2 : 1, what);
      }
    }
  },
});

/** FLOW-STATE-1: the snapshot's shape; returns the problems found. */
function snapshotProblems(snapshot: Message, sessionId: string, toolName: string): string[] {
  const problems: string[] = [];
  if (snapshot.sessionId !== sessionId) problems.push(`sessionId ${JSON.stringify(snapshot.sessionId)} is not the requested ${sessionId}`);
  if (typeof snapshot.state !== 'string') problems.push('no state');
  const metadata = isRecord(snapshot.metadata) ? snapshot.metadata : undefined;
  if (!metadata) problems.push('no metadata object');
  else {
    if (!Number.isSafeInteger(metadata.createdAt) || !Number.isSafeInteger(metadata.lastActivityAt)) problems.push('metadata.createdAt / lastActivityAt are not integers');
    if (metadata.toolName !== toolName) problems.push(`metadata.toolName ${JSON.stringify(metadata.toolName)} is not ${toolName}`);
  }
  if (!Array.isArray(snapshot.history)) problems.push('no history array');
  if (!isRecord(snapshot.accumulatedData)) problems.push('no accumulatedData object');
  return problems;
}

/**
 * FLOW-STATE-2: history entries match the accepted answers, in order, with increasing integer
 * turnIds. `base` receives the first turnId seen (0 is recommended; another start is reading 2).
 */
function historyProblems(history: unknown, values: readonly unknown[], base: { first?: number } = {}): string[] {
  if (!Array.isArray(history)) return ['no history array'];
  const problems: string[] = [];
  if (history.length !== values.length) problems.push(`${history.length} history entries after ${values.length} accepted responses`);
  let previous: number | undefined;
  history.forEach((entry, i) => {
    if (!isRecord(entry)) return problems.push(`history[${i}] is not an object`);
    if (!Number.isSafeInteger(entry.turnId)) problems.push(`history[${i}].turnId is ${JSON.stringify(entry.turnId)}, not an integer`);
    else {
      if (i === 0) base.first = entry.turnId as number;
      if (previous !== undefined && (entry.turnId as number) <= previous) problems.push(`history[${i}].turnId ${String(entry.turnId)} does not follow ${previous}`);
      previous = entry.turnId as number;
    }
    if (!isRecord(entry.prompt)) problems.push(`history[${i}] has no prompt`);
    if (!Number.isSafeInteger(entry.timestamp)) problems.push(`history[${i}].timestamp is not an integer`);
    const response = isRecord(entry.response) ? entry.response : undefined;
    if (!response) problems.push(`history[${i}] has no response`);
    else if (i < values.length && JSON.stringify(response.value) !== JSON.stringify(values[i])) {
      problems.push(`history[${i}].response.value is ${JSON.stringify(response.value)}, the answer was ${JSON.stringify(values[i])}`);
    }
    return undefined;
  });
  return problems;
}

/** Compares what interaction.getState must leave unchanged (FLOW-STATE-4). */
function stable(snapshot: Message): string {
  return JSON.stringify({ state: snapshot.state, history: snapshot.history, currentPrompt: snapshot.currentPrompt ?? null, accumulatedData: snapshot.accumulatedData });
}

const getStateCase = defineCase({
  id: `${SUITE}/get-state`,
  suite: SUITE,
  title: 'interaction.getState reports the session: metadata, history per accepted answer, currentPrompt while waiting, no side effects, legal state changes',
  requirements: ['FLOW-STATE-1', 'FLOW-STATE-2', 'FLOW-STATE-3', 'FLOW-STATE-4', 'FLOW-STATE-7', 'FLOW-SM-1', 'FLOW-SM-2'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      const observed: InteractionState[] = [];
      const observe = (state: unknown, where: string) => {
        if (ctx.check('FLOW-SM-1', isInteractionState(state), { message: `${where}: the state is one of ${stateList}`, actual: state })) observed.push(state as InteractionState);
      };
      observe(session.start.state, `interaction.start of ${toolName}`);
      const values: unknown[] = [];
      let lastActivity: number | undefined;
      const base: { first?: number } = {};
      /**
       * Two snapshots in a row. `waiting` names the prompt waiting for us (however it came): the
       * session is then in waiting_user, or (C-03 reading 2) idle while its initial prompt waits.
       */
      const snap = async (where: string, waiting?: { idleAllowed: boolean }): Promise<Message> => {
        const first = await getState(ctx, session.sessionId);
        const problems = snapshotProblems(first, session.sessionId, toolName);
        ctx.check('FLOW-STATE-1', problems.length === 0, { message: `${where}: ${problems.join('; ') || 'the snapshot has sessionId, state, metadata, history and accumulatedData'}`, actual: first });
        const history = historyProblems(first.history, values, base);
        ctx.check('FLOW-STATE-2', history.length === 0, { message: `${where}: ${history.join('; ') || 'one history entry per accepted answer'}`, actual: first.history });
        const second = await getState(ctx, session.sessionId);
        ctx.check('FLOW-STATE-4', stable(first) === stable(second), { message: `${where}: two interaction.getState calls in a row report the same session`, expected: JSON.parse(stable(first)), actual: JSON.parse(stable(second)) });
        const metadata = (snapshot: Message) => (isRecord(snapshot.metadata) ? snapshot.metadata : {});
        const [before, after] = [metadata(first), metadata(second)];
        if (typeof after.lastActivityAt === 'number' && typeof before.lastActivityAt === 'number') {
          ctx.check('FLOW-STATE-7', after.lastActivityAt >= before.lastActivityAt, { message: `${where}: lastActivityAt never decreases`, actual: { before: before.lastActivityAt, after: after.lastActivityAt } });
        }
        if (typeof before.lastActivityAt === 'number' && typeof before.createdAt === 'number') {
          ctx.check('FLOW-STATE-7', before.lastActivityAt >= before.createdAt, { message: `${where}: lastActivityAt is not before createdAt`, actual: { createdAt: before.createdAt, lastActivityAt: before.lastActivityAt } });
        }
        if (waiting !== undefined && !(waiting.idleAllowed && first.state === 'idle')) observed.push('waiting_user');
        observe(first.state, where);
        return first;
      };
      await runToCompletion(ctx, session, {
        async beforeAnswer(current, turn) {
          // C-03: a start that reported idle with its initial prompt may keep reporting idle until it is answered.
          const idleAllowed = current.via === 'initialPrompt' && values.length === 0 && session.start.state === 'idle';
          const snapshot = await snap(`before answer ${turn + 1} of ${toolName}`, { idleAllowed });
          const waitingState = snapshot.state === 'waiting_user' || (idleAllowed && snapshot.state === 'idle');
          ctx.check('FLOW-STATE-3', waitingState && isRecord(snapshot.currentPrompt) && snapshot.currentPrompt.message === current.prompt.message && snapshot.currentPrompt.type === current.prompt.type, {
            message: `while prompt ${turn + 1} of ${toolName} waits, the state is waiting_user${idleAllowed ? ' (or idle, C-03)' : ''} and currentPrompt is that prompt`,
            expected: { state: 'waiting_user', currentPrompt: current.prompt },
            actual: { state: snapshot.state, currentPrompt: snapshot.currentPrompt },
          });
          if (idleAllowed && snapshot.state === 'idle') ctx.info('FLOW-STATE-3', `the initial prompt of ${toolName} waits in state idle (C-03 reading 2)`);
          const activity = isRecord(snapshot.metadata) ? snapshot.metadata.lastActivityAt : undefined;
          if (turn > 0 && typeof activity === 'number' && lastActivity !== undefined) {
            ctx.check('FLOW-STATE-7', activity > lastActivity, { message: `lastActivityAt advanced after answer ${turn} of ${toolName}`, actual: { before: lastActivity, after: activity } });
          }
          lastActivity = typeof activity === 'number' ? activity : undefined;
          // One clock tick between the snapshot and the answer, so an update of lastActivityAt shows.
          await new Promise((resolve) => setTimeout(resolve, 2));
        },
        onTurn(turn) {
          if (respondOutcome(turn.answer) === 'accepted') values.push(turn.value);
        },
      });
      observed.push('completed'); // interaction.complete arrived
      const end = await ctx.request('FLOW-STATE-1', FLOW_METHOD.getState, { sessionId: session.sessionId });
      if (end && isRecord(end.result)) {
        observe(end.result.state, `after ${toolName} completed`);
        const history = historyProblems(end.result.history, values, base);
        ctx.check('FLOW-STATE-2', history.length === 0, { message: `after ${toolName} completed: ${history.join('; ') || 'one history entry per accepted answer'}`, actual: end.result.history });
      }
      if (base.first !== undefined) {
        ctx.reading('FLOW-STATE-2', base.first === 0 ? 1 : 2, `${toolName}: turnIds start at ${base.first}`);
      }
      const illegal = findIllegalObservation(observed);
      ctx.check('FLOW-SM-2', illegal === undefined, {
        message: illegal ? `${toolName}: ${illegal.from} -> ${illegal.to} is joined by no path of 000 transitions` : `${toolName}: every observed state change is allowed`,
        actual: observed,
      });
    }
  },
});

export const cases: readonly ConformanceCase[] = [
  startResult,
  startInvalidParams,
  startUnknownTool,
  startPlainTool,
  sessionIdsUnique,
  initialPromptCurrent,
  firstPromptRequest,
  continueRequests,
  acceptedLeavesWaiting,
  completeRequest,
  respondWrongState,
  respondInProcessing,
  respondWhenCancelled,
  completedIsTerminal,
  unknownSession,
  getStateCase,
];
