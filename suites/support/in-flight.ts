// How the cancellation cases get a request that is still in flight, without knowing the target's
// tools. The rule (named in the case titles): the harness declares the sampling and elicitation
// capabilities and calls the target's non-interactive tools in tools/list order, with
// schema-derived arguments and a progress token, until one of them
//   1. asks the client something (a request from the target while the call is unanswered): the
//      harness holds its answer back, so the call stays in flight for as long as the case needs;
//   2. or else (second choice) reports progress before answering (notifications/progress, or over
//      WebTransport a progress datagram): the slowest such tool is called again with arguments
//      that make it last, until its progress shows it running with most of its work ahead
//      (lasting-call.ts); then a result after the cancel is the target's, not a race. Where no
//      call can be seen running so, the first such tool is re-issued and is in flight from its
//      first progress (the target may still finish before a cancel arrives, which the cases then
//      report rather than fail).
// Calls that answer at once are simply done; a call that does neither within the probe window is
// cancelled and the next tool is tried.
import type { CaseContext } from '../../src/harness/index.js';
import type { IncomingExecutionStream, ReceivedDatagram, ReceivedMessage } from '../../src/transport/connection.js';
import { ConnectionTimeoutError } from '../../src/transport/errors.js';
import { DatagramChannel, isRecord } from '../../src/wire/index.js';
import { isResponseTo, notification, openSession, request, setupResult, type Message } from './session.js';
import { listedTool, type ListedTool, type ToolCall } from './tools.js';
import { firstOrQuiet } from './quiet.js';

export { argumentsFor, LARGE_INTEGER_CAP, type ArgumentHints, type ListedTool, type ToolCall } from './tools.js';
import { argumentsFor } from './tools.js';
import { canLastLonger, confirmRunning, LASTING_RUNGS, lastingArguments, type Running } from './lasting-call.js';

/** Capabilities the cancellation cases declare so that tools may ask the client. */
export const ASKING_CLIENT_CAPABILITIES = { sampling: {}, elicitation: {} } as const;

/** How long one probed call may stay silent before it is cancelled (before --timeout-scale). */
export const PROBE_WINDOW_MS = 1_500;

/** Most tools probed in one case, so that a target with many tools keeps the case within its limit. */
export const MAX_PROBED_TOOLS = 12;

/** Quiet period used to conclude that something did NOT happen (before --timeout-scale). */
export const QUIET_MS = 500;

/** The first page of tools/list minus the interactive tools (those are started, not called), at most MAX_PROBED_TOOLS. */
export async function callableTools(ctx: CaseContext): Promise<ListedTool[]> {
  const result = await setupResult(ctx, 'tools/list', {}, 'CORE-TOOLS-1');
  const interactive = new Set(ctx.discovery.interactiveTools ?? []);
  const tools = Array.isArray(result.tools) ? result.tools : [];
  return tools
    .map(listedTool)
    .filter((t): t is ListedTool => t !== undefined && !interactive.has(t.name))
    .slice(0, MAX_PROBED_TOOLS);
}

/** What a probed call did first. */
export type CallEvent =
  | { kind: 'answered'; answer: Message }
  | { kind: 'asked-client'; request: Message & { id: string | number; method: string } }
  | { kind: 'progress'; notification: Message | { datagram: ReceivedDatagram } }
  | { kind: 'stream'; stream: IncomingExecutionStream }
  | { kind: 'quiet' };

/** A probed tools/call: it always carries a progress token. */
export interface ProbedCall extends ToolCall {
  progressToken: string;
}

/** Server-to-client requests that belong to the session, not to a tool call. */
const SESSION_REQUESTS = new Set(['ping', 'roots/list']);

function isProgressFor(message: unknown, token: string): boolean {
  return isRecord(message) && message.method === 'notifications/progress' && isRecord(message.params) && message.params.progressToken === token;
}

function isToolRequestFromTarget(message: unknown): message is Message & { id: string | number; method: string } {
  return (
    isRecord(message) &&
    typeof message.method === 'string' &&
    (typeof message.id === 'string' || typeof message.id === 'number') &&
    !SESSION_REQUESTS.has(message.method) &&
    !message.method.startsWith('interaction.')
  );
}

/** Sends tools/call with a fresh numeric id (u32, so it can name execution streams) and a progress token. */
export async function sendToolCall(ctx: CaseContext, tool: ListedTool, args: Message): Promise<ProbedCall> {
  const id = ctx.nextId();
  const progressToken = `${ctx.caseId}#${id}`;
  await ctx.connection.send(request(id, 'tools/call', { name: tool.name, arguments: args, _meta: { progressToken } }));
  return { tool, id, progressToken, arguments: args };
}

/**
 * Waits for the first thing `call` does: its answer, a request to the client, progress for its
 * token, or (WebTransport, when `streams` is set) an execution stream for it. `quiet` when
 * nothing came within `windowMs` (before --timeout-scale).
 */
export async function firstEvent(ctx: CaseContext, call: ProbedCall, options: { windowMs?: number; streams?: boolean; progress?: boolean } = {}): Promise<CallEvent> {
  const local = new AbortController();
  const signal = AbortSignal.any([ctx.signal, local.signal]);
  const timeoutMs = ctx.scaled(options.windowMs ?? PROBE_WINDOW_MS);
  const watchProgress = options.progress ?? true;
  const waits: Promise<CallEvent>[] = [
    ctx.connection
      .next((r: ReceivedMessage) => isResponseTo(r.message, call.id) || isToolRequestFromTarget(r.message) || (watchProgress && isProgressFor(r.message, call.progressToken)), {
        timeoutMs,
        signal,
      })
      .then((r): CallEvent => {
        const m = r.message as Message;
        if (isResponseTo(m, call.id)) return { kind: 'answered', answer: m };
        if (isToolRequestFromTarget(m)) return { kind: 'asked-client', request: m };
        return { kind: 'progress', notification: m };
      }),
  ];
  const wt = ctx.connection.webtransport;
  // Over WebTransport progress may travel as a datagram on the progress channel naming the request.
  if (watchProgress && wt) {
    waits.push(
      wt
        .nextDatagram((d) => d.channel === DatagramChannel.progress && d.requestId === call.id, { timeoutMs, signal })
        .then((datagram): CallEvent => ({ kind: 'progress', notification: { datagram } })),
    );
  }
  if (options.streams && wt) {
    waits.push(wt.nextExecutionStream((s) => s.header.requestId === call.id, { timeoutMs, signal }).then((stream): CallEvent => ({ kind: 'stream', stream })));
  }
  return firstOrQuiet(ctx, waits, local);
}

/**
 * A message matching `predicate`, or undefined when none came: within `deadlineMs` (before
 * --timeout-scale) when given, for an answer the target owes; otherwise within a window in which
 * nothing is owed, from the target's speed (ctx.quietMs(QUIET_MS)): what a target sends in
 * reaction to a cancel, or once the tool its held request stopped goes on, comes within a few of
 * its round trips.
 */
export async function unlessQuiet(ctx: CaseContext, predicate: (message: unknown) => boolean, deadlineMs?: number): Promise<Message | undefined> {
  try {
    const received = await ctx.next(
      (r) => predicate(r.message),
      deadlineMs !== undefined ? { timeoutMs: deadlineMs } : { timeoutMs: ctx.quietMs(QUIET_MS), silence: 'a message the target does not owe' },
    );
    return received.message as Message;
  } catch (error) {
    if (error instanceof ConnectionTimeoutError) return undefined;
    throw error;
  }
}

/** A call that is in flight, and how the harness knows. */
export interface InFlightCall extends ProbedCall {
  /** `asked-client`: held by our unanswered reply to `heldRequest`; `progress`: it reported progress. */
  how: 'asked-client' | 'progress';
  heldRequest?: Message & { id: string | number; method: string };
  /** `progress`: how the call was seen running with its work ahead (lasting-call.ts); absent when it could not be. */
  running?: Running;
}

/** Cancels a probed call the case does not want (the cancel is not a check). */
async function dropCall(ctx: CaseContext, call: ProbedCall): Promise<void> {
  await ctx.connection.send(notification('notifications/cancelled', { requestId: call.id, reason: 'conformance probe' }));
}

/** Opens the session the cancellation cases need (declaring the client features tools may use). */
export async function openAskingSession(ctx: CaseContext): Promise<void> {
  await openSession(ctx, { capabilities: { ...ASKING_CLIENT_CAPABILITIES } });
}

/**
 * The in-flight rule of this module's header. Returns undefined when no tool qualifies (the case
 * then reports that it could not make a request wait, as INFO).
 */
export async function startInFlightCall(ctx: CaseContext): Promise<InFlightCall | undefined> {
  const tools = await callableTools(ctx);
  /** Tools that reported progress, with how long the probed call took (Infinity: still running after the window). */
  const progressTools: { tool: ListedTool; args: Record<string, unknown>; tookMs: number }[] = [];
  for (const tool of tools) {
    const args = argumentsFor(tool.inputSchema) ?? {};
    const call = await sendToolCall(ctx, tool, args);
    const sentAt = Date.now();
    let event = await firstEvent(ctx, call);
    if (event.kind === 'asked-client') {
      ctx.note(`in-flight rule: ${tool.name} asked the client (${event.request.method}); its answer is held back`);
      return { ...call, how: 'asked-client', heldRequest: event.request };
    }
    if (event.kind === 'progress') {
      // Let it finish (or ask the client after all) before trying the next tool.
      event = await firstEvent(ctx, call, { progress: false });
      if (event.kind === 'asked-client') return { ...call, how: 'asked-client', heldRequest: event.request };
      progressTools.push({ tool, args, tookMs: event.kind === 'answered' ? Date.now() - sentAt : Infinity });
    }
    if (event.kind !== 'answered') await dropCall(ctx, call);
  }
  const progressTool = progressTools[0];
  if (progressTool === undefined) return undefined;
  // The slowest first (ties keep tools/list order).
  const slowest = [...progressTools].sort((a, b) => b.tookMs - a.tookMs)[0]!;
  const running = await startRunningCall(ctx, slowest.tool, slowest.args);
  if (running !== undefined) return running;
  const call = await sendToolCall(ctx, progressTool.tool, progressTool.args);
  const event = await firstEvent(ctx, call);
  if (event.kind === 'progress') {
    ctx.note(`in-flight rule: ${progressTool.tool.name} reported progress; it is in flight`);
    return { ...call, how: 'progress' };
  }
  if (event.kind === 'asked-client') return { ...call, how: 'asked-client', heldRequest: event.request };
  if (event.kind !== 'answered') await dropCall(ctx, call);
  return undefined;
}

/**
 * `tool` called with arguments that make it last, a rung at a time (lasting-call.ts), until its
 * progress shows it running with its work ahead: that call, or undefined when none did.
 */
async function startRunningCall(ctx: CaseContext, tool: ListedTool, args: Record<string, unknown>): Promise<InFlightCall | undefined> {
  for (let rung = 0; rung < LASTING_RUNGS; rung++) {
    const call = await sendToolCall(ctx, tool, lastingArguments(tool.inputSchema, args, rung));
    const seen = await confirmRunning(ctx, call, PROBE_WINDOW_MS);
    if ('running' in seen) {
      const { last, remainingMs } = seen.running;
      ctx.note(`in-flight rule: ${tool.name} ${JSON.stringify(call.arguments)} is running (progress ${last.progress} of ${String(last.total)}, about ${Math.round(remainingMs)} ms of work ahead)`);
      return { ...call, how: 'progress', running: seen.running };
    }
    if (seen.not !== 'answered') await dropCall(ctx, call);
    if (seen.not !== 'too-short' || !canLastLonger(tool.inputSchema, args, rung)) break;
  }
  return undefined;
}

/** Says, as INFO of `requirement`, that no request could be kept in flight. */
export function reportNoInFlightCall(ctx: CaseContext, requirement: string): void {
  ctx.info(
    requirement,
    'not checked: no tool of the target asked the client something or reported progress before answering, so no request could be kept in flight to cancel',
  );
}

/** Fails the case's set-up when the session stopped answering (a ping is not answered). */
export async function requireResponsive(ctx: CaseContext, requirement: string, after: string): Promise<boolean> {
  const answer = await ctx.request(requirement, 'ping', undefined, { what: `ping ${after}` });
  if (answer === undefined) return false;
  return ctx.check(requirement, isRecord(answer.result), { message: `the session keeps serving requests ${after} (ping answered)`, actual: answer });
}

