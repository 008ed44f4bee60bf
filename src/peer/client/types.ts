// The shapes the mock client takes and gives: its options, what initialize found, and the outcomes
// of a call and of an interactive session.
import type { StreamInfo, StreamOutcome } from './streams.js';

export type Id = string | number;
export type Message = Record<string, unknown>;

export interface MockClientOptions {
  /** WebTransport: encodings offered in initialize, preferred first. Default ["cbor", "json"]. */
  encodings?: ('cbor' | 'json')[];
  /** Default the latest known protocol version. */
  protocolVersion?: string;
  clientInfo?: { name: string; version: string; [extra: string]: unknown };
  /** Declared client capabilities. Default {} (no sampling, roots or elicitation: such requests are refused). */
  capabilities?: Record<string, unknown>;
  /** Fault names (faults.ts). */
  faults?: Iterable<string>;
  /** Gets one readable line per frame and event (log.ts). */
  log?: (line: string) => void;
  /** Aborting closes the client. */
  signal?: AbortSignal;
  /** Liveness deadline for each answer the client waits for. Default 30000 ms. */
  requestTimeoutMs?: number;
  /** How long a `ref/stream` waits for its stream beyond the session's own grace. Default 1000 ms. */
  streamGraceMs?: number;
  /** After accepted:false, how long to wait for the server's re-prompt before answering the kept prompt again. Default 2000 ms. */
  repromptGraceMs?: number;
  /** Every notification the server sends (after the client handled it). */
  onNotification?: (message: Message) => void;
}

export interface InitializeInfo {
  protocolVersion: string;
  serverInfo: unknown;
  capabilities: Record<string, unknown>;
  /** The encoding in force after initialize (always json outside WebTransport). */
  encoding: 'json' | 'cbor';
  /** WebTransport: the server's result.transport. */
  transport?: Record<string, unknown>;
  /** The whole initialize result. */
  result: Message;
}

export interface ProgressReport {
  requestId: Id;
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (update: ProgressReport) => void;
  /** WebTransport: where the payload of each execution stream of this call goes (default: memory). */
  download?: (stream: StreamInfo) => WritableStream<Uint8Array> | undefined;
}

export interface RequestOptions {
  /** Aborting sends the cancel and rejects with the signal's reason. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Progress of this request (its id is sent as the progress token). */
  onProgress?: CallOptions['onProgress'];
  /** Called with the request id just before the request goes out. */
  beforeSend?: (id: Id) => void;
}

export interface CallOutcome {
  /** The result came, is not isError, and every stream it names arrived complete. */
  ok: boolean;
  requestId: Id;
  result?: Message;
  error?: { code?: number; message?: string; data?: unknown };
  /** The call was aborted (a cancel was sent unless a fault withheld it). */
  cancelled?: boolean;
  streams: StreamOutcome[];
  /** What went wrong, in words. */
  failures: string[];
}

export interface InteractionOutcome {
  status: 'completed' | 'cancelled' | 'failed';
  sessionId?: string;
  /** interaction.complete params.result. */
  result?: Message;
  summary?: string;
  /** What this client answered interaction.complete with as finalResult. */
  finalResult?: unknown;
  answers: number;
  rejections: number;
  /** Execution streams of the session (a file export over WebTransport). */
  streams: StreamOutcome[];
  failures: string[];
}

/** The JSON object `value` is, or undefined for anything else (arrays included). */
export function record(value: unknown): Message | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Message) : undefined;
}

/** A map key for a request id that keeps 1 and "1" apart. */
export function idKey(id: Id): string {
  return `${typeof id}:${String(id)}`;
}

/** A progress report from `notifications/progress` params or a progress datagram's payload. */
export function progressReport(requestId: Id, params: Message): ProgressReport {
  return {
    requestId,
    progress: params['progress'] as number,
    ...(typeof params['total'] === 'number' ? { total: params['total'] } : {}),
    ...(typeof params['message'] === 'string' ? { message: params['message'] } : {}),
  };
}

/** Resolves after `ms` (a timer that keeps no process alive). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
