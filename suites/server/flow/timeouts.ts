// Suite `timeouts`: MCP Flow session timeouts (000 §Timeouts). A session is started with a short
// `timeout`, left inactive once it waits for the user, and then: a warning naming the session
// comes before it expires (C-22), and afterwards requests naming it get -32002 SESSION_EXPIRED
// (-32001 once cleaned up is accepted). A missing warning is a WARN (000's SHOULD), decided when
// the session expires.
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { FLOW_ERROR } from '../../../src/protocol/error-codes.js';
import { FLOW_METHOD } from '../../../src/protocol/methods.js';
import { isRecord } from '../../../src/wire/index.js';
import { errorOf, openSession, requiresInteractiveTool, setupRequest, type Message } from '../../support/session.js';
import { firstPrompt, startInteraction, validValue, type FlowSession } from '../../support/flow.js';

const SUITE = 'timeouts';

/**
 * The inactivity timeout the warning case asks for, in ms (server time: not stretched by
 * --timeout-scale): long enough that a warning sent a fifth of it before the expiry (the mock's
 * lead) still arrives before the expiry on a busy machine.
 */
export const SHORT_TIMEOUT_MS = 1_500;
/** How late (before --timeout-scale) a message may be stamped after the expiry as timed here and still count as sent before it. */
const DELIVERY_SLACK_MS = 300;
/** The inactivity timeout the expiry case asks for: any positive integer is a timeout (000 §Timeouts); the case sleeps through it. */
export const EXPIRY_TIMEOUT_MS = 500;
/** Extra wait past the timeout before the session must be gone (before --timeout-scale). */
export const EXPIRY_MARGIN_MS = 1_000;

/** Asks for every log level when the target offers logging, so that a warning notification can reach us. */
async function enableLogging(ctx: CaseContext, initialize: Message): Promise<void> {
  const capabilities = isRecord(initialize.capabilities) ? initialize.capabilities : {};
  if (Object.hasOwn(capabilities, 'logging')) await setupRequest(ctx, 'logging/setLevel', { level: 'debug' });
}

/**
 * Starts a session with the short timeout and takes its first prompt; returns the session and the
 * moment (local clock) from which it is inactive: after the last message it sent us.
 */
async function startShortSession(ctx: CaseContext, timeoutMs: number): Promise<{ session: FlowSession; idleSince: number; prompt: Message }> {
  const session = await startInteraction(ctx, { params: { timeout: timeoutMs } });
  const first = await firstPrompt(ctx, session);
  return { session, idleSince: first.event?.received.at ?? Date.now(), prompt: first.prompt };
}

/** Whether `message` names the session anywhere in it (C-22: any server message that carries the sessionId). */
function mentions(message: unknown, sessionId: string): boolean {
  return JSON.stringify(message)?.includes(JSON.stringify(sessionId)) ?? false;
}

/** Which accepted reading of C-22 a warning is. */
/** FLOW-TIMEOUT-4's reading a warning shows: 1 notifications/message at level warning, 2 any other message naming the session. */
function warningReading(message: Message): 1 | 2 {
  const params = isRecord(message.params) ? message.params : {};
  return message.method === 'notifications/message' && params.level === 'warning' ? 1 : 2;
}

/** The first message the target sent that names `sessionId` without being a response (a C-22 warning reading), if any. */
function receivedNaming(ctx: CaseContext, sessionId: string): Message | undefined {
  for (const entry of ctx.connection.transcript.entries()) {
    const message = entry.decoded;
    if (entry.direction !== 'received' || !isRecord(message) || typeof message.method !== 'string') continue;
    if (message.method === 'notifications/message' && JSON.stringify(message.params ?? null).includes(sessionId)) return message;
  }
  return undefined;
}

const expires = defineCase({
  id: 'timeouts/session-expires-after-timeout',
  suite: SUITE,
  title: `a session started with timeout ${EXPIRY_TIMEOUT_MS} ms and left waiting for the user longer than that has expired: getState and respond get -32002 SESSION_EXPIRED with data.sessionId`,
  requirements: ['FLOW-TIMEOUT-1', 'FLOW-TIMEOUT-2'],
  applies: requiresInteractiveTool,
  sleeps: true,
  async run(ctx) {
    await openSession(ctx);
    const { session, idleSince, prompt } = await startShortSession(ctx, EXPIRY_TIMEOUT_MS);
    await ctx.sleep(Math.max(0, idleSince + EXPIRY_TIMEOUT_MS - Date.now()) + ctx.scaled(EXPIRY_MARGIN_MS), 'the session to expire');
    const state = await ctx.request('FLOW-TIMEOUT-1', FLOW_METHOD.getState, { sessionId: session.sessionId }, { what: 'interaction.getState of the expired session' });
    if (state === undefined) return;
    const survived = isRecord(state.result);
    ctx.check('FLOW-TIMEOUT-2', !survived, {
      message: `the session expires after the ${EXPIRY_TIMEOUT_MS} ms timeout interaction.start gave it`,
      expected: { error: { code: FLOW_ERROR.SESSION_EXPIRED } },
      actual: state,
    });
    if (survived) {
      // A server that announced the expiry (C-22 warning naming the session) has shown its timeout ran out.
      const warning = receivedNaming(ctx, session.sessionId);
      if (warning !== undefined) {
        ctx.check('FLOW-TIMEOUT-1', false, {
          message: 'the server warned that the session would expire, yet after the timeout interaction.getState answers it as alive',
          expected: { error: { code: FLOW_ERROR.SESSION_EXPIRED, data: { sessionId: session.sessionId } } },
          actual: { warning, getState: state },
        });
        return;
      }
      // The target may apply its own (longer, e.g. the default 5 minutes) timeout; FLOW-TIMEOUT-1 cannot be judged in a short case.
      ctx.info('FLOW-TIMEOUT-1', 'not judged: the session did not take the requested timeout (FLOW-TIMEOUT-2), and its own timeout is unknown', state);
      return;
    }
    const value = validValue(prompt);
    const answer = await ctx.request('FLOW-TIMEOUT-1', FLOW_METHOD.respond, { sessionId: session.sessionId, response: { value: value ?? null } }, {
      what: 'interaction.respond on the expired session',
    });
    for (const [what, reply] of [
      ['interaction.getState', state],
      ['interaction.respond', answer],
    ] as const) {
      if (reply === undefined) continue;
      // data.sessionId is FLOW-ERR-2's, judged where a case owns it.
      const code = errorOf(reply)?.code;
      if (
        ctx.check('FLOW-TIMEOUT-1', code === FLOW_ERROR.SESSION_EXPIRED || code === FLOW_ERROR.SESSION_NOT_FOUND, {
          message: `${what} naming the expired session is answered -32002 SESSION_EXPIRED (or -32001 once cleaned up)`,
          expected: { error: { code: FLOW_ERROR.SESSION_EXPIRED, data: { sessionId: session.sessionId } } },
          actual: reply,
        })
      ) {
        ctx.reading('FLOW-TIMEOUT-1', code === FLOW_ERROR.SESSION_EXPIRED ? 1 : 2, what);
      }
    }
  },
});

const warns = defineCase({
  id: 'timeouts/warning-before-expiry',
  suite: SUITE,
  title: `before a session started with timeout ${SHORT_TIMEOUT_MS} ms expires, the server sends a message naming the session (a warning, C-22)`,
  requirements: ['FLOW-TIMEOUT-4'],
  applies: requiresInteractiveTool,
  // It waits for the target's timer, like a sleep: started first, so that the wait overlaps the other cases.
  sleeps: true,
  async run(ctx) {
    const initialize = await openSession(ctx);
    await enableLogging(ctx, initialize);
    const { session, idleSince } = await startShortSession(ctx, SHORT_TIMEOUT_MS);
    const expiresAt = idleSince + SHORT_TIMEOUT_MS;
    let warning: Message | undefined;
    // The expiry as timed here comes after the target's own (its clock started before its answer
    // left), but what the target sent before its expiry may still be stamped after ours when this
    // side's event loop lags (a loaded machine): a message stamped within DELIVERY_SLACK_MS of the
    // expiry was sent before it. One sent at the expiry itself arrives later still.
    const slackMs = ctx.scaled(DELIVERY_SLACK_MS);
    const timeoutMs = Math.max(0, expiresAt - Date.now()) + 2 * slackMs;
    try {
      // Only what arrives before the expiry counts; wait for it (plus delivery slack), not longer.
      const received = await ctx.connection.next((r) => mentions(r.message, session.sessionId), { timeoutMs, signal: ctx.signal });
      if (received.at <= expiresAt + slackMs) {
        warning = received.message as Message;
        if (received.at > expiresAt) ctx.note(`the message naming the session was stamped ${received.at - expiresAt} ms after the expiry as timed here, within the ${slackMs} ms delivery slack`);
      } else ctx.note(`the first message naming the session came ${received.at - expiresAt} ms after the session's expiry`);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      ctx.waited('deadline', 'a warning naming the session before it expires', timeoutMs);
    }
    if (ctx.check('FLOW-TIMEOUT-4', warning !== undefined, {
      message: 'a server message naming the session arrives before the session expires',
      expected: 'e.g. notifications/message at level warning with the sessionId in data',
      actual: warning ?? 'no message named the session before it expired',
    }) && warning !== undefined) {
      ctx.reading('FLOW-TIMEOUT-4', warningReading(warning), String(warning.method ?? 'a response'), warning);
    }
  },
});

export const cases: readonly ConformanceCase[] = [expires, warns];
