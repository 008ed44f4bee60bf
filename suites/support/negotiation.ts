// Support for the `lifecycle` and `negotiation` suites: an initialize whose answer may come in the
// wrong encoding (WebTransport), a generic sweep over the target's tools that gives a server reasons
// to send its own requests, generic answers to those requests, and a structural CBOR reader that
// sees what a decoded value hides (integer or float, tags, key types).
import type { CaseContext } from '../../src/harness/index.js';
import type { ConnectionFault, ReceivedMessage } from '../../src/transport/connection.js';
import { ConnectionClosedError, ConnectionTimeoutError } from '../../src/transport/errors.js';
import { isRecord } from '../../src/wire/index.js';
import { walkCbor } from './cbor-items.js';
import { errorResponse, isResponseTo, request, resultResponse, SETUP_ANSWER_MS, type Message } from './session.js';
import { argumentsFor, listedTool, type ListedTool } from './tools.js';

/** How often a wait for an answer looks at the connection's faults (before --timeout-scale). */
const FAULT_POLL_MS = 100;

/** What became of a request whose answer might not decode (an answer in the wrong encoding). */
export interface WireAnswer {
  /** The response, when one arrived and decoded. */
  answer?: Message;
  /** The encoding it arrived in (WebTransport). */
  encoding?: 'json' | 'cbor';
  /** The body bytes it arrived in, where the transport has them. */
  body?: Uint8Array;
  /** Frames the connection could not read while waiting (e.g. ENCODING_MISMATCH). */
  faults: ConnectionFault[];
  /** The connection ended before an answer came. */
  closed: boolean;
}

/**
 * Waits for the response to `id`, but gives up early when the connection records a frame it could
 * not read (the answer came in the wrong encoding) or closes. Never records a check itself.
 */
export async function awaitWireAnswer(ctx: CaseContext, id: string | number, timeoutMs = SETUP_ANSWER_MS): Promise<WireAnswer> {
  const faultsBefore = ctx.connection.faults().length;
  const deadline = Date.now() + ctx.scaled(timeoutMs);
  for (;;) {
    const newFaults = ctx.connection.faults().slice(faultsBefore);
    // Once a fault surfaced, a little longer for a readable answer, then report what was seen.
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { faults: [...newFaults], closed: ctx.connection.isClosed };
    try {
      const received = await ctx.connection.next((r) => isResponseTo(r.message, id), {
        timeoutMs: Math.min(remaining, ctx.scaled(FAULT_POLL_MS)),
        signal: ctx.signal,
      });
      return {
        answer: received.message as Message,
        ...(received.encoding !== undefined ? { encoding: received.encoding } : {}),
        ...(received.body !== undefined ? { body: received.body } : {}),
        faults: [...ctx.connection.faults().slice(faultsBefore)],
        closed: false,
      };
    } catch (error) {
      if (error instanceof ConnectionClosedError) return { faults: [...ctx.connection.faults().slice(faultsBefore)], closed: true };
      if (!(error instanceof ConnectionTimeoutError)) throw error;
      if (newFaults.some((f) => f.code === 'ENCODING_MISMATCH')) return { faults: [...newFaults], closed: ctx.connection.isClosed };
    }
  }
}

/** Sends a request with a fresh id (no check recorded) and waits as `awaitWireAnswer` does. */
export async function requestOnWire(ctx: CaseContext, method: string, params?: Message, timeoutMs?: number): Promise<WireAnswer & { id: number }> {
  const id = ctx.nextId();
  await ctx.connection.send(request(id, method, params));
  return { id, ...(await awaitWireAnswer(ctx, id, timeoutMs)) };
}

/**
 * Collects every message (matching `predicate`) that arrives within `ms` (scaled), or the first
 * `count`; stops early when the connection closes.
 */
export async function collectFor(ctx: CaseContext, ms: number, predicate?: (r: ReceivedMessage) => boolean, count = Number.POSITIVE_INFINITY): Promise<ReceivedMessage[]> {
  const out: ReceivedMessage[] = [];
  const deadline = Date.now() + ctx.scaled(ms);
  while (out.length < count) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return out;
    try {
      out.push(await ctx.next(predicate, { timeoutMs: remaining / ctx.scaled(1), silence: 'messages the target may send' }));
    } catch (error) {
      if (error instanceof ConnectionTimeoutError || error instanceof ConnectionClosedError) return out;
      throw error;
    }
  }
  return out;
}

// ---- the target's own messages ------------------------------------------------------------------

/** A message the target sent on its own: a request (with id) or a notification. */
export function isTargetInitiated(message: unknown): message is Message & { method: string } {
  return isRecord(message) && typeof message.method === 'string';
}

/**
 * Answers a request the target sent: with a plausible result for a client feature the case
 * declared (sampling, roots, elicitation, ping), and -32601 for anything else.
 */
export async function answerDeclared(ctx: CaseContext, request: Message & { method: string }, declared: Record<string, unknown>): Promise<void> {
  if (!('id' in request) || ctx.connection.isClosed) return;
  const id = request.id;
  let result: Message | undefined;
  switch (request.method) {
    case 'ping':
      result = {};
      break;
    case 'sampling/createMessage':
      if ('sampling' in declared) result = { role: 'assistant', content: { type: 'text', text: 'conformance' }, model: 'mcp-flow-conformance' };
      break;
    case 'roots/list':
      if ('roots' in declared) result = { roots: [] };
      break;
    case 'elicitation/create':
      if ('elicitation' in declared) result = { action: 'decline' };
      break;
  }
  const answer = result !== undefined ? resultResponse(id, result) : errorResponse(id, -32601, `Method not found: this client does not serve ${request.method}`);
  try {
    await ctx.connection.send(answer);
  } catch (error) {
    if (!(error instanceof ConnectionClosedError)) throw error;
  }
}

// ---- tool sweep ----------------------------------------------------------------------------------

/** When a case that started now must stop watching: its limit less a margin to check and close. */
export function caseDeadline(ctx: CaseContext, marginMs = 2_000): number {
  return Date.now() + ctx.timeLimitMs - ctx.scaled(marginMs);
}

/** At most this many tools are called by a sweep. */
export const SWEEP_MAX_TOOLS = 24;

/** The tools of tools/list (first page); [] when the answer has none. */
export function toolsOf(answer: Message | undefined): ListedTool[] {
  const result = answer && isRecord(answer.result) ? answer.result : undefined;
  const tools = result && Array.isArray(result.tools) ? result.tools : [];
  return tools.map(listedTool).filter((tool): tool is ListedTool => tool !== undefined);
}

/**
 * Calls each listed tool (up to SWEEP_MAX_TOOLS) with minimal arguments, all at once, so that a
 * server has every reason its tools give it to send requests of its own. The ids are strings: over
 * WebTransport a result then travels inline, never as a ref/stream on an execution stream (C-04).
 * Returns the request ids.
 */
export async function callToolsAtOnce(ctx: CaseContext, tools: readonly { name: string; inputSchema: unknown }[]): Promise<string[]> {
  const calls = tools.slice(0, SWEEP_MAX_TOOLS).map((tool) => ({ id: `sweep-${ctx.nextId()}`, tool }));
  await Promise.all(
    calls.map(({ id, tool }) => ctx.connection.send(request(id, 'tools/call', { name: tool.name, arguments: argumentsFor(tool.inputSchema, { quick: true }) ?? {} }))),
  );
  return calls.map((call) => call.id);
}

/**
 * Watches the target for up to `ms` (scaled) or until every id in `awaiting` was answered, handing
 * each message the target initiated to `onTarget` (which answers requests). Returns what it saw:
 * the messages the target initiated and the ids of every response that arrived.
 */
export async function watchTarget(
  ctx: CaseContext,
  options: {
    ms: number;
    /** An absolute deadline (Date.now() scale) the watch never passes, e.g. the case's own end. */
    until?: number;
    awaiting?: readonly (string | number)[];
    onTarget: (message: Message & { method: string }) => Promise<void>;
    /** The watch is a window in which nothing is owed, named so in the result's `waits` (else a deadline for the awaited answers). */
    silence?: string;
    /**
     * Stop once neither an awaited answer nor a message of the target came for this long (before
     * --timeout-scale), nor for three times the slowest awaited answer: the tool sweep's rule for
     * calls that keep quiet (SWEEP_IDLE_MS).
     */
    idleMs?: number;
  },
): Promise<{ initiated: (Message & { method: string })[]; answered: Set<string | number> }> {
  const awaiting = new Set(options.awaiting ?? []);
  const answered = new Set<string | number>();
  const initiated: (Message & { method: string })[] = [];
  const began = Date.now();
  const deadline = Math.min(began + ctx.scaled(options.ms), options.until ?? Number.POSITIVE_INFINITY);
  let lastActivity = began;
  let slowestAnswer = 0;
  const done = () => options.awaiting !== undefined && [...awaiting].every((id) => answered.has(id));
  while (!done()) {
    const idleUntil = options.idleMs === undefined ? Number.POSITIVE_INFINITY : lastActivity + Math.max(ctx.scaled(options.idleMs), 3 * slowestAnswer);
    const remaining = Math.min(deadline, idleUntil) - Date.now();
    if (remaining <= 0) break;
    let received: ReceivedMessage;
    try {
      received = await ctx.next(undefined, {
        timeoutMs: remaining / ctx.scaled(1),
        silence: options.silence ?? `the answers to ${[...awaiting].filter((id) => !answered.has(id)).length} request(s)`,
      });
    } catch (error) {
      if (error instanceof ConnectionTimeoutError || error instanceof ConnectionClosedError) break;
      throw error;
    }
    const message = received.message;
    if (isTargetInitiated(message)) {
      initiated.push(message);
      if ('id' in message) lastActivity = Date.now();
      await options.onTarget(message);
    } else if (isRecord(message) && (typeof message.id === 'string' || typeof message.id === 'number')) {
      answered.add(message.id);
      if (awaiting.has(message.id)) {
        lastActivity = Date.now();
        slowestAnswer = Math.max(slowestAnswer, lastActivity - began);
      }
    }
  }
  return { initiated, answered };
}

// ---- CBOR structure --------------------------------------------------------------------------------

/** What a structural read of one CBOR data item found. */
export interface CborShape {
  /** The top-level item is a map. */
  topIsMap: boolean;
  /** Where map keys that are not text strings start. */
  nonTextKeys: string[];
  /** Where floats whose value is a safe integer (e.g. 1.0 written as a float) start. */
  integralFloats: string[];
  /** Where tags start, and their numbers. */
  tags: { path: string; tag: number | bigint }[];
  /** Major type of the top-level `id` member's value (0/1 integer, 3 text, 7 float or simple). */
  idMajor?: number;
  /** Bytes after the first data item. */
  trailingBytes: number;
}

/**
 * The structure of the CBOR data item `body` holds, read by the one CBOR walk of the suites
 * (support/cbor-items.ts; it throws CborWalkError for a body that is not one well-formed item).
 */
export function cborShape(body: Uint8Array): CborShape {
  const walk = walkCbor(body);
  return {
    topIsMap: walk.topMajor === 5,
    nonTextKeys: walk.issues.filter((issue) => issue.kind === 'map-key').map((issue) => `key at byte ${issue.offset}`),
    integralFloats: walk.issues.filter((issue) => issue.kind === 'integral-float').map((issue) => `byte ${issue.offset}: ${issue.problem}`),
    tags: walk.tags.map((tag) => ({ path: `byte ${tag.offset}`, tag: tag.tag })),
    ...(walk.idMajor !== undefined ? { idMajor: walk.idMajor } : {}),
    trailingBytes: walk.trailingBytes,
  };
}
