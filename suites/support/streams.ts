// WebTransport helpers for the execution-stream, datagram and shutdown suites (seed 001): find,
// among the tools the target lists, one whose answer travels on an execution stream (a `ref/stream`
// item, 001 §5) or one that reports progress, read a stream to its end (FIN or reset), and wait a
// short fixed time for "nothing happens".
//
// Nothing here records a check: the helpers return what they saw and the cases judge it. Tools are
// chosen from what tools/list says about them (name, description, inputSchema), never by the mock
// server's names; arguments are built from each tool's own inputSchema.
import type { Applicability, CaseContext, Discovery } from '../../src/harness/index.js';
import type { IncomingExecutionStream, ReceivedDatagram, ReceivedMessage, WebTransportFacet } from '../../src/transport/connection.js';
import { isRecord } from '../../src/wire/index.js';
import { isResponseTo, request, setupResult, type Message } from './session.js';
import { acceptsHint, argumentsFor, askedBytes, listedTool, type ArgumentHints, type ListedTool, type ToolCall } from './tools.js';

export { acceptsHint, argumentsFor, type ArgumentHints, type ListedTool, type ToolCall } from './tools.js';
import { TargetPreconditionError } from '../../src/harness/index.js';
import { quietWindow } from './quiet.js';

/** How long to wait for a stream, datagram or answer that should come (before --timeout-scale). */
export const STREAM_EVENT_MS = 5_000;
/** How long "nothing happens" is watched for (before --timeout-scale). */
export const QUIET_MS = 300;

/** Applicability: WebTransport binding cases that need the target to list tools. */
export function requiresTools(discovery: Discovery): Applicability {
  return discovery.tools !== undefined && discovery.tools.length > 0 ? true : 'the target lists no tools to produce execution streams or progress with';
}

/** Applicability: the target advertised `datagramsSupported: true` in `result.transport`. */
export function requiresDatagrams(discovery: Discovery): Applicability {
  const supported = discovery.transport?.['datagramsSupported'];
  return supported === true ? true : `the target advertised datagramsSupported: ${JSON.stringify(supported)} (this case needs true)`;
}

/** Applicability: datagrams advertised and tools listed. */
export function requiresDatagramsAndTools(discovery: Discovery): Applicability {
  const datagrams = requiresDatagrams(discovery);
  return datagrams === true ? requiresTools(discovery) : datagrams;
}

/** Applicability: the target advertised `datagramsSupported: false`. */
export function requiresNoDatagrams(discovery: Discovery): Applicability {
  const supported = discovery.transport?.['datagramsSupported'];
  return supported === false ? true : `the target advertised datagramsSupported: ${JSON.stringify(supported)} (this case needs false)`;
}

/** The WebTransport facet of the case's connection (cases declaring `transports: ['webtransport']`). */
export function wtFacet(ctx: CaseContext): WebTransportFacet {
  const wt = ctx.connection.webtransport;
  if (!wt) throw new TargetPreconditionError('the connection has no WebTransport facet');
  return wt;
}

/** Every tool tools/list names (following nextCursor, at most 10 pages). */
export async function requireToolList(ctx: CaseContext): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const result = await setupResult(ctx, 'tools/list', cursor !== undefined ? { cursor } : {}, 'CORE-TOOLS-1');
    for (const entry of Array.isArray(result.tools) ? result.tools : []) {
      const tool = listedTool(entry);
      if (tool) tools.push(tool);
    }
    if (typeof result.nextCursor !== 'string') break;
    cursor = result.nextCursor;
  }
  return tools;
}

/** Names of tools that change something: never called with made-up arguments. */
const CHANGES_THINGS = /delete|remove|erase|drop|destroy|kill|write|update|create|upload|send|post|move|rename|exec|run_|shell/i;

/** Tools the helpers may call: not interactive (MCP Flow), not named for changing something. */
function callable(ctx: CaseContext, tool: ListedTool): boolean {
  return !(ctx.discovery.interactiveTools ?? []).includes(tool.name) && !CHANGES_THINGS.test(tool.name);
}

/** The first tool discovery listed that the helpers may call with made-up arguments, if any. */
export function firstCallableTool(ctx: CaseContext): string | undefined {
  return (ctx.discovery.tools ?? []).find((name) => callable(ctx, { name, description: '', inputSchema: {} }));
}

/** Tools whose name or description say they stream (001 §5's read_file is the model). */
export function streamCandidates(ctx: CaseContext, tools: readonly ListedTool[], hint?: 'bytes' | 'failAfterBytes'): ListedTool[] {
  const pattern = /ref\/stream|execution stream|download|stream|read_file|file/i;
  return tools
    .filter((t) => callable(ctx, t) && (pattern.test(t.name) || pattern.test(t.description)))
    .filter((t) => hint === undefined || acceptsHint(t, hint))
    .sort((a, b) => rank(b) - rank(a));
  function rank(tool: ListedTool): number {
    return (/ref\/stream|execution stream/i.test(tool.description) ? 2 : 0) + (acceptsHint(tool, 'bytes') ? 1 : 0);
  }
}

/** Tools whose name or description mention progress. */
export function progressCandidates(ctx: CaseContext, tools: readonly ListedTool[]): ListedTool[] {
  return tools.filter((t) => callable(ctx, t) && (/progress/i.test(t.description) || /progress/i.test(t.name)));
}

/** `ref/stream` content items anywhere in a result (001 §5: in `content`). */
export function refStreamItems(value: unknown, depth = 0): Message[] {
  if (depth > 16 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => refStreamItems(item, depth + 1));
  if (isRecord(value) && value.type === 'ref/stream') return [value];
  return Object.values(value).flatMap((item) => refStreamItems(item, depth + 1));
}

/** A tools/call sent by the helpers, with the answer to come. */
export interface PendingCall extends ToolCall {
  /** The size the arguments asked for, when the tool took a size. */
  bytes?: number;
  /** Resolves with the answer (result or error); rejects when the case ends first. */
  answer: Promise<ReceivedMessage>;
  /** Set once the answer arrived. */
  answered?: ReceivedMessage;
}

/** Sends tools/call (with a progressToken when given) and returns the pending call. */
export async function callTool(ctx: CaseContext, tool: ListedTool, hints: ArgumentHints = {}, progressToken?: string): Promise<PendingCall> {
  const id = ctx.nextId();
  const args = argumentsFor(tool.inputSchema, hints) ?? {};
  const bytes = hints.bytes !== undefined ? askedBytes(tool, args) : undefined;
  const params: Message = { name: tool.name, arguments: args };
  if (progressToken !== undefined) params._meta = { progressToken };
  const answer = ctx.next((r) => isResponseTo(r.message, id));
  const call: PendingCall = { tool, id, arguments: args, answer, ...(progressToken !== undefined ? { progressToken } : {}), ...(bytes !== undefined ? { bytes } : {}) };
  answer.then(
    (received) => (call.answered = received),
    () => undefined,
  );
  await ctx.connection.send(request(id, 'tools/call', params));
  return call;
}

/** A tools/call whose answer travels on an execution stream. */
export interface StreamingCall extends PendingCall {
  /** The first execution stream whose header names the call's id (absent: the answer named one that never came). */
  stream?: IncomingExecutionStream;
}

/**
 * Calls the stream candidates one after the other until one opens an execution stream for its
 * request or answers with a `ref/stream` item. Returns undefined when none did.
 */
export async function startStreamingCall(ctx: CaseContext, hints: ArgumentHints, candidates?: readonly ListedTool[]): Promise<StreamingCall | undefined> {
  const wt = wtFacet(ctx);
  const tools = candidates ?? streamCandidates(ctx, await requireToolList(ctx), hints.failAfterBytes !== undefined ? 'failAfterBytes' : undefined);
  for (const tool of tools.slice(0, 4)) {
    const call = await callTool(ctx, tool, hints);
    const stop = new AbortController();
    const onCaseEnd = () => stop.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onCaseEnd, { once: true });
    const streamArrival = wt.nextExecutionStream((s) => s.header.requestId === call.id, { signal: stop.signal });
    streamArrival.catch(() => undefined);
    try {
      const first = await Promise.race([streamArrival.then((stream) => ({ stream })), call.answer.then((answer) => ({ answer }))]);
      if ('stream' in first) return Object.assign(call, { stream: first.stream });
      // Answered first: a ref/stream answer is delivered only after its streams arrived (or a grace passed).
      if (refStreamItems((first.answer.message as Message).result).length > 0) {
        const arrived = await within(ctx, streamArrival, ctx.scaled(QUIET_MS)).catch(() => 'timeout' as const);
        const stream = arrived === 'timeout' ? undefined : arrived;
        if (!stream) ctx.note(`${tool.name} answered with a ref/stream item but no execution stream for request ${call.id} was accepted`);
        return stream ? Object.assign(call, { stream }) : call;
      }
      ctx.note(`${tool.name} answered request ${call.id} without an execution stream; trying the next candidate`);
    } finally {
      stop.abort();
      ctx.signal.removeEventListener('abort', onCaseEnd);
    }
  }
  return undefined;
}

/** Execution streams of request `requestId` arriving until `until` settles, then for a short quiet time. */
export async function collectStreams(ctx: CaseContext, requestId: number, until: Promise<unknown>): Promise<IncomingExecutionStream[]> {
  const wt = wtFacet(ctx);
  const streams: IncomingExecutionStream[] = [];
  const stop = new AbortController();
  const onCaseEnd = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onCaseEnd, { once: true });
  const loop = (async () => {
    for (;;) {
      try {
        streams.push(await wt.nextExecutionStream((s) => s.header.requestId === requestId, { signal: stop.signal }));
      } catch {
        return;
      }
    }
  })();
  await until.catch(() => undefined);
  // Execution streams are not ordered with the control stream: a window from the target's speed.
  await quietWindow(ctx, QUIET_MS, 'more execution streams of the request');
  stop.abort();
  ctx.signal.removeEventListener('abort', onCaseEnd);
  await loop;
  return streams;
}

/** How a stream's payload ended. */
export interface StreamEnd {
  /** 'fin': ended cleanly; 'reset': the peer reset it; 'cut': the case stopped reading (limit or deadline). */
  end: 'fin' | 'reset' | 'cut';
  bytes: number;
  /** The payload, when `keep` was set and the stream was within it. */
  data?: Uint8Array;
  error?: string;
}

/**
 * Reads a stream until FIN, reset, `maxBytes` read, or the deadline (STREAM_EVENT_MS scaled,
 * restarted by each chunk). Keeps the bytes when `keep` is true.
 */
export async function readStream(ctx: CaseContext, stream: IncomingExecutionStream, options: { maxBytes?: number; keep?: boolean; idleMs?: number } = {}): Promise<StreamEnd> {
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const idle = ctx.scaled(options.idleMs ?? STREAM_EVENT_MS);
  try {
    for (;;) {
      if (options.maxBytes !== undefined && bytes >= options.maxBytes) {
        await reader.cancel('read enough').catch(() => undefined);
        return { end: 'cut', bytes };
      }
      const next = await within(ctx, reader.read(), idle);
      if (next === 'timeout') {
        await reader.cancel('no data before the deadline').catch(() => undefined);
        return { end: 'cut', bytes, error: `no data for ${idle} ms` };
      }
      if (next.done) {
        const result: StreamEnd = { end: 'fin', bytes };
        if (options.keep) result.data = concat(chunks, bytes);
        return result;
      }
      bytes += next.value.byteLength;
      if (options.keep) chunks.push(next.value);
    }
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return { end: 'reset', bytes, error: error instanceof Error ? error.message : String(error) };
  } finally {
    reader.releaseLock();
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Datagrams naming `requestId` arriving until `until` settles, then for a short quiet time. */
export async function collectDatagrams(ctx: CaseContext, requestId: number | undefined, until: Promise<unknown>): Promise<ReceivedDatagram[]> {
  const wt = wtFacet(ctx);
  const datagrams: ReceivedDatagram[] = [];
  const stop = new AbortController();
  const onCaseEnd = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onCaseEnd, { once: true });
  const loop = (async () => {
    for (;;) {
      try {
        datagrams.push(await wt.nextDatagram((d) => requestId === undefined || d.requestId === requestId, { signal: stop.signal }));
      } catch {
        return;
      }
    }
  })();
  await until.catch(() => undefined);
  // Datagrams are neither ordered nor reliable: a window from the target's speed.
  await quietWindow(ctx, QUIET_MS, 'more datagrams of the request');
  stop.abort();
  ctx.signal.removeEventListener('abort', onCaseEnd);
  await loop;
  return datagrams;
}

/** The next message matching `predicate` within `ms` (scaled), or undefined. */
export async function maybeMessage(ctx: CaseContext, predicate: (message: Message) => boolean, ms: number): Promise<ReceivedMessage | undefined> {
  try {
    return await ctx.next((r) => isRecord(r.message) && predicate(r.message), { timeoutMs: ms });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return undefined;
  }
}

/** Error responses with id null received and not yet taken by `next` (they stay queued). */
export function pendingNullIdErrors(ctx: CaseContext): Message[] {
  const found: Message[] = [];
  for (const received of ctx.connection.pending()) {
    const m = received.message;
    if (isRecord(m) && m.id === null && isRecord(m.error)) found.push(m);
  }
  return found;
}

/** Waits `ms` (already scaled), or until the case ends. */
export function delay(ctx: CaseContext, ms: number): Promise<void> {
  return timer(ctx, ms).elapsed;
}

/** A wait of `ms` (already scaled) that ends early with the case, and can be cancelled (then it never settles). */
export function timer(ctx: CaseContext, ms: number): { elapsed: Promise<void>; cancel: () => void } {
  let cancel!: () => void;
  const elapsed = new Promise<void>((resolve) => {
    const handle = setTimeout(done, ms);
    function done() {
      cancel();
      resolve();
    }
    cancel = () => {
      clearTimeout(handle);
      ctx.signal.removeEventListener('abort', done);
    };
    ctx.signal.addEventListener('abort', done, { once: true });
  });
  return { elapsed, cancel };
}

/** `promise`, or 'timeout' once `ms` (already scaled) passed (recorded as a deadline); the timer is cleared either way. */
export async function within<T>(ctx: CaseContext, promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  const wait = timer(ctx, ms);
  try {
    const outcome = await Promise.race([promise, wait.elapsed.then(() => 'timeout' as const)]);
    if (outcome === 'timeout' && !ctx.signal.aborted) ctx.waited('deadline', 'a stream event', ms);
    return outcome;
  } finally {
    wait.cancel();
  }
}

/** Connection faults (what the client side of the binding refused or dropped) with one of these codes. */
export function faultsWithCode(ctx: CaseContext, codes: readonly string[]): { code: string; message: string }[] {
  return ctx.connection
    .faults()
    .filter((f) => codes.includes(f.code))
    .map((f) => ({ code: f.code, message: f.message }));
}
