// A call that is still running when the cancellation cases cancel it, for targets whose only way
// to keep a request in flight is a tool that reports progress (support/in-flight.ts, second
// choice). A call answered right after a cancel may have raced it (C-02); a call that was seen
// running with most of its work still ahead, and then answers with its result, ignored the cancel.
//
// The rule: the slowest progress-reporting tool is called with arguments that make it last (its
// numeric duration, size and step parameters raised toward the maximum its input schema allows,
// a rung at a time), until its progress shows it still running: two progress notifications or more
// for the call, no answer, the last one short of its total, and the steps still ahead taking at
// least RUNNING_MARGIN_MS at the pace the reports showed (reports delivered together show none).
// After the cancel the case waits for the answer until the work would surely have ended (a target
// that ignored the cancel answers then).
import type { CaseContext } from '../../src/harness/index.js';
import type { ReceivedDatagram, ReceivedMessage } from '../../src/transport/connection.js';
import { ConnectionTimeoutError } from '../../src/transport/errors.js';
import { DatagramChannel, isRecord } from '../../src/wire/index.js';
import { isResponseTo, type Message } from './session.js';
import { firstOrQuiet } from './quiet.js';

/** The least time the work must still have ahead, at the pace its progress shows, for the call to count as running (before --timeout-scale). */
export const RUNNING_MARGIN_MS = 1_000;

/** How many times the arguments are raised before the case gives up confirming a running call. */
export const LASTING_RUNGS = 3;

/** The factor each rung multiplies a work parameter by. */
export const RUNG_FACTOR = 4;

/** The largest value a work parameter is raised to when its schema gives no maximum. */
export const LASTING_CAP = 1_000_000;

/** Names of numeric parameters that size the work of a call: a duration, a delay, a number of steps, a size. */
const WORK_PARAMETER = /(duration|seconds?|secs?|ms|millis(econds)?|delay|wait|sleep|interval|steps?|count|iterations?|rounds?|repeats?|times|size|bytes|length|items|rows)$/i;

/** Whether a property name and schema make it a work parameter (a timeout bounds the work, it does not size it). */
function isWorkParameter(name: string, schema: unknown): schema is Record<string, unknown> {
  if (!isRecord(schema) || /timeout/i.test(name)) return false;
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  return (type.includes('integer') || type.includes('number')) && WORK_PARAMETER.test(name.replace(/[_-]/g, ''));
}

/**
 * `base` (the call's arguments) with every numeric work parameter of `schema`, given or not,
 * raised to its base (its given value, else its default, else 1) times RUNG_FACTOR^rung, within
 * what the schema allows. Rung 0 only fills in the defaults of the work parameters left out.
 */
export function lastingArguments(schema: unknown, base: Record<string, unknown>, rung: number): Record<string, unknown> {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  const args = { ...base };
  for (const [name, property] of Object.entries(properties)) {
    if (!isWorkParameter(name, property)) continue;
    const given = typeof args[name] === 'number' ? (args[name] as number) : typeof property.default === 'number' ? property.default : undefined;
    if (given === undefined && rung === 0) continue;
    const start = given !== undefined && given > 0 ? given : 1;
    const min = typeof property.minimum === 'number' ? property.minimum : typeof property.exclusiveMinimum === 'number' ? property.exclusiveMinimum + 1 : 0;
    const max = typeof property.maximum === 'number' ? property.maximum : typeof property.exclusiveMaximum === 'number' ? property.exclusiveMaximum - 1 : LASTING_CAP;
    let value = Math.max(min, Math.min(max, start * RUNG_FACTOR ** rung));
    const integer = (Array.isArray(property.type) ? property.type : [property.type]).includes('integer') && !(Array.isArray(property.type) && property.type.includes('number'));
    if (integer) value = Math.floor(value);
    args[name] = value;
  }
  return args;
}

/** Whether any work parameter of `schema` can still grow past rung `rung`. */
export function canLastLonger(schema: unknown, base: Record<string, unknown>, rung: number): boolean {
  return JSON.stringify(lastingArguments(schema, base, rung)) !== JSON.stringify(lastingArguments(schema, base, rung + 1));
}

/** One progress report of a call: its values, and when it arrived. */
export interface ProgressSeen {
  progress: number;
  total?: number;
  at: number;
}

/** The progress values of a notifications/progress params object or a progress datagram payload. */
function progressValues(params: unknown, at: number): ProgressSeen | undefined {
  if (!isRecord(params) || typeof params.progress !== 'number') return undefined;
  return { progress: params.progress, ...(typeof params.total === 'number' ? { total: params.total } : {}), at };
}

/** What a watched call did next. */
export type CallStep = { kind: 'answer'; answer: Message } | { kind: 'progress'; seen: ProgressSeen } | { kind: 'quiet' };

/**
 * The next thing call `id` (progress token `token`) does within `timeoutMs` (already scaled): its
 * answer, or a progress report (a notification, or over WebTransport a progress datagram).
 */
export async function nextStep(ctx: CaseContext, call: { id: number; progressToken: string }, timeoutMs: number): Promise<CallStep> {
  const local = new AbortController();
  const signal = AbortSignal.any([ctx.signal, local.signal]);
  const isProgress = (m: unknown) => isRecord(m) && m.method === 'notifications/progress' && isRecord(m.params) && m.params.progressToken === call.progressToken;
  const waits: Promise<CallStep>[] = [
    ctx.connection.next((r: ReceivedMessage) => isResponseTo(r.message, call.id) || isProgress(r.message), { timeoutMs, signal }).then((r): CallStep => {
      const message = r.message as Message;
      if (isResponseTo(message, call.id)) return { kind: 'answer', answer: message };
      const params = (r.message as Record<string, unknown>)['params'];
      return { kind: 'progress', seen: progressValues(params, r.at) ?? { progress: Number.NaN, at: r.at } };
    }),
  ];
  const wt = ctx.connection.webtransport;
  if (wt) {
    waits.push(
      wt
        .nextDatagram((d) => d.channel === DatagramChannel.progress && d.requestId === call.id, { timeoutMs, signal })
        .then((d: ReceivedDatagram): CallStep => ({ kind: 'progress', seen: progressValues(d.decoded, d.at) ?? { progress: Number.NaN, at: d.at } })),
    );
  }
  return firstOrQuiet(ctx, waits, local);
}

/** How a call was seen running: its last progress report, and the time its remaining steps need at the pace its reports showed. */
export interface Running {
  last: ProgressSeen;
  /** Mean time between its progress reports, in ms (at least 1). */
  intervalMs: number;
  /** (total - progress) steps at that pace, in ms. */
  remainingMs: number;
}

/**
 * The shortest span of progress reports that shows a pace, in ms: reports that arrive closer
 * together came in one delivery (a loaded machine, a transport's batching), whatever the pace of
 * the work that made them.
 */
export const PACE_SPAN_MS = 20;

/**
 * What the progress reports of a call seen so far (in arrival order, two or more) show: running
 * (no answer yet, the last short of its total with `marginMs` or more of work ahead at the pace
 * from the first report to the last), too short, no total, or nothing yet ('watch': reports that
 * arrived within PACE_SPAN_MS of each other show no pace; the next ones, or the answer, will).
 */
export function judgePace(seen: readonly ProgressSeen[], marginMs: number): { running: Running } | { not: 'too-short' | 'no-total' } | 'watch' {
  if (seen.length < 2) return 'watch';
  const first = seen[0]!;
  const last = seen.at(-1)!;
  if (last.total === undefined || !Number.isFinite(last.progress) || !Number.isFinite(first.progress)) return { not: 'no-total' };
  const stepsLeft = last.total - last.progress;
  const spanMs = last.at - first.at;
  if (stepsLeft > 0 && spanMs < PACE_SPAN_MS) return 'watch';
  const intervalMs = Math.max(1, spanMs / (seen.length - 1));
  const perStep = last.progress > first.progress ? spanMs / (last.progress - first.progress) : intervalMs;
  const remainingMs = stepsLeft * perStep;
  return stepsLeft > 0 && remainingMs >= marginMs ? { running: { last, intervalMs, remainingMs } } : { not: 'too-short' };
}

/** Watches a call until its progress shows whether it is running (judgePace, with RUNNING_MARGIN_MS): the Running estimate, or why not. */
export async function confirmRunning(ctx: CaseContext, call: { id: number; progressToken: string }, windowMs: number): Promise<{ running: Running } | { not: 'answered' | 'quiet' | 'too-short' | 'no-total'; answer?: Message }> {
  const seen: ProgressSeen[] = [];
  for (;;) {
    const step = await nextStep(ctx, call, ctx.scaled(windowMs));
    if (step.kind === 'answer') return { not: 'answered', answer: step.answer };
    if (step.kind === 'quiet') return { not: 'quiet' };
    seen.push(step.seen);
    const judged = judgePace(seen, ctx.scaled(RUNNING_MARGIN_MS));
    if (judged !== 'watch') return judged;
  }
}

/**
 * After a cancel of a running call: its answer, if one comes before its work would surely have
 * ended (twice the remaining time its progress showed, for a machine under load, and one more
 * quiet period), else undefined. A call may go quiet and still answer at its end (over WebTransport the binding may
 * drop progress datagrams of a cancelled request), so the whole span is watched.
 */
export async function answerAfterCancel(ctx: CaseContext, call: { id: number }, running: Running, quietMs: number): Promise<Message | undefined> {
  const span = running.remainingMs * 2 + Math.max(ctx.scaled(quietMs), 2 * running.intervalMs);
  try {
    return (await ctx.connection.next((r) => isResponseTo(r.message, call.id), { timeoutMs: span, signal: ctx.signal })).message as Message;
  } catch (error) {
    if (error instanceof ConnectionTimeoutError) return undefined;
    throw error;
  }
}
