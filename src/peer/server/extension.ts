// The contract between the mock server's core (server.ts) and the parts that plug into it: the
// MCP Flow engine, the core tools/resources/prompts, and anything else a session serves. An
// extension declares capabilities, request and notification handlers, tools and the faults it
// can switch on; the core runs the session (lifecycle, JSON-RPC, cancellation, progress, logging).
import type { Connection, WebTransportFacet } from '../../transport/connection.js';
import { FaultSet, type FaultDefinition } from '../faults.js';

/**
 * A JSON-RPC error a handler answers with. The core sends `{ code, message, data }` as the error
 * object of the response; any other exception a handler throws becomes -32603 (internal error).
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  /** The JSON-RPC error object. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export { defineFault, closestNames, type FaultDefinition, type FaultHooks } from '../faults.js';

/** Errors of the mock server's configuration (not of a peer's messages). */
export class MockServerError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A fault name that no catalog defines. */
export class UnknownFaultError extends MockServerError {
  readonly fault: string;
  /** Known names closest to the unknown one (best first). */
  readonly suggestions: readonly string[];
  constructor(fault: string, suggestions: readonly string[]) {
    super(
      'UNKNOWN_FAULT',
      `unknown fault ${JSON.stringify(fault)}` +
        (suggestions.length > 0 ? ` (did you mean ${suggestions.map((s) => JSON.stringify(s)).join(', ')}?)` : ''),
    );
    this.fault = fault;
    this.suggestions = suggestions;
  }
}

/** Two catalog entries with the same name. */
export class DuplicateFaultError extends MockServerError {
  readonly fault: string;
  constructor(fault: string) {
    super('DUPLICATE_FAULT', `fault ${JSON.stringify(fault)} is defined more than once`);
    this.fault = fault;
  }
}

/** The faults switched on for one server (the shared FaultSet, refusing bad names with the server's errors). */
export class ActiveFaults extends FaultSet {
  /** Throws UnknownFaultError for a name the catalog lacks, DuplicateFaultError for a catalog with a repeated name. */
  constructor(names: Iterable<string>, catalog: readonly FaultDefinition[]) {
    super(names, catalog, {
      unknown: (name, suggestions) => new UnknownFaultError(name, suggestions),
      duplicate: (name) => new DuplicateFaultError(name),
    });
  }

  /** No fault switched on. */
  static none(): ActiveFaults {
    return new ActiveFaults([], []);
  }
}

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** The RFC 5424 severities of logging/setLevel, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export interface SendRequestOptions {
  /** Rejects with a ServerRequestTimeoutError after this many milliseconds (default: the server's). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What a handler sees of its session. */
export interface ServerSessionContext {
  readonly connectionId: string;
  /** The transport kind ('webtransport', 'http', 'stdio', 'memory'). */
  readonly transport: string;
  /** The negotiated protocol version. */
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo: { name: string; version: string } | undefined;
  readonly faults: ActiveFaults;
  /** Aborted when the connection ends. */
  readonly signal: AbortSignal;
  /** A server-to-client request: resolves with the result, rejects RpcError with the client's error. */
  sendRequest(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown>;
  sendNotification(method: string, params?: unknown): Promise<void>;
  /** notifications/message, sent only when `level` is at or above the level set by logging/setLevel. */
  log(level: LogLevel, data: unknown, logger?: string): void;
}

/** What a request handler sees: the session plus this request. */
export interface RequestContext extends ServerSessionContext {
  readonly requestId: string | number;
  readonly method: string;
  /** Aborted by notifications/cancelled or $/cancel for this request (and when the connection ends). */
  readonly cancelled: AbortSignal;
  /** The request's `_meta.progressToken`, when it carried one. */
  readonly progressToken?: string | number;
  /** The connection's WebTransport facet (execution streams, datagrams), on WebTransport only. */
  readonly webtransport?: WebTransportFacet;
  /**
   * notifications/progress for the request's progressToken (a progress datagram on WebTransport
   * when negotiated); does nothing when the request carried no progressToken.
   */
  reportProgress(progress: number, total?: number, message?: string): Promise<void>;
}

export interface ToolResult {
  content: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
}

export interface ServerTool {
  name: string;
  description: string;
  inputSchema: object;
  title?: string;
  outputSchema?: object;
  call(args: Record<string, unknown>, ctx: RequestContext): Promise<ToolResult>;
  /**
   * Arguments that break inputSchema are answered with -32602 unless the tool answers them
   * itself (a profile with its own error style, e.g. FastWorkflow's 422): then this result, or
   * the RpcError it throws, is the answer.
   */
  argumentsRejected?(problems: string, ctx: RequestContext): ToolResult;
}

export interface ServerExtension {
  readonly name: string;
  /** Merged into the initialize result's capabilities. */
  capabilities?(ctx: ServerSessionContext): Record<string, unknown>;
  readonly requests?: Record<string, (params: unknown, ctx: RequestContext) => Promise<unknown>>;
  readonly notifications?: Record<string, (params: unknown, ctx: ServerSessionContext) => void | Promise<void>>;
  readonly tools?: readonly ServerTool[];
  readonly faults?: readonly FaultDefinition[];
  /** Members merged into the initialize result on this connection (e.g. the WebTransport binding's `transport`, WT-INIT-3). */
  initializeResult?(connection: Connection): Record<string, unknown> | undefined;
  onSessionEnd?(ctx: ServerSessionContext): void;
}
