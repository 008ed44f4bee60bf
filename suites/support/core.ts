// Support for the MCP core suites (mcp-core, bad-input): arguments built from a tool's inputSchema,
// page walks, error-message hygiene, generic answers to the target's own requests, and the tool
// sweep that calls every listed tool once and records what the target sent meanwhile.
import type { CaseContext } from '../../src/harness/index.js';
import type { ReceivedMessage } from '../../src/transport/connection.js';
import { ConnectionTimeoutError } from '../../src/transport/errors.js';
import { isRecord } from '../../src/wire/index.js';
import { errorOf, errorResponse, isRequestFromTarget, isResponseTo, notification, request, resultResponse, setupRequest, type Message, type RequestId } from './session.js';
import { argumentsFor, listedTool, validatorFor, type ArgumentHints, type ListedTool, type ToolCall } from './tools.js';
import { settleReactions, takeQueued } from './quiet.js';

// Tools, arguments and validators are support/tools.ts's (re-exported for the mcp-core cases).
export { argumentsFor, validationErrors, validatorFor, type ArgumentHints, type ListedTool } from './tools.js';

/** A value of a JSON type that `schema` does not allow (undefined when it names no type). */
function wrongTypeValue(schema: unknown): unknown {
  if (!isRecord(schema) || schema.type === undefined) return undefined;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as unknown[];
  const candidates: Array<[readonly string[], unknown]> = [
    [['number', 'integer'], 9_876_543],
    [['string'], 'not the declared type'],
    [['object'], { conformance: 'not the declared type' }],
    [['boolean'], true],
    [['array'], []],
  ];
  return candidates.find(([jsonTypes]) => !jsonTypes.some((t) => types.includes(t)))?.[1];
}

/** Arguments that break an inputSchema, what was broken, and how (an unknown member may be ignored: CORE-TOOLS-4). */
export interface WrongArguments {
  args: Record<string, unknown>;
  what: string;
  kind: 'wrong-type' | 'missing-required' | 'unknown-member';
}

/**
 * Arguments that break `inputSchema` on purpose (a member of the wrong type, a required member left
 * out, or an unknown member where none is allowed; the first of `kinds`, all by default), with what
 * was broken; undefined when the schema rejects nothing we can build.
 */
export function wrongArgumentsFor(
  inputSchema: unknown,
  hints: ArgumentHints = {},
  kinds: readonly WrongArguments['kind'][] = ['wrong-type', 'missing-required', 'unknown-member'],
): WrongArguments | undefined {
  if (!isRecord(inputSchema)) return undefined;
  const base = argumentsFor(inputSchema, hints);
  const validate = validatorFor(inputSchema);
  if (!base || !validate) return undefined;
  const properties = isRecord(inputSchema.properties) ? inputSchema.properties : {};
  const required = Array.isArray(inputSchema.required) ? (inputSchema.required as unknown[]).filter((r): r is string => typeof r === 'string') : [];
  const keys = [...required, ...Object.keys(properties).filter((k) => !required.includes(k))];
  for (const key of kinds.includes('wrong-type') ? keys : []) {
    const wrong = wrongTypeValue(properties[key]);
    if (wrong === undefined) continue;
    const args = { ...base, [key]: wrong };
    if (!validate(args)) return { args, what: `member ${JSON.stringify(key)} of the wrong type`, kind: 'wrong-type' };
  }
  if (required.length > 0 && kinds.includes('missing-required')) {
    const args = { ...base };
    delete args[required[0]!];
    if (!validate(args)) return { args, what: `required member ${JSON.stringify(required[0])} left out`, kind: 'missing-required' };
  }
  if (inputSchema.additionalProperties === false && kinds.includes('unknown-member')) {
    const args = { ...base, 'x-conformance-unknown-member': 1 };
    if (!validate(args)) return { args, what: 'an unknown member where additionalProperties is false', kind: 'unknown-member' };
  }
  return undefined;
}

// ---- names -------------------------------------------------------------------------------------------

/** A name no server defines: fixed prefix, random suffix. */
export function randomName(prefix = 'x-conformance-unknown'): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

// ---- pages -------------------------------------------------------------------------------------------

/** Most pages one walk follows before it calls the walk endless. */
export const MAX_PAGES = 100;

export interface PageWalk {
  items: unknown[];
  /** Each page's result in order. */
  pages: Message[];
  /** A page whose nextCursor is present but not a string. */
  badCursor?: { page: number; nextCursor: unknown };
  /** A cursor that came back a second time in the walk. */
  repeatedCursor?: string;
  /** The walk stopped after MAX_PAGES pages with a cursor still given. */
  endless?: boolean;
  /** A page answered with an error (the answer). */
  error?: Message;
}

/** Follows nextCursor through a list method, stopping at a repeat, a bad cursor or an error. */
export async function walkPages(ctx: CaseContext, method: string, key: string, requirement?: string): Promise<PageWalk> {
  const walk: PageWalk = { items: [], pages: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await setupRequest(ctx, method, cursor === undefined ? {} : { cursor }, requirement);
    if (!isRecord(answer.result)) {
      walk.error = answer;
      return walk;
    }
    walk.pages.push(answer.result);
    const items = answer.result[key];
    if (Array.isArray(items)) walk.items.push(...items);
    const next = answer.result.nextCursor;
    if (next === undefined) return walk;
    if (typeof next !== 'string') {
      walk.badCursor = { page, nextCursor: next };
      return walk;
    }
    if (seen.has(next)) {
      walk.repeatedCursor = next;
      return walk;
    }
    seen.add(next);
    cursor = next;
  }
  walk.endless = true;
  return walk;
}

/** Records CORE-PAGE-1 and CORE-PAGE-2 for a walk. */
export function checkPageWalk(ctx: CaseContext, walk: PageWalk, method: string): void {
  ctx.check('CORE-PAGE-1', walk.badCursor === undefined, {
    message: `every ${method} page's nextCursor, when present, is a string`,
    expected: 'a string or no nextCursor',
    ...(walk.badCursor ? { actual: walk.badCursor } : {}),
  });
  ctx.check('CORE-PAGE-2', walk.repeatedCursor === undefined && !walk.endless, {
    message: `following ${method}'s nextCursor ends without a repeated cursor (${walk.pages.length} page(s))`,
    ...(walk.repeatedCursor !== undefined ? { actual: { repeatedCursor: walk.repeatedCursor } } : walk.endless ? { actual: `still a cursor after ${MAX_PAGES} pages` } : {}),
  });
}

// ---- errors ------------------------------------------------------------------------------------------

const LEAKS: ReadonlyArray<[RegExp, string]> = [
  [/\n\s+at\s+\S/, 'a stack trace'],
  [/\bat\s+(?:async\s+)?[\w.<>$]+\s+\((?:file:\/\/|\/|[A-Za-z]:\\)/, 'a stack frame'],
  [/Traceback \(most recent call last\)/, 'a Python traceback'],
  [/(?:^|[\s"'(=])\/(?:home|Users|usr|var|opt|srv|root|tmp|etc)\/[\w.-]+\/[\w./-]+/, 'a file-system path'],
  [/[A-Za-z]:\\(?:Users|Windows|Program Files)\\/, 'a Windows path'],
  [/node_modules[\\/]/, 'a node_modules path'],
  [/file:\/\/\/[\w./-]+\.(?:js|ts|mjs|cjs|py)/, 'a source file URL'],
];

/** What internal detail `text` leaks, or undefined. */
export function leakIn(text: string): string | undefined {
  return LEAKS.find(([pattern]) => pattern.test(text))?.[1];
}

/**
 * Records CORE-ERR-3 for the error objects of `answers` (nothing when none is an error). Strings
 * the client itself sent (`echoed`, e.g. the URI it asked for) are taken out first: echoing them
 * back leaks nothing.
 */
export function checkNoLeaks(ctx: CaseContext, answers: ReadonlyArray<Message | undefined>, echoed: readonly string[] = [], requirement = 'CORE-ERR-3'): void {
  const errors = answers.map((a) => errorOf(a)).filter((e): e is NonNullable<typeof e> => e !== undefined);
  if (errors.length === 0) return;
  const scrub = (text: string) => echoed.filter((e) => e.length > 0).reduce((t, e) => t.split(e).join('<sent>'), text);
  const leaking = errors
    .map((e) => ({ error: e, leak: leakIn(scrub(`${typeof e.message === 'string' ? e.message : ''}\n${e.data === undefined ? '' : JSON.stringify(e.data)}`)) }))
    .filter((x) => x.leak !== undefined);
  ctx.check(requirement, leaking.length === 0, {
    message: `${errors.length} error message(s) carry no stack trace or file-system path`,
    ...(leaking.length > 0 ? { actual: leaking.map((x) => ({ leaks: x.leak, error: x.error })) } : {}),
  });
}

/** Whether `code` is an integer JSON-RPC error code. */
export function isErrorCode(code: unknown): code is number {
  return typeof code === 'number' && Number.isInteger(code);
}

// ---- the target's own requests ----------------------------------------------------------------------

/** Capabilities a client declares so that tools may ask it things (sampling, roots, elicitation). */
export const ANSWERING_CLIENT_CAPABILITIES = { sampling: {}, roots: { listChanged: false }, elicitation: {} } as const;

/** A plausible answer to a request the target sends the client (ping, sampling, roots, elicitation). */
export function genericAnswer(id: RequestId, method: string): Message {
  switch (method) {
    case 'ping':
      return resultResponse(id, {});
    case 'sampling/createMessage':
      return resultResponse(id, { role: 'assistant', content: { type: 'text', text: 'conformance' }, model: 'mcp-flow-conformance', stopReason: 'endTurn' });
    case 'roots/list':
      return resultResponse(id, { roots: [] });
    case 'elicitation/create':
      return resultResponse(id, { action: 'decline' });
    default:
      return errorResponse(id, -32601, `Method not found: ${method}`);
  }
}

/** Answers a request from the target with `genericAnswer` (skipped when its id is unusable). */
export async function answerGenerically(ctx: CaseContext, request: Message): Promise<void> {
  const id = request.id;
  if (typeof id !== 'string' && typeof id !== 'number') return;
  await ctx.connection.send(genericAnswer(id, String(request.method)));
}

// ---- the tool sweep ----------------------------------------------------------------------------------

/** A call of the sweep, with its answer when one came. */
export interface SweptCall extends ToolCall {
  progressToken: string;
  /** The answer, when one came. */
  answer?: Message;
  /** Index in `received` of the answer. */
  answeredAt?: number;
}

export interface Sweep {
  tools: ListedTool[];
  /** Tools left out, with the reason. */
  skipped: { name: string; why: string }[];
  calls: SweptCall[];
  /** Every message received while the sweep ran, in order. */
  received: ReceivedMessage[];
  /** Requests the target sent (answered generically). */
  targetRequests: Message[];
  /** Calls not answered within the sweep's deadline. */
  unanswered: SweptCall[];
}

export interface SweepOptions {
  /** Hints for argument values (listed resource URIs). */
  hints?: ArgumentHints;
  /** Deadline for all answers before --timeout-scale. Default 6000 ms. */
  answerMs?: number;
  /** Quiet time after the last answer, to catch late messages, before --timeout-scale. Default 300 ms (shortened from the target's speed, or by order). */
  quietMs?: number;
  /** Most tools called. Default 24. */
  maxTools?: number;
  /**
   * Leave calls that keep quiet (SWEEP_IDLE_MS) instead of waiting for them until the deadline.
   * Default true; the progress case follows every call to its answer or the deadline (a tool may
   * report progress seconds apart, and what comes after the answer is what CORE-PROG-4 judges).
   */
  leaveQuietCalls?: boolean;
}

/**
 * How long the sweep still watches calls that say nothing (no answer, no request to the client),
 * before --timeout-scale: at least this, and at least three times the slowest answer a call got. A tool may take as long as it likes (a long-running operation that
 * reports nothing): the sweep judges what comes while it watches, and reports the rest as not
 * answered in time.
 */
export const SWEEP_IDLE_MS = 1_000;

/** Every tool of tools/list (all pages), as ListedTool. */
export async function listTools(ctx: CaseContext): Promise<ListedTool[]> {
  const walk = await walkPages(ctx, 'tools/list', 'tools');
  return walk.items.map(listedTool).filter((tool): tool is ListedTool => tool !== undefined);
}

/**
 * Calls every listed tool once (in parallel) with arguments built from its inputSchema and a
 * progressToken of its own, answers the target's requests generically, and records everything
 * that arrived until all calls were answered and a short quiet time passed. Tools that
 * `interaction.start` accepted (MCP Flow) and tools annotated `destructiveHint: true` are left out.
 */
export async function sweepTools(ctx: CaseContext, options: SweepOptions = {}): Promise<Sweep> {
  const tools = await listTools(ctx);
  const interactive = new Set(ctx.discovery.interactiveTools ?? []);
  const sweep: Sweep = { tools, skipped: [], calls: [], received: [], targetRequests: [], unanswered: [] };
  for (const tool of tools) {
    if (sweep.calls.length >= (options.maxTools ?? 24)) sweep.skipped.push({ name: tool.name, why: 'more tools than the sweep calls' });
    else if (interactive.has(tool.name)) sweep.skipped.push({ name: tool.name, why: 'an MCP Flow interactive tool' });
    else if (isRecord(tool.annotations) && tool.annotations.destructiveHint === true) sweep.skipped.push({ name: tool.name, why: 'annotated destructiveHint: true' });
    else {
      // Quick arguments: the sweep judges what a call sends and answers, not how long it works.
      const args = argumentsFor(tool.inputSchema, { quick: true, ...options.hints });
      if (args === undefined) sweep.skipped.push({ name: tool.name, why: 'no arguments could be built from its inputSchema' });
      else sweep.calls.push({ tool, id: ctx.nextId(), progressToken: `conformance-progress-${sweep.calls.length}`, arguments: args });
    }
  }
  ctx.note(`tool sweep: calling ${sweep.calls.map((c) => c.tool.name).join(', ') || '(none)'}`);
  for (const call of sweep.calls) {
    await ctx.connection.send(request(call.id, 'tools/call', { name: call.tool.name, arguments: call.arguments, _meta: { progressToken: call.progressToken } }));
  }
  const open = new Map(sweep.calls.map((c) => [c.id, c]));
  const sentAt = Date.now();
  const deadline = sentAt + ctx.scaled(options.answerMs ?? 6_000);
  let lastActivity = sentAt;
  let slowestAnswer = 0;
  // Messages keep arriving while calls are open; a quiet tail follows the last answer.
  while (open.size > 0) {
    const idleUntil = options.leaveQuietCalls === false ? Number.POSITIVE_INFINITY : lastActivity + Math.max(ctx.scaled(SWEEP_IDLE_MS), 3 * slowestAnswer);
    const left = Math.min(deadline, idleUntil) - Date.now();
    if (left <= 0) break;
    let received: ReceivedMessage;
    try {
      received = await ctx.next(undefined, { timeoutMs: left / ctx.scaled(1), silence: `the answers to ${open.size} tool call(s)` });
    } catch (error) {
      if (error instanceof ConnectionTimeoutError) break;
      throw error;
    }
    sweep.received.push(received);
    const message = received.message;
    if (isRequestFromTarget(message)) {
      lastActivity = Date.now();
      sweep.targetRequests.push(message);
      await answerGenerically(ctx, message);
      continue;
    }
    if (!isRecord(message) || 'method' in message) continue;
    const call = typeof message.id === 'number' ? open.get(message.id) : undefined;
    if (call && isResponseTo(message, call.id)) {
      call.answer = message;
      call.answeredAt = sweep.received.length - 1;
      open.delete(call.id);
      lastActivity = Date.now();
      slowestAnswer = Math.max(slowestAnswer, lastActivity - sentAt);
    }
  }
  if (open.size === 0) {
    // Late messages (progress after a response...): on an ordered channel a ping's answer comes
    // after them; elsewhere a window from the target's speed.
    await settleReactions(ctx, options.quietMs ?? 300, 'messages after the last answer');
    for (const received of await takeQueued(ctx, () => true)) {
      sweep.received.push(received);
      if (!isRequestFromTarget(received.message)) continue;
      sweep.targetRequests.push(received.message);
      await answerGenerically(ctx, received.message);
    }
  }
  sweep.unanswered = [...open.values()];
  for (const call of sweep.unanswered) {
    await ctx.connection.send(notification('notifications/cancelled', { requestId: call.id, reason: 'the conformance sweep stopped waiting' }));
  }
  return sweep;
}

/** The messages of a sweep (or any list) that are notifications of `method`. */
export function notificationsOf(received: readonly ReceivedMessage[], method: string): Array<{ index: number; params: Message }> {
  const found: Array<{ index: number; params: Message }> = [];
  received.forEach((r, index) => {
    const m = r.message;
    if (isRecord(m) && m.method === method && !('id' in m)) found.push({ index, params: isRecord(m.params) ? m.params : {} });
  });
  return found;
}

/** Says in the transcript and as INFO which tools were called and left out. */
export function reportSweep(ctx: CaseContext, requirement: string, sweep: Sweep): void {
  ctx.info(requirement, `the sweep called ${sweep.calls.length} tool(s)${sweep.skipped.length ? ` and left out ${sweep.skipped.length}` : ''}`, {
    called: sweep.calls.map((c) => c.tool.name),
    skipped: sweep.skipped,
    ...(sweep.unanswered.length ? { notAnsweredInTime: sweep.unanswered.map((c) => c.tool.name) } : {}),
  });
}
