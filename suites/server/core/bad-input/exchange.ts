// bad-input: one garbage exchange: send something broken, then ping, and collect the error the
// garbage got and whether the ping was still answered. A mismatch is a typed BadInputMismatch so
// that a property's counterexample names what was wrong.
import type { CaseContext } from '../../../../src/harness/index.js';
import type { HttpRefusal, ReceivedMessage } from '../../../../src/transport/connection.js';
import { ConnectionClosedError, ConnectionTimeoutError } from '../../../../src/transport/errors.js';
import { isRecord } from '../../../../src/wire/index.js';
import { isResponseTo, request, type Message } from '../../../support/session.js';
import { orderedChannel, postsAnswered, takeQueued } from '../../../support/quiet.js';

/** How long the ping after a garbage message may take, before --timeout-scale. */
export const PING_MS = 5_000;
/**
 * Over Streamable HTTP, how long an answer to the garbage may trail the ping's, before
 * --timeout-scale (shortened from the target's speed; it ends as soon as the answer or the POST's
 * HTTP refusal is in). Stdio and the WebTransport control stream are ordered: nothing trails there.
 */
export const TRAIL_MS = 200;
/** How often the HTTP refusals are looked at while an answer may trail. */
const REFUSAL_POLL_MS = 10;


/** A garbage message got an answer other than the one the profile requires. */
export class BadInputMismatch extends Error {
  readonly code = 'BAD_INPUT_MISMATCH';
  readonly actual: unknown;
  constructor(message: string, actual?: unknown) {
    super(message);
    this.name = 'BadInputMismatch';
    this.actual = actual;
  }
}

export interface GarbageOutcome {
  /** Error responses that arrived (other than to the ping). */
  errors: Message[];
  /** Other answers that arrived (results to something we did not ask, e.g. a served garbage request). */
  results: Message[];
  pingAnswered: boolean;
  /** The connection closed meanwhile. */
  closed: boolean;
  /**
   * Streamable HTTP: POSTs of `send` that the server answered with an HTTP error status (413 for a
   * large body, an HTML 400 page...). Over HTTP that status is the answer; its body is free.
   */
  refusals: HttpRefusal[];
  /** The status of the first of `refusals`: the transport's own refusal, not judged as a JSON-RPC answer. */
  status?: number;
}

/** The ids of the barrier pings `sendThenPing` sent on each connection. */
const barrierPings = new WeakMap<object, Set<number>>();

/** Runs `send`, then pings, and collects what came back until the ping's answer (over Streamable HTTP, a little longer for an answer that trails it). */
export async function sendThenPing(ctx: CaseContext, send: () => Promise<void>): Promise<GarbageOutcome> {
  const outcome: GarbageOutcome = { errors: [], results: [], pingAnswered: false, closed: false, refusals: [] };
  const http = ctx.connection.http;
  const refusedBefore = http?.refusals().length ?? 0;
  let ping: string | number | undefined;
  const barriers = barrierPings.get(ctx.connection) ?? new Set<number>();
  barrierPings.set(ctx.connection, barriers);
  const take = (m: unknown) => {
    // The answers to barrier pings (a second one from a faulty target included) are no answer to garbage.
    if (isRecord(m) && barriers.has(m.id as number)) return;
    if (isRecord(m) && !('method' in m) && 'error' in m) outcome.errors.push(m);
    else if (isRecord(m) && !('method' in m) && 'result' in m) outcome.results.push(m);
  };
  try {
    await send();
    ping = ctx.nextId();
    await ctx.connection.send(request(ping, 'ping'));
    const until = Date.now() + ctx.scaled(PING_MS);
    for (;;) {
      const left = until - Date.now();
      if (left <= 0) break;
      let received: ReceivedMessage;
      try {
        received = await ctx.next(undefined, { timeoutMs: left / ctx.scaled(1) });
      } catch (error) {
        if (error instanceof ConnectionTimeoutError) break;
        throw error;
      }
      const m = received.message;
      if (!isResponseTo(m, ping)) {
        take(m);
        continue;
      }
      outcome.pingAnswered = true;
      if (outcome.errors.length > 0 || outcome.results.length > 0) break;
      if (orderedChannel(ctx)) {
        // Silence by ordering: on stdio and the WebTransport control stream the target answers in
        // the order it reads, so an answer to the garbage would have come before the ping's; one
        // more ping lets in what it wrote after an await of its own. What comes meanwhile is taken
        // as the trail was (a second answer to the ping is no answer to the garbage).
        const barrier = ctx.nextId();
        barriers.add(barrier);
        await ctx.connection.send(request(barrier, 'ping'));
        for (;;) {
          let trailing: ReceivedMessage;
          try {
            trailing = await ctx.next(undefined, { timeoutMs: Math.max(0, until - Date.now()) / ctx.scaled(1) });
          } catch (error) {
            if (error instanceof ConnectionTimeoutError) break;
            throw error;
          }
          if (isResponseTo(trailing.message, barrier)) break;
          if (!isResponseTo(trailing.message, ping)) take(trailing.message);
        }
        break;
      }
      // Streamable HTTP: the garbage's POST is served concurrently with the ping's, and its answer
      // may trail the ping's: wait for it (an error or result, or an HTTP refusal of the POST) at
      // most a window from the target's speed, or until every POST has its whole answer (a
      // response comes only in its POST's answer, never alone on the GET stream: MCP transports).
      const trail = Date.now() + ctx.scaled(ctx.quietMs(TRAIL_MS));
      while (outcome.errors.length === 0 && outcome.results.length === 0 && (http?.refusals().length ?? 0) === refusedBefore) {
        if (postsAnswered(ctx)) {
          for (const queued of await takeQueued(ctx, (r) => isRecord(r.message) && !('method' in r.message))) {
            if (!isResponseTo(queued.message, ping)) take(queued.message);
          }
          break;
        }
        const left = trail - Date.now();
        if (left <= 0) {
          ctx.waited('silence', 'an answer to the garbage trailing the ping\'s', ctx.scaled(ctx.quietMs(TRAIL_MS)));
          break;
        }
        try {
          const trailing = await ctx.connection.next((r) => isRecord(r.message) && !('method' in r.message), { timeoutMs: Math.min(left, REFUSAL_POLL_MS), signal: ctx.signal });
          // A second answer to the ping is no answer to the garbage.
          if (!isResponseTo(trailing.message, ping)) take(trailing.message);
        } catch (error) {
          if (!(error instanceof ConnectionTimeoutError)) throw error;
        }
      }
      break;
    }
  } catch (error) {
    if (!(error instanceof ConnectionClosedError)) throw error;
    outcome.closed = true;
  }
  if (http) outcome.refusals = http.refusals().slice(refusedBefore).filter((refusal) => ping === undefined || !refusal.requestIds.includes(ping));
  // A 4xx/5xx refusal, with or without a JSON-RPC error in its body, is the transport's refusal.
  if (outcome.refusals.length > 0) outcome.status = outcome.refusals[0]!.status;
  return outcome;
}

/** Whether the outcome holds no answer to the garbage at all (no error, no result, no HTTP refusal). */
export function unanswered(outcome: GarbageOutcome): boolean {
  return outcome.errors.length === 0 && outcome.results.length === 0 && outcome.status === undefined;
}

/** Throws BadInputMismatch unless `outcome` holds exactly an error with one of `codes` and `id`. */
export function expectError(outcome: GarbageOutcome, what: string, codes: readonly number[], id: ReadonlyArray<string | number | null>): Message {
  if (outcome.closed) throw new BadInputMismatch(`the connection closed after ${what}`);
  const error = outcome.errors[0];
  if (!error) {
    throw new BadInputMismatch(`${what} got no error answer (expected ${codes.join(' or ')})`, outcome.results[0] ?? 'no answer');
  }
  const code = isRecord(error.error) ? error.error.code : undefined;
  if (!codes.includes(code as number)) throw new BadInputMismatch(`${what} was answered with error ${String(code)}, expected ${codes.join(' or ')}`, error);
  if (!id.includes(error.id as string | number | null)) {
    throw new BadInputMismatch(`${what} was answered with id ${JSON.stringify(error.id)}, expected ${id.map((i) => JSON.stringify(i)).join(' or ')}`, error);
  }
  return error;
}

/**
 * Tracks pings after garbage that went unanswered, for one CORE-RPC-16 check at the end. A ping
 * that never reached an open connection (the server closed it) is not counted: closing is judged
 * by the case (CORE-RPC-17).
 */
export class PingTally {
  runs = 0;
  unanswered = 0;
  /** The first few inputs after which ping went unanswered. */
  readonly examples: string[] = [];
  record(outcome: GarbageOutcome, what: string): void {
    this.runs++;
    if (outcome.pingAnswered || outcome.closed) return;
    this.unanswered++;
    if (this.examples.length < 5) this.examples.push(what);
  }
  check(ctx: CaseContext, requirement = 'CORE-RPC-16'): void {
    ctx.check(requirement, this.unanswered === 0, {
      message: `ping was answered after each of the ${this.runs} garbage input(s)`,
      expected: 'a ping result every time',
      ...(this.unanswered ? { actual: { unanswered: this.unanswered, after: this.examples } } : {}),
    });
  }
}

/** What the garbage of one case got, beyond what the property itself judges. */
export class GarbageTally {
  /** Inputs left unanswered or answered by closing the connection (CORE-RPC-17). */
  readonly silent: string[] = [];
  /** Inputs that parsed but got -32700 (CORE-ERR-1). */
  readonly parseErrors: Array<{ what: string; answer: Message }> = [];
  /** What the inputs got -> how many showed it, and the accepted reading of the reported requirement it is (its number in `accepts`), if one. */
  readonly readings = new Map<string, { count: number; reading: number | undefined }>();
  /** Counts one input that got `name`: accepted reading number `reading` of the requirement `report` names, or only a note. */
  reading(name: string, reading?: number): void {
    const seen = this.readings.get(name);
    if (seen) seen.count++;
    else this.readings.set(name, { count: 1, reading });
  }
  /** Reports the readings (each accepted one with ctx.reading, the rest as one note) and CORE-RPC-17 (WARN when garbage went unanswered). */
  report(ctx: CaseContext, requirement: string): void {
    const notes: string[] = [];
    for (const [name, { count, reading }] of this.readings) {
      if (reading === undefined) notes.push(`${name} (${count})`);
      else ctx.reading(requirement, reading, `${name}: ${count} input(s)`);
    }
    if (notes.length > 0) ctx.info(requirement, `also seen: ${notes.join('; ')}`);
    ctx.check('CORE-RPC-17', this.silent.length === 0, {
      message: 'every input that is not a valid request is answered with an error (not dropped, not answered by closing)',
      expected: 'an error response for each',
      ...(this.silent.length ? { actual: { unanswered: this.silent.length, after: this.silent.slice(0, 5) } } : {}),
    });
  }
}
