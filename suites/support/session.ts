// What every server suite needs to get a case going: a session opened the way the target's
// transport expects (the WebTransport binding's `transport` member, `notifications/initialized`),
// error-answer checks, and set-up requests whose failure is the target's doing (a precondition),
// not a check of the case's own requirement.
import { TargetPreconditionError, type Applicability, type CaseContext, type Discovery } from '../../src/harness/index.js';
import { errorOf, isResponseTo, notification, request, resultResponse, type Message } from '../../src/protocol/jsonrpc.js';
import { LATEST_PROTOCOL_VERSION } from '../../src/protocol/methods.js';
import { isRecord } from '../../src/wire/index.js';

// The message model (types, guards, builders) is src/protocol/jsonrpc.ts's; the suites take it from here.
export {
  errorOf,
  errorResponse,
  idKey,
  isNotification,
  isRequest,
  isRequest as isRequestFromTarget,
  isResponse,
  isResponseTo,
  notification,
  paramsOf,
  request,
  resultResponse,
  type Message,
  type RequestId,
} from '../../src/protocol/jsonrpc.js';

/** The harness's clientInfo in every initialize the suites send. */
export const SUITE_CLIENT_INFO = { name: 'mcp-flow-conformance', version: '0.1.0' } as const;

/** The binding's `transport` member the suites offer by default (001 §Initialization). */
export const DEFAULT_BINDING_TRANSPORT = { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] } as const;

/** Deadline for a set-up step before --timeout-scale. */
export const SETUP_ANSWER_MS = 5_000;

export interface OpenSessionOptions {
  /** Default: the version the target negotiated in discovery, else the latest. */
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /**
   * The WebTransport binding's `transport` member. Default DEFAULT_BINDING_TRANSPORT on
   * WebTransport, nothing elsewhere; `null` omits it.
   */
  transport?: Record<string, unknown> | null;
  /** Send `notifications/initialized` after the result. Default true. */
  initialized?: boolean;
  /** The requirement a failed initialize breaks (default CORE-LIFE-3). */
  requirement?: string;
}

/** The initialize params `openSession` sends for these options on this connection. */
export function initializeParams(ctx: CaseContext, options: OpenSessionOptions = {}): Message {
  const transport = options.transport === undefined ? (ctx.connection.kind === 'webtransport' ? DEFAULT_BINDING_TRANSPORT : undefined) : options.transport;
  return {
    protocolVersion: options.protocolVersion ?? ctx.discovery.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    capabilities: options.capabilities ?? {},
    clientInfo: options.clientInfo ?? SUITE_CLIENT_INFO,
    ...(transport ? { transport } : {}),
  };
}

/**
 * Sends `method` and returns the whole response (result or error). No answer in time is a
 * TargetPreconditionError naming `requirement`: the case cannot go on, and the target is to blame.
 */
export async function setupRequest(ctx: CaseContext, method: string, params?: Message, requirement?: string): Promise<Message> {
  const id = ctx.nextId();
  await ctx.connection.send(request(id, method, params));
  try {
    const received = await ctx.next((r) => isResponseTo(r.message, id), { timeoutMs: SETUP_ANSWER_MS });
    return received.message as Message;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw new TargetPreconditionError(`${method} was not answered (${error instanceof Error ? error.message : String(error)})`, {
      ...(requirement !== undefined ? { requirement } : {}),
    });
  }
}

/** Like `setupRequest`, but an error answer is a precondition failure too; returns `result`. */
export async function setupResult(ctx: CaseContext, method: string, params?: Message, requirement?: string): Promise<Message> {
  const answer = await setupRequest(ctx, method, params, requirement);
  if (!isRecord(answer.result)) {
    throw new TargetPreconditionError(`${method} was answered without a result object`, {
      ...(requirement !== undefined ? { requirement } : {}),
      actual: answer.error ?? answer.result,
    });
  }
  return answer.result;
}

/**
 * initialize (+ notifications/initialized): the session every case but the lifecycle ones starts
 * from. Returns the initialize result; an error or no answer is a precondition failure.
 */
export async function openSession(ctx: CaseContext, options: OpenSessionOptions = {}): Promise<Message> {
  const result = await setupResult(ctx, 'initialize', initializeParams(ctx, options), options.requirement ?? 'CORE-LIFE-3');
  if (options.initialized ?? true) await ctx.connection.send(notification('notifications/initialized'));
  return result;
}

/**
 * Checks that `answer` is an error response with one of `codes`, as `requirement` demands.
 * An answer that never came was already failed by expectAnswer/request (pass `undefined`).
 */
export function checkErrorCode(
  ctx: CaseContext,
  requirement: string,
  answer: Message | undefined,
  codes: number | readonly number[],
  what: string,
): boolean {
  if (answer === undefined) return false;
  const accepted = typeof codes === 'number' ? [codes] : codes;
  const error = errorOf(answer);
  return ctx.check(requirement, error !== undefined && accepted.includes(error.code as number), {
    message: `${what} is answered with error ${accepted.join(' or ')}`,
    expected: { error: { code: accepted.length === 1 ? accepted[0] : accepted } },
    actual: error ? { error } : { result: answer.result },
  });
}

/** Answers a request the target sent us (e.g. `interaction.prompt`, `ping`). */
export async function answerTarget(ctx: CaseContext, request: { id: unknown }, result: Message = {}): Promise<void> {
  await ctx.connection.send(resultResponse(request.id, result));
}

/** Applicability: discovery found at least one tool `interaction.start` accepts (MCP Flow). */
export function requiresInteractiveTool(discovery: Discovery): Applicability {
  if (discovery.interactiveTools && discovery.interactiveTools.length > 0) return true;
  return discovery.interactiveTools === undefined
    ? 'the target advertises no MCP Flow interactive support (C-14)'
    : 'interaction.start accepted none of the listed tools (name one with --interactive-tool)';
}

/** The first interactive tool discovery found (use only in cases gated by requiresInteractiveTool). */
export function interactiveTool(ctx: CaseContext): string {
  const tool = ctx.discovery.interactiveTools?.[0];
  if (tool === undefined) throw new TargetPreconditionError('no interactive tool was found in discovery');
  return tool;
}
