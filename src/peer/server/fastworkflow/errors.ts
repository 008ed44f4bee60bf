// FastWorkflow failures and how they reach the client (004 §10, profile C-26). A tool throws a
// FastWorkflowFailure carrying the HTTP-equivalent status; the extension reports it in the
// configured style: a JSON-RPC error with data.httpStatus (the default, codes per FW-ERR-4), a
// JSON-RPC error whose code is the status itself, a tools/call result with isError and
// httpStatus, or an isError result whose text states the status the way fastapi_mcp does.
import { MockServerError, RpcError, type ToolResult } from '../extension.js';

/** The statuses 004 §10 names, each with its meaning there (FW-ERR-2). */
export const FASTWORKFLOW_HTTP_STATUS = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE: 422,
  INTERNAL: 500,
  TIMEOUT: 504,
} as const;
export type FastWorkflowHttpStatus = (typeof FASTWORKFLOW_HTTP_STATUS)[keyof typeof FASTWORKFLOW_HTTP_STATUS];

/**
 * The JSON-RPC code of each status when failures travel as JSON-RPC errors with data.httpStatus
 * (FW-ERR-4): 422 is Invalid params, 500 Internal error, and 404/409/504 sit in the
 * implementation-defined server range -32000..-32099.
 */
export const FASTWORKFLOW_JSONRPC_CODE: Readonly<Record<FastWorkflowHttpStatus, number>> = Object.freeze({
  404: -32004,
  409: -32009,
  422: -32602,
  500: -32603,
  504: -32054,
});

/**
 * How failures are reported, one per accepted reading of FW-ERR-4:
 * `data.httpStatus` (recommended), `code` (the JSON-RPC code is the HTTP status), `isError` (a
 * tools/call result with isError and httpStatus in structuredContent and the JSON text), `text`
 * (an isError result whose one text item is fastapi_mcp's "Error calling <tool>. Status code:
 * <n>. Response: <body>").
 */
export type FailureStyle = 'data.httpStatus' | 'code' | 'isError' | 'text';
export const FAILURE_STYLES: readonly FailureStyle[] = ['data.httpStatus', 'code', 'isError', 'text'];

/** Context a failure carries where relevant (FW-ERR-3). */
export interface FailureContext {
  user_id?: string;
  conversation_id?: string | null;
  /** Anything else that helps the client (e.g. the offending parameter). */
  [key: string]: unknown;
}

/** A FastWorkflow failure with its HTTP-equivalent status; never a success in disguise. */
export class FastWorkflowFailure extends Error {
  readonly httpStatus: FastWorkflowHttpStatus;
  readonly context: FailureContext;
  constructor(httpStatus: FastWorkflowHttpStatus, message: string, context: FailureContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FastWorkflowFailure';
    this.httpStatus = httpStatus;
    this.context = context;
  }

  /** The failure's JSON object: httpStatus, message and its context. */
  body(): Record<string, unknown> {
    return { httpStatus: this.httpStatus, message: this.message, ...this.context };
  }
}

/** 404: session, user or conversation not found. */
export function notFound(message: string, context?: FailureContext): FastWorkflowFailure {
  return new FastWorkflowFailure(404, message, context);
}
/** 409: a turn is already in progress in this session. */
export function conflict(message: string, context?: FailureContext): FastWorkflowFailure {
  return new FastWorkflowFailure(409, message, context);
}
/** 422: validation failure (bad arguments, malformed command, feedback with both fields null). */
export function unprocessable(message: string, context?: FailureContext): FastWorkflowFailure {
  return new FastWorkflowFailure(422, message, context);
}
/** 504: no CommandOutput within timeout_seconds. */
export function timedOut(message: string, context?: FailureContext): FastWorkflowFailure {
  return new FastWorkflowFailure(504, message, context);
}
/** 500: an unexpected error, reported rather than swallowed (FW-ERR-5). */
export function internal(message: string, context?: FailureContext, cause?: unknown): FastWorkflowFailure {
  return new FastWorkflowFailure(500, message, context, { cause });
}

/**
 * Reports a failure of `tool` in `style`: returns the isError tool result, or throws the RpcError
 * the core sends as the JSON-RPC error. `withoutStatus` drops every trace of the status (fault
 * failure-without-status, FW-ERR-4).
 */
export function reportFailure(failure: FastWorkflowFailure, style: FailureStyle, withoutStatus = false, tool = 'the tool'): ToolResult {
  const { httpStatus, message, context } = failure;
  if (withoutStatus) throw new RpcError(-32000, message, Object.keys(context).length > 0 ? { ...context } : undefined);
  switch (style) {
    case 'isError': {
      const body = failure.body();
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    }
    case 'text':
      // fastapi_mcp's report of a failing endpoint; the body is FastAPI's {"detail": ...}.
      return { isError: true, content: [{ type: 'text', text: `Error calling ${tool}. Status code: ${httpStatus}. Response: ${JSON.stringify({ detail: message, ...context })}` }] };
    case 'code':
      throw new RpcError(httpStatus, message, Object.keys(context).length > 0 ? { ...context } : undefined);
    case 'data.httpStatus':
      throw new RpcError(FASTWORKFLOW_JSONRPC_CODE[httpStatus], message, { httpStatus, ...context });
  }
}

/** A fastWorkflowExtension option that makes no sense (e.g. a non-positive timeout). */
export class FastWorkflowOptionsError extends MockServerError {
  readonly option: string;
  constructor(option: string, message: string) {
    super('FASTWORKFLOW_OPTIONS_INVALID', `fastWorkflowExtension option ${option}: ${message}`);
    this.option = option;
  }
}

/** The conversation store could not read or write its directory. */
export class ConversationStoreError extends MockServerError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('CONVERSATION_STORE_FAILED', `conversation store ${path}: ${message}`);
    this.path = path;
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}
