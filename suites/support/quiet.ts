// Deciding that something did not come without waiting longer than the target needs.
//
// Silence by ordering: on an ordered channel (stdio, the WebTransport control stream) the target
// reads what the case sent in order and writes its answers in order, so a ping sent after the
// message under test is answered after whatever the target sent in reaction to that message. Once
// the ping's answer is in, nothing owed before it can still come.
//
// Streamable HTTP is not ordered (each POST is served on its own, concurrently), but each POST
// carries its own answer: once every POST of the connection has been answered (202, a JSON body,
// an error status, or an event stream to its end), nothing more is owed for them.
//
// Where neither applies, or the documents let the target send on its own schedule, a window from
// the target's speed decides (`ctx.quietMs`), recorded in the case's result as silence waited out.
import type { CaseContext } from '../../src/harness/index.js';
import { request } from '../../src/protocol/jsonrpc.js';
import type { ReceivedMessage } from '../../src/transport/connection.js';
import { ConnectionError, ConnectionTimeoutError } from '../../src/transport/errors.js';
import type { TranscriptEntry } from '../../src/transport/transcript.js';
import { isRecord } from '../../src/wire/index.js';

/** How long the barrier ping may take to be answered (before --timeout-scale). */
const BARRIER_MS = 5_000;
/** How often the transcript is looked at while POSTs are still unanswered. */
const POLL_MS = 5;

/** Whether the target's messages reach the case in the order it sent them, after what it read before (stdio, the WebTransport control stream). */
export function orderedChannel(ctx: CaseContext): boolean {
  return ctx.connection.kind === 'stdio' || ctx.connection.kind === 'webtransport';
}

/**
 * Silence by ordering: sends a ping (with an integer id: WebTransport headers carry integers) and
 * waits for its answer, a result or an error, then does it once more. On an ordered channel
 * whatever the target sent in reaction to earlier messages has then arrived (and stays queued);
 * the second round trip lets in what it wrote after an await of its own while the first ping was
 * answered (a second answer written once the first was out). False when no answer came within
 * BARRIER_MS or the connection closed: the caller then falls back on a window.
 */
export async function pingBarrier(ctx: CaseContext): Promise<boolean> {
  try {
    for (let round = 0; round < 2; round++) {
      const id = ctx.nextId();
      await ctx.connection.send(request(id, 'ping'));
      await ctx.next((r) => isRecord(r.message) && !('method' in r.message) && r.message.id === id, { timeoutMs: BARRIER_MS });
    }
    return true;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof ConnectionError) return false;
    throw error;
  }
}

function isPost(entry: TranscriptEntry): boolean {
  return entry.channel.kind === 'http' && entry.channel.method === 'POST';
}

/**
 * Whether `entry` completes the answer to a POST: a whole body (JSON, an error status, nothing),
 * or the end of the event stream the POST was answered with (the stream's start and events do not).
 */
function completesAnswer(entry: TranscriptEntry): boolean {
  if (entry.direction !== 'received' || !isPost(entry) || entry.channel.kind !== 'http') return false;
  if (entry.note === 'SSE stream ended') return true;
  const type = entry.channel.headers?.['content-type']?.split(';')[0]?.trim().toLowerCase();
  return type !== 'text/event-stream';
}

/**
 * Whether every POST of the connection has been answered (an event stream: to its end). All of
 * them: the answers carry no mark of their POST, so one still coming for an earlier POST must not
 * pass for the answer to a later one.
 */
export function postsAnswered(ctx: CaseContext): boolean {
  let sent = 0;
  let answered = 0;
  for (const entry of ctx.connection.transcript.entries()) {
    if (entry.direction === 'sent' && isPost(entry)) sent++;
    else if (completesAnswer(entry)) answered++;
  }
  return answered >= sent;
}

/**
 * Waits until every POST of the connection has been answered (Streamable HTTP: each POST gets an
 * answer), at most `windowMs` (before --timeout-scale); true when they all were. A wait that runs
 * out is recorded as silence (`what`).
 */
export async function untilPostsAnswered(ctx: CaseContext, windowMs: number, what: string): Promise<boolean> {
  const began = Date.now();
  const until = began + ctx.scaled(windowMs);
  for (;;) {
    if (postsAnswered(ctx)) return true;
    if (ctx.connection.isClosed) return false;
    const left = until - Date.now();
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
    ctx.signal.throwIfAborted();
  }
  ctx.waited('silence', what, Date.now() - began);
  return false;
}

/**
 * Waits until whatever the target sends in reaction to what the case sent so far would have
 * arrived: on an ordered channel a barrier ping; elsewhere (Streamable HTTP, where the target's own
 * messages may come on the GET stream at any time), or when the barrier got no answer, a window of
 * ctx.quietMs(windowMs). Everything that arrived stays queued.
 */
export async function settleReactions(ctx: CaseContext, windowMs: number, what: string): Promise<void> {
  if (orderedChannel(ctx) && (await pingBarrier(ctx))) return;
  await quietWindow(ctx, windowMs, what);
}

/** Waits ctx.quietMs(windowMs) (ends early with the case), recorded as silence (`what`). Everything that arrives stays queued. */
export async function quietWindow(ctx: CaseContext, windowMs: number, what: string): Promise<void> {
  const ms = ctx.scaled(ctx.quietMs(windowMs));
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    ctx.signal.addEventListener('abort', done, { once: true });
  });
  ctx.signal.throwIfAborted();
  // A timer that fired late on a busy machine runs ahead of input that arrived meanwhile: let it in.
  await new Promise((resolve) => setImmediate(resolve));
  ctx.waited('silence', what, ms);
}

/** Takes every queued message matching `predicate`, in arrival order. */
export async function takeQueued(ctx: CaseContext, predicate: (received: ReceivedMessage) => boolean): Promise<ReceivedMessage[]> {
  const matching = ctx.connection.pending().filter(predicate);
  const taken: ReceivedMessage[] = [];
  for (const received of matching) taken.push(await ctx.connection.next((r) => r === received));
  return taken;
}

/**
 * The first of `waits` to come, or `{ kind: 'quiet' }` when every one ran out its deadline; `local`
 * (whose signal the waits listen to) is aborted after, so none outlives the answer.
 */
export async function firstOrQuiet<T>(ctx: CaseContext, waits: readonly Promise<T>[], local: AbortController): Promise<T | { kind: 'quiet' }> {
  try {
    return await Promise.any(waits);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const reasons = error instanceof AggregateError ? error.errors : [error];
    if (reasons.every((e) => e instanceof ConnectionTimeoutError)) return { kind: 'quiet' };
    throw reasons.find((e) => !(e instanceof ConnectionTimeoutError));
  } finally {
    local.abort();
  }
}
