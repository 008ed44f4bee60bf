// Suite `cancellation` (client side): a client that gives up on a call says so (`$/cancel` over
// WebTransport, 001 §6 and §8; `notifications/cancelled` in MCP), and never cancels initialize or a
// request it did not send or that is no longer in flight (C-02).
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import {
  callInFlight,
  clientMessages,
  CODE,
  describe,
  ECHO_CALL,
  errorResponse,
  isNotification,
  isRequest,
  isResponseTo,
  paramsOf,
  ScriptedServer,
  sentSeq,
  servedSession,
  STEP_WAIT_MS,
  type ClientMessage,
  type RequestId,
} from '../../support/scripted-server.js';

const SUITE = 'cancellation';
const CANCEL_METHODS = ['$/cancel', 'notifications/cancelled'] as const;
/** The scenario's abort: the `slow` tool is never answered, so the client gives up after this long. */
const ABORT_AFTER_MS = 300;
const ABORTED_CALL = { name: 'tools-call', context: { tool: 'slow', arguments: {}, abortAfterMs: ABORT_AFTER_MS } } as const;

function isCancel(message: unknown): boolean {
  return CANCEL_METHODS.some((method) => isNotification(message, method));
}

/**
 * Every cancel the client sent must name one of its own requests, and never initialize
 * (WT-CANCEL-6 for $/cancel, CORE-CANCEL-1 for notifications/cancelled, CORE-CANCEL-3 for both).
 * One naming a request the harness had already answered may have crossed the answer: noted.
 */
function checkEveryCancel(ctx: CaseContext, requirements: { cancel: boolean; cancelled: boolean }): void {
  const messages = clientMessages(ctx);
  const cancels = messages.filter((m) => isCancel(m.message));
  const initializeIds = new Set(messages.filter((m) => isRequest(m.message, 'initialize')).map((m) => (m.message as { id: RequestId }).id));
  const own = (cancel: ClientMessage): boolean => {
    const requestId = paramsOf(cancel.message).requestId;
    return messages.some((m) => m.seq < cancel.seq && isRequest(m.message) && m.message.id === requestId);
  };
  const answeredBefore = (cancel: ClientMessage): boolean => sentSeq(ctx, (m) => isResponseTo(m, paramsOf(cancel.message).requestId as RequestId)) < cancel.seq;
  const ofInitialize = cancels.filter((c) => initializeIds.has(paramsOf(c.message).requestId as RequestId));
  ctx.check('CORE-CANCEL-3', ofInitialize.length === 0, {
    message: 'the client never cancels its initialize request',
    expected: 'no cancel naming initialize',
    actual: ofInitialize.length > 0 ? ofInitialize.map((c) => describe(c.message)) : `${cancels.length} cancel(s), none naming initialize`,
  });
  for (const [method, requirement, declared] of [
    ['$/cancel', 'WT-CANCEL-6', requirements.cancel],
    ['notifications/cancelled', 'CORE-CANCEL-1', requirements.cancelled],
  ] as const) {
    if (!declared) continue;
    const named = cancels.filter((c) => isNotification(c.message, method));
    const bad = named.filter((c) => !own(c) || initializeIds.has(paramsOf(c.message).requestId as RequestId));
    ctx.check(requirement, bad.length === 0, {
      message: `every ${method} names one of the client's own requests (never initialize)`,
      expected: 'the id of a request the client sent',
      actual: bad.length > 0 ? bad.map((c) => paramsOf(c.message)) : `${named.length} ${method}, each naming a request of the client's`,
    });
    const crossed = named.filter((c) => own(c) && answeredBefore(c));
    if (crossed.length > 0) ctx.info(requirement, `${crossed.length} ${method} named a request the harness had already answered (the cancel may have crossed the answer)`, crossed.map((c) => paramsOf(c.message)));
  }
}

/** Runs the aborted call: returns the server, the call and the cancel that came for it (undefined when none). */
async function abortedCall(ctx: CaseContext): Promise<{ server: ScriptedServer; callId: RequestId; cancel: Record<string, unknown> | undefined }> {
  const { server, call } = await callInFlight(ctx);
  const mark = server.mark();
  // The call is never answered: the client gives up after abortAfterMs.
  const cancel = await server.serveUntil((r) => isCancel(r.message) && paramsOf(r.message).requestId === call.id, STEP_WAIT_MS + ABORT_AFTER_MS);
  if (!cancel) server.absent('a cancel of the abandoned call', mark);
  if (cancel && isNotification(cancel.message, '$/cancel')) {
    // 001 §6: a $/cancel-led request is answered with an error (C-02).
    await server.send(errorResponse(call.id, CODE.cancelled, 'Cancelled'));
  }
  return { server, callId: call.id, cancel: cancel?.message as Record<string, unknown> | undefined };
}

const abortSendsCancel = defineCase({
  id: 'cancellation/abort-sends-cancel',
  suite: SUITE,
  title: 'WT-CANCEL-7, WT-CANCEL-6, CORE-CANCEL-3: a call the client gives up on is cancelled with $/cancel naming it (never initialize)',
  requirements: ['WT-CANCEL-7', 'WT-CANCEL-6', 'CORE-CANCEL-3'],
  transports: ['webtransport'],
  scenario: ABORTED_CALL,
  async run(ctx) {
    const { server, callId, cancel } = await abortedCall(ctx);
    ctx.check('WT-CANCEL-7', cancel !== undefined, {
      message: `the call the client abandoned (id ${JSON.stringify(callId)}) is cancelled by a notification naming it`,
      expected: { method: '$/cancel', params: { requestId: callId } },
      actual: cancel ?? `no cancel within ${ctx.scaled(STEP_WAIT_MS + ABORT_AFTER_MS)} ms: ${server.observed()}`,
    });
    if (cancel) ctx.info('WT-CANCEL-7', `the client cancelled with ${String(cancel.method)} (C-02 accepts $/cancel and notifications/cancelled)`, cancel);
    await server.untilExit();
    checkEveryCancel(ctx, { cancel: true, cancelled: false });
  },
});

const abortOverHttp = defineCase({
  id: 'cancellation/abort-names-own-request',
  suite: SUITE,
  title: 'CORE-CANCEL-1, CORE-CANCEL-3: over Streamable HTTP a notifications/cancelled for an abandoned call names that call (never initialize)',
  requirements: ['CORE-CANCEL-1', 'CORE-CANCEL-3'],
  transports: ['http'],
  scenario: ABORTED_CALL,
  async run(ctx) {
    const { server, callId, cancel } = await abortedCall(ctx);
    // Seed 002 does not ask for a cancellation: sending none is reported, not failed.
    ctx.info(
      'CORE-CANCEL-1',
      cancel ? `the client cancelled the abandoned call ${JSON.stringify(callId)} with ${String(cancel.method)}` : `the client sent no cancellation for the abandoned call ${JSON.stringify(callId)}`,
      cancel,
    );
    await server.untilExit();
    checkEveryCancel(ctx, { cancel: false, cancelled: true });
  },
});

const cancelsInFlightOnly = defineCase({
  id: 'cancellation/cancels-name-in-flight-requests',
  suite: SUITE,
  title: 'WT-CANCEL-6, CORE-CANCEL-1, CORE-CANCEL-3: a client that aborts nothing cancels nothing it did not send or that was already answered',
  requirements: ['WT-CANCEL-6', 'CORE-CANCEL-1', 'CORE-CANCEL-3'],
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 2 } },
  async run(ctx) {
    await servedSession(ctx);
    checkEveryCancel(ctx, { cancel: ctx.connection.kind === 'webtransport', cancelled: true });
    if (ctx.connection.kind !== 'webtransport') ctx.info('WT-CANCEL-6', '$/cancel exists only over WebTransport');
  },
});

export const cases: readonly ConformanceCase[] = [abortSendsCancel, abortOverHttp, cancelsInFlightOnly];
