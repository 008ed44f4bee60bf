// Suite `cancellation`: notifications/cancelled (MCP core) and `$/cancel` (WebTransport binding)
// of an in-flight request, cancels of unknown or finished requests, execution streams after a
// cancel (C-02), and interaction.cancel with its errors (000 §6, C-23).
//
// Which request is "in flight" follows the rule of support/in-flight.ts: a tool call that asked
// the client something (its answer is held back), else one that reported progress, at best one
// seen running with most of its work ahead (support/lasting-call.ts): a result after the cancel
// is then the target's doing, not the race C-02 allows.
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { BINDING_ERROR, FLOW_ERROR } from '../../../src/protocol/error-codes.js';
import { FLOW_METHOD } from '../../../src/protocol/methods.js';
import type { IncomingExecutionStream } from '../../../src/transport/connection.js';
import { isRecord } from '../../../src/wire/index.js';
import { errorOf, errorResponse, isResponseTo, notification, openSession, request, requiresInteractiveTool, resultResponse, type Message, type RequestId } from '../../support/session.js';
import { declaresStatelessMode, firstPrompt, maybeFlowEvent, runToCompletion, startInteraction, unknownSessionIdLike } from '../../support/flow.js';
import {
  argumentsFor,
  callableTools,
  firstEvent,
  openAskingSession,
  QUIET_MS,
  reportNoInFlightCall,
  requireResponsive,
  sendToolCall,
  startInFlightCall,
  unlessQuiet,
  type InFlightCall,
  type ToolCall,
} from '../../support/in-flight.js';
import { answerAfterCancel, type Running } from '../../support/lasting-call.js';

const SUITE = 'cancellation';

/** The answer the harness finally gives a held client request (so a target that ignored the cancel can finish). */
function lateAnswer(request: Message & { id: RequestId; method: string }): Message {
  if (request.method === 'sampling/createMessage') {
    return resultResponse(request.id, { role: 'assistant', content: { type: 'text', text: 'late answer after the cancel' }, model: 'mcp-flow-conformance' });
  }
  if (request.method === 'elicitation/create') return resultResponse(request.id, { action: 'decline' });
  return errorResponse(request.id, -32603, 'the harness does not serve this request');
}

/** Answers the held request now: a target that kept working can now produce its answer. */
async function releaseHeld(ctx: CaseContext, call: InFlightCall): Promise<void> {
  if (call.heldRequest === undefined) return;
  await ctx.connection.send(lateAnswer(call.heldRequest));
}

/** How a running call was seen, for messages. */
function runningText(running: Running): string {
  return `seen running at progress ${running.last.progress} of ${String(running.last.total)}, about ${Math.round(running.remainingMs)} ms of work ahead`;
}

/** Request ids the target itself sent on this connection (from the transcript). */
function targetRequestIds(ctx: CaseContext): unknown[] {
  return ctx.connection.transcript
    .entries()
    .filter((e) => e.direction === 'received' && isRecord(e.decoded) && typeof e.decoded.method === 'string' && 'id' in e.decoded)
    .map((e) => (e.decoded as Message).id);
}

/** notifications/cancelled messages from the target still queued. */
function cancelledFromTarget(ctx: CaseContext): Message[] {
  return ctx.connection
    .pending()
    .map((r) => r.message)
    .filter((m): m is Message => isRecord(m) && m.method === 'notifications/cancelled');
}

/**
 * notifications/cancelled for an in-flight call: no answer for it (even once the held client
 * request is answered), and any notifications/cancelled the target sends names its own request.
 */
function cancelledNotificationCase(id: string, requirement: 'CORE-CANCEL-2' | 'WT-CANCEL-5', webTransportOnly: boolean): ConformanceCase {
  return defineCase({
    id,
    suite: SUITE,
    title: webTransportOnly
      ? 'over WebTransport, notifications/cancelled of an in-flight tool call (one that asked the client, else one reporting progress) keeps MCP semantics: no response'
      : 'notifications/cancelled of an in-flight tool call (one that asked the client, else one reporting progress) gets no response, and the target only ever cancels its own requests',
    requirements: webTransportOnly ? [requirement] : [requirement, 'CORE-CANCEL-1'],
    ...(webTransportOnly ? { transports: ['webtransport'] as const } : {}),
    // A running call is watched until its work would have ended (the worker serves other cases meanwhile).
    timeLimitMs: 20_000,
    sleeps: true,
    async run(ctx) {
      await openAskingSession(ctx);
      const call = await startInFlightCall(ctx);
      if (call === undefined) {
        reportNoInFlightCall(ctx, requirement);
        if (!webTransportOnly) reportNoInFlightCall(ctx, 'CORE-CANCEL-1');
        return;
      }
      await ctx.connection.send(notification('notifications/cancelled', { requestId: call.id, reason: 'cancelled by the conformance suite' }));
      // Nothing may answer the call, neither now nor once its client request is answered, nor
      // while a running call would still be working (a target that ignored the cancel finishes then).
      let answer = call.running ? await ctx.awaitTarget(answerAfterCancel(ctx, call, call.running, QUIET_MS)) : await unlessQuiet(ctx, (m) => isResponseTo(m, call.id));
      if (answer === undefined && call.heldRequest !== undefined) {
        await releaseHeld(ctx, call);
        answer = await unlessQuiet(ctx, (m) => isResponseTo(m, call.id));
      }
      if (answer !== undefined && call.how === 'progress' && call.running === undefined && 'result' in answer) {
        ctx.info(requirement, 'the progress-reporting call was answered with a result after the cancel; it may have finished before the cancel arrived', answer);
      } else {
        const how = call.how === 'asked-client' ? ', even after its client request was answered' : call.running ? ` (${runningText(call.running)} when cancelled)` : '';
        ctx.check(requirement, answer === undefined, {
          message: `the cancelled ${call.tool.name} call (id ${call.id}) is not answered${how}`,
          expected: 'no response',
          actual: answer,
        });
      }
      if (!(await requireResponsive(ctx, requirement, 'after a notifications/cancelled'))) return;
      if (webTransportOnly) return;
      const own = targetRequestIds(ctx);
      const cancels = cancelledFromTarget(ctx);
      if (cancels.length === 0) {
        ctx.info('CORE-CANCEL-1', 'the target sent no notifications/cancelled for its own requests');
        return;
      }
      for (const cancel of cancels) {
        const named = isRecord(cancel.params) ? cancel.params.requestId : undefined;
        ctx.check('CORE-CANCEL-1', own.includes(named), {
          message: 'a notifications/cancelled from the target names a request the target itself sent',
          expected: { requestId: own },
          actual: cancel,
        });
      }
    },
  });
}

const cancelledNoAnswer = cancelledNotificationCase('cancellation/cancelled-notification-no-answer', 'CORE-CANCEL-2', false);
const cancelledNoAnswerWt = cancelledNotificationCase('cancellation/cancelled-notification-webtransport', 'WT-CANCEL-5', true);

/** Cancels of requests that are not in flight: nothing answers them and the session goes on. */
function unknownCancelCase(id: string, method: 'notifications/cancelled' | '$/cancel', requirement: 'CORE-CANCEL-4' | 'WT-CANCEL-4'): ConformanceCase {
  return defineCase({
    id,
    suite: SUITE,
    title: `${method} naming a request never sent, or one already answered, is ignored: no response, no error, the session goes on`,
    requirements: [requirement],
    ...(method === '$/cancel' ? { transports: ['webtransport'] as const } : {}),
    async run(ctx) {
      await openSession(ctx);
      const finished = ctx.nextId();
      await ctx.connection.send(request(finished, 'ping'));
      const pong = await ctx.expectAnswer(requirement, finished, { what: 'ping before the cancels' });
      if (pong === undefined) return;
      // A numeric id never used on this connection (u32, as $/cancel over the binding needs).
      const unknown = ctx.nextId() + 100_000;
      const named = method === '$/cancel' ? [unknown, finished] : [unknown, `never-sent-${unknown}`, finished];
      for (const requestId of named) {
        await ctx.connection.send(notification(method, { requestId, reason: 'not in flight' }));
      }
      const answer = await unlessQuiet(
        ctx,
        (m) => isRecord(m) && !('method' in m) && ('result' in m || 'error' in m) && (named.includes(m.id as never) || m.id === null),
      );
      ctx.check(requirement, answer === undefined, {
        message: `${method} for request ids ${named.map((n) => JSON.stringify(n)).join(', ')} (unknown or finished) gets no response and no error`,
        expected: 'no message answering them',
        actual: answer,
      });
      await requireResponsive(ctx, requirement, `after ${method} of requests not in flight`);
    },
  });
}

const cancelUnknownIgnored = unknownCancelCase('cancellation/cancel-unknown-request-ignored', 'notifications/cancelled', 'CORE-CANCEL-4');
const dollarCancelUnknownIgnored = unknownCancelCase('cancellation/dollar-cancel-unknown-request-ignored', '$/cancel', 'WT-CANCEL-4');

const dollarCancelAnswered = defineCase({
  id: 'cancellation/dollar-cancel-answered-with-error',
  suite: SUITE,
  title: '$/cancel of an in-flight tool call (one that asked the client, else one reporting progress) aborts it and answers it with an error (-32000 "Cancelled", -32800 or another code)',
  requirements: ['WT-CANCEL-2', 'WT-CANCEL-1'],
  transports: ['webtransport'],
  // A running call is watched until its work would have ended.
  timeLimitMs: 20_000,
  async run(ctx) {
    await openAskingSession(ctx);
    const call = await startInFlightCall(ctx);
    if (call === undefined) {
      reportNoInFlightCall(ctx, 'WT-CANCEL-2');
      reportNoInFlightCall(ctx, 'WT-CANCEL-1');
      return;
    }
    await ctx.connection.send(notification('$/cancel', { requestId: call.id, reason: 'cancelled by the conformance suite' }));
    let answer = call.running ? await answerAfterCancel(ctx, call, call.running, 2_000) : await unlessQuiet(ctx, (m) => isResponseTo(m, call.id), 2_000);
    if (call.running !== undefined && answer !== undefined && 'result' in answer) {
      // Seen running with its work ahead, then answered with its result: the cancel changed nothing.
      ctx.check('WT-CANCEL-1', false, {
        message: `$/cancel did not abort the ${call.tool} call (${runningText(call.running)}): it ran to its normal end`,
        expected: 'an error answer after $/cancel, and the work stopped',
        actual: answer,
      });
      ctx.check('WT-CANCEL-2', false, { message: 'the request cancelled with $/cancel is answered with an error, not its result', expected: { error: { code: BINDING_ERROR.Cancelled } }, actual: answer });
      return;
    }
    // The work is aborted: answering the held request now produces nothing more for the call.
    await releaseHeld(ctx, call);
    const isMore = (m: unknown): boolean =>
      isResponseTo(m, call.id) || (isRecord(m) && m.method === 'notifications/progress' && isRecord(m.params) && m.params.progressToken === call.progressToken);
    const more = await unlessQuiet(ctx, isMore);
    if (answer === undefined && more !== undefined && isResponseTo(more, call.id) && 'result' in more) {
      // A result once the held request was answered: the request ran on to its normal end.
      answer = more;
      ctx.check('WT-CANCEL-1', false, {
        message: `$/cancel did not abort the ${call.tool.name} call: it was answered with its result once its client request was, as if never cancelled`,
        expected: 'an error answer after $/cancel, and the work stopped',
        actual: more,
      });
    } else if (answer === undefined && more !== undefined && isResponseTo(more, call.id)) {
      // A late error answer to the cancel; what matters next is that nothing else follows.
      answer = more;
      const after = await unlessQuiet(ctx, isMore);
      ctx.check('WT-CANCEL-1', after === undefined, {
        message: `after $/cancel the ${call.tool.name} call's work stops: no second answer and no more progress for it`,
        expected: 'nothing more about the call',
        actual: after,
      });
    } else {
      ctx.check('WT-CANCEL-1', more === undefined, {
        message: `after $/cancel the ${call.tool.name} call's work stops: no second answer and no more progress for it`,
        expected: 'nothing more about the call',
        actual: more,
      });
    }
    if (answer === undefined) {
      ctx.check('WT-CANCEL-2', false, { message: 'the request cancelled with $/cancel is answered', expected: 'an error answer', actual: 'no answer' });
      return;
    }
    const error = errorOf(answer);
    if (error === undefined && call.how === 'progress') {
      ctx.info('WT-CANCEL-2', 'the progress-reporting call was answered with a result; it may have finished before the $/cancel arrived (C-02)', answer);
      return;
    }
    // WT-CANCEL-2 asks for an error; the code is a reading (-32000 as 001 §6 shows, -32800 as LSP has it), another one is reported.
    if (
      ctx.check('WT-CANCEL-2', error !== undefined, {
        message: 'the request cancelled with $/cancel is answered with an error (-32000 "Cancelled", -32800, or another code)',
        expected: { error: { code: [BINDING_ERROR.Cancelled, BINDING_ERROR.RequestCancelled] } },
        actual: answer,
      })
    ) {
      ctx.reading('WT-CANCEL-2', error?.code === BINDING_ERROR.Cancelled ? 1 : 2, `error ${String(error?.code)}`, error);
    }
  },
});

/** Reads an execution stream to its end; `reset` when it ended with an error (RESET_STREAM), not FIN. */
async function drain(ctx: CaseContext, stream: IncomingExecutionStream): Promise<{ bytes: number; ended: 'fin' | 'reset' | 'still-open' }> {
  const reader = stream.readable.getReader();
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'still-open'>((resolve) => {
    timer = setTimeout(() => resolve('still-open'), ctx.scaled(5_000));
    ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), deadline]);
      if (step === 'still-open') {
        void reader.cancel('conformance: stream still open after the cancel').catch(() => undefined);
        return { bytes, ended: 'still-open' };
      }
      if (step.done) return { bytes, ended: 'fin' };
      bytes += step.value.byteLength;
    }
  } catch {
    return { bytes, ended: 'reset' };
  } finally {
    // A timer left running would keep a finished run's process alive until it fires.
    clearTimeout(timer);
  }
}

const dollarCancelResetsStream = defineCase({
  id: 'cancellation/dollar-cancel-resets-execution-stream',
  suite: SUITE,
  title: '$/cancel of a tool call that is sending an execution stream (the first tool that opens one when its size arguments are large) resets that stream',
  requirements: ['WT-CANCEL-3'],
  transports: ['webtransport'],
  timeLimitMs: 20_000,
  async run(ctx) {
    await openAskingSession(ctx);
    let found: { call: ToolCall; stream: IncomingExecutionStream } | undefined;
    for (const tool of await callableTools(ctx)) {
      const call = await sendToolCall(ctx, tool, argumentsFor(tool.inputSchema, { size: 'large' }) ?? {});
      const event = await firstEvent(ctx, call, { streams: true, progress: false });
      if (event.kind === 'stream') {
        found = { call, stream: event.stream };
        break;
      }
      if (event.kind !== 'answered') {
        await ctx.connection.send(notification('$/cancel', { requestId: call.id, reason: 'conformance probe' }));
        await unlessQuiet(ctx, (m) => isResponseTo(m, call.id));
      }
    }
    if (found === undefined) {
      ctx.info('WT-CANCEL-3', 'not checked: no tool of the target opened an execution stream for its call');
      return;
    }
    const { call, stream } = found;
    ctx.note(`${call.tool.name} opened execution stream ${stream.streamId} (tag ${stream.header.streamTag}); cancelling the call`);
    await ctx.connection.send(notification('$/cancel', { requestId: call.id, reason: 'cancelled by the conformance suite' }));
    const answer = await unlessQuiet(ctx, (m) => isResponseTo(m, call.id), 2_000);
    const drained = await drain(ctx, stream);
    if (drained.ended === 'fin' && answer !== undefined && 'result' in answer) {
      ctx.info('WT-CANCEL-3', `the call had already finished (result and a complete stream of ${drained.bytes} bytes) before the $/cancel arrived`, answer);
      return;
    }
    ctx.check('WT-CANCEL-3', drained.ended === 'reset', {
      message: `after $/cancel the call's execution stream is reset (not finished with FIN, not left open)`,
      expected: 'the stream reset',
      actual: { stream: drained.ended, bytesRead: drained.bytes, answer },
    });
  },
});

// ---- interaction.cancel ------------------------------------------------------------------------

/** interaction.cancel; the answer, or undefined when none came (already failed against `requirement`). */
async function cancelInteraction(ctx: CaseContext, requirement: string, sessionId: string, reason?: string): Promise<Message | undefined> {
  return ctx.request(requirement, FLOW_METHOD.cancel, { sessionId, ...(reason !== undefined ? { reason } : {}) }, { what: `interaction.cancel of ${sessionId}` });
}

/** Checks an error answer's code and its data.sessionId. */
function checkFlowError(ctx: CaseContext, requirement: string, answer: Message | undefined, code: number, sessionId: string, what: string): boolean {
  if (answer === undefined) return false;
  const error = errorOf(answer);
  return ctx.check(requirement, error !== undefined && error.code === code && isRecord(error.data) && error.data.sessionId === sessionId, {
    message: `${what} is answered with error ${code} carrying data.sessionId`,
    expected: { error: { code, data: { sessionId } } },
    actual: answer,
  });
}

const interactionCancel = defineCase({
  id: 'cancellation/interaction-cancel-cancels',
  suite: SUITE,
  title: 'interaction.cancel of a session waiting for the user answers {"cancelled": true} and the session becomes cancelled',
  requirements: ['FLOW-CANCEL-1'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    await firstPrompt(ctx, session);
    const answer = await cancelInteraction(ctx, 'FLOW-CANCEL-1', session.sessionId, 'the user changed their mind');
    if (answer === undefined) return;
    const cancelled = isRecord(answer.result) && answer.result.cancelled === true;
    ctx.check('FLOW-CANCEL-1', cancelled, { message: 'interaction.cancel is answered {"cancelled": true}', expected: { result: { cancelled: true } }, actual: answer });
    if (!cancelled) return;
    const state = await ctx.request('FLOW-CANCEL-1', FLOW_METHOD.getState, { sessionId: session.sessionId });
    if (state === undefined) return;
    if (errorOf(state)?.code === FLOW_ERROR.SESSION_NOT_FOUND) {
      ctx.info('FLOW-CANCEL-1', 'the cancelled session was cleaned up at once (getState answers -32001)', state);
      return;
    }
    ctx.check('FLOW-CANCEL-1', isRecord(state.result) && state.result.state === 'cancelled', {
      message: 'interaction.getState reports the cancelled session in state "cancelled"',
      expected: { result: { state: 'cancelled' } },
      actual: state,
    });
  },
});

/** Whether interaction.getState no longer knows the session (-32001: cleaned up, FLOW-STATE-6 reading 2). */
async function cleanedUp(ctx: CaseContext, requirement: string, sessionId: string): Promise<boolean> {
  const state = await ctx.request(requirement, FLOW_METHOD.getState, { sessionId }, { what: `interaction.getState of ${sessionId}` });
  return errorOf(state)?.code === FLOW_ERROR.SESSION_NOT_FOUND;
}

const interactionCancelTwice = defineCase({
  id: 'cancellation/interaction-cancel-twice',
  suite: SUITE,
  title: 'interaction.cancel of an already cancelled session is answered -32006 ALREADY_CANCELLED with data.sessionId (-32001 once it was cleaned up)',
  requirements: ['FLOW-CANCEL-2'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    const first = await cancelInteraction(ctx, 'FLOW-CANCEL-2', session.sessionId);
    if (first === undefined) return;
    if (!isRecord(first.result) || first.result.cancelled !== true) {
      ctx.check('FLOW-CANCEL-2', false, { message: 'the first interaction.cancel cancels the session (needed before cancelling twice)', actual: first });
      return;
    }
    const second = await cancelInteraction(ctx, 'FLOW-CANCEL-2', session.sessionId);
    if (errorOf(second)?.code === FLOW_ERROR.SESSION_NOT_FOUND && (await cleanedUp(ctx, 'FLOW-CANCEL-2', session.sessionId))) {
      ctx.reading('FLOW-CANCEL-2', 2, 'the cancelled session was cleaned up at once', second);
      checkFlowError(ctx, 'FLOW-CANCEL-2', second, FLOW_ERROR.SESSION_NOT_FOUND, session.sessionId, 'a second interaction.cancel of a cleaned-up session');
      return;
    }
    if (checkFlowError(ctx, 'FLOW-CANCEL-2', second, FLOW_ERROR.ALREADY_CANCELLED, session.sessionId, 'a second interaction.cancel')) ctx.reading('FLOW-CANCEL-2', 1);
  },
});

const interactionCancelUnknown = defineCase({
  id: 'cancellation/interaction-cancel-unknown-session',
  suite: SUITE,
  title: 'interaction.cancel of a session that does not exist (an id of the form the server issues) is answered -32001 SESSION_NOT_FOUND with data.sessionId',
  requirements: ['FLOW-CANCEL-3'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    // One real session shows the form of the server's ids; the probe id has that form.
    const real = await startInteraction(ctx);
    await cancelInteraction(ctx, 'FLOW-CANCEL-3', real.sessionId);
    const sessionId = unknownSessionIdLike(real.sessionId);
    const answer = await cancelInteraction(ctx, 'FLOW-CANCEL-3', sessionId);
    if (declaresStatelessMode(ctx) && errorOf(answer)?.code === -32602) {
      ctx.reading('FLOW-CANCEL-3', 2, 'a stateless token the server did not sign', answer);
      return;
    }
    if (checkFlowError(ctx, 'FLOW-CANCEL-3', answer, FLOW_ERROR.SESSION_NOT_FOUND, sessionId, 'interaction.cancel of an unknown session')) ctx.reading('FLOW-CANCEL-3', 1);
  },
});

const interactionCancelCompleted = defineCase({
  id: 'cancellation/interaction-cancel-completed-session',
  suite: SUITE,
  title: 'interaction.cancel of a completed session is answered in agreement with the session: refused (-32003, {"cancelled": false}) and still completed, or (C-23) {"cancelled": true} and cancelled',
  requirements: ['FLOW-CANCEL-4'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    await runToCompletion(ctx, session, { requirement: 'FLOW-CANCEL-4' });
    const answer = await cancelInteraction(ctx, 'FLOW-CANCEL-4', session.sessionId);
    if (answer === undefined) return;
    const error = errorOf(answer);
    const result = isRecord(answer.result) ? answer.result : undefined;
    const state = await ctx.request('FLOW-CANCEL-4', FLOW_METHOD.getState, { sessionId: session.sessionId });
    if (state === undefined) return;
    const gone = errorOf(state)?.code === FLOW_ERROR.SESSION_NOT_FOUND;
    const now = isRecord(state.result) ? state.result.state : undefined;
    let reading: number | undefined;
    if (error?.code === FLOW_ERROR.INVALID_STATE_TRANSITION && (gone || now === 'completed')) reading = 1;
    else if (result?.cancelled === false && (gone || now === 'completed')) reading = 2;
    else if (result?.cancelled === true && (gone || now === 'cancelled')) reading = 3;
    else if (error?.code === FLOW_ERROR.SESSION_NOT_FOUND && gone) reading = 4;
    if (
      ctx.check('FLOW-CANCEL-4', reading !== undefined, {
        message: 'interaction.cancel of a completed session is answered in agreement with the state the session then has',
        expected: 'error -32003 or {"cancelled": false} with the session still completed, or {"cancelled": true} with the session cancelled',
        actual: { cancel: answer, getState: state },
      })
    ) {
      ctx.reading('FLOW-CANCEL-4', reading!, gone ? 'interaction.getState answers -32001 (cleaned up)' : undefined, answer);
    }
  },
});

const interactionCancelNoFollowUp = defineCase({
  id: 'cancellation/interaction-cancel-no-follow-up',
  suite: SUITE,
  title: 'after interaction.cancel the server sends no further interaction.prompt, .continue or .complete for the session',
  requirements: ['FLOW-CANCEL-5'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    await firstPrompt(ctx, session);
    const answer = await cancelInteraction(ctx, 'FLOW-CANCEL-5', session.sessionId);
    if (answer === undefined) return;
    if (!isRecord(answer.result) || answer.result.cancelled !== true) {
      ctx.check('FLOW-CANCEL-5', false, { message: 'interaction.cancel cancels the waiting session (needed to watch what follows)', actual: answer });
      return;
    }
    const followUp = await maybeFlowEvent(ctx, session.sessionId, { acknowledge: false });
    ctx.check('FLOW-CANCEL-5', followUp === undefined, {
      message: 'no session request follows the cancel result',
      expected: 'no interaction.prompt, .continue or .complete',
      actual: followUp?.message,
    });
  },
});

export const cases: readonly ConformanceCase[] = [
  cancelledNoAnswer,
  cancelledNoAnswerWt,
  cancelUnknownIgnored,
  dollarCancelUnknownIgnored,
  dollarCancelAnswered,
  dollarCancelResetsStream,
  interactionCancel,
  interactionCancelTwice,
  interactionCancelUnknown,
  interactionCancelCompleted,
  interactionCancelNoFollowUp,
];
