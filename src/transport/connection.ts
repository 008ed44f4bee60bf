// One connection abstraction for every transport. The harness and both mock peers talk through
// `Connection`; what only one transport can do sits in an optional facet (`webtransport`, `http`,
// `stdio`) that is present exactly when the transport supports it, so callers discover it instead
// of calling something faked.
import type { Transcript, TranscriptChannel } from './transcript.js';

export type TransportKind = 'webtransport' | 'http' | 'stdio';

/** A message taken off the connection, with where and when it arrived. */
export interface ReceivedMessage {
  /** The decoded JSON-RPC message (not validated: hostile peers send anything). */
  message: unknown;
  channel: TranscriptChannel;
  /** Milliseconds since the Unix epoch. */
  at: number;
  /** The encoding it arrived in, where the transport has more than one. */
  encoding?: 'json' | 'cbor';
  /** The bytes of the message body (without framing), where the transport has them. */
  body?: Uint8Array;
}

export interface NextOptions {
  /** Deadline in milliseconds; the promise rejects with a ConnectionTimeoutError after it. */
  timeoutMs?: number;
  /** Aborts the wait (rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface CloseInfo {
  /** Who ended the connection. */
  initiator: 'local' | 'remote' | 'error';
  /** Close code where the transport has one (WebTransport close code, process exit code). */
  code?: number;
  reason?: string;
  error?: Error;
}

/** A problem the peer caused that did not end the connection (a frame that did not decode...). */
export interface ConnectionFault {
  code: string;
  message: string;
  jsonRpcCode?: number;
  channel: TranscriptChannel;
  at: number;
}

export interface Connection {
  readonly kind: TransportKind;
  readonly transcript: Transcript;
  /** Resolves once, when the connection has ended for any reason. Never rejects. */
  readonly closed: Promise<CloseInfo>;
  readonly isClosed: boolean;

  /** Sends one JSON-RPC message, encoded and framed as the transport does it. */
  send(message: unknown): Promise<void>;
  /**
   * Sends bytes exactly as given on the primary channel: the WebTransport control stream (no
   * length prefix added), an HTTP POST body, or stdin (no newline added).
   */
  sendRaw(bytes: Uint8Array): Promise<void>;
  /**
   * The next received message matching `predicate` (all messages when omitted). Messages that do
   * not match stay queued for later calls, in arrival order. Rejects with ConnectionTimeoutError
   * after the deadline and ConnectionClosedError once the connection ended with nothing left
   * that matches.
   */
  next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage>;
  /** Messages received and not yet taken by `next`. */
  pending(): readonly ReceivedMessage[];
  /** Faults seen so far (undecodable frames, bad headers...), oldest first. */
  faults(): readonly ConnectionFault[];
  /** Ends the connection. Idempotent; resolves when it is closed. */
  close(reason?: string): Promise<void>;

  readonly webtransport?: WebTransportFacet;
  readonly http?: HttpFacet;
  readonly stdio?: StdioFacet;
}

// ---------------------------------------------------------------------------------------------
// WebTransport binding (seed 001)

/** Connection states of 001 §1. */
export type WtConnectionState =
  | 'CLOSED'
  | 'CONNECTED'
  | 'CONTROL_STREAM_OPENED'
  | 'INITIALIZING'
  | 'READY';

/** What a server advertises in `result.transport` of its initialize result. */
export interface ServerTransportCapabilities {
  type?: string;
  version?: string;
  encoding: 'json' | 'cbor' | string;
  maxMessageSize: number;
  maxConcurrentStreams: number;
  datagramsSupported: boolean;
  [extra: string]: unknown;
}

export interface ExecutionStreamHeader {
  requestId: number;
  streamTag: number;
}

export interface IncomingExecutionStream {
  /** Transport-level stream id (for transcripts). */
  streamId: number;
  header: ExecutionStreamHeader;
  /** The payload after the 8-byte header, as it arrives. Read it or cancel it. */
  readable: ReadableStream<Uint8Array>;
  /** Stops reading (sends STOP_SENDING where the transport has it). */
  cancel(reason?: string): Promise<void>;
}

export interface OutgoingExecutionStream {
  streamId: number;
  header: ExecutionStreamHeader;
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the stream cleanly (FIN). */
  close(): Promise<void>;
  /** Resets the stream (RESET_STREAM), e.g. to test `$/streamError`. */
  abort(reason?: string): Promise<void>;
}

export interface ReceivedDatagram {
  channel: number;
  flags: number;
  requestId: number;
  payload: Uint8Array;
  /** The payload decoded in the negotiated encoding (progress and log channels). */
  decoded?: unknown;
  at: number;
}

export interface WebTransportFacet {
  readonly state: WtConnectionState;
  /** The encoding in force on the control stream ('json' until initialize completes). */
  readonly encoding: 'json' | 'cbor';
  /** The server's transport capabilities, once known. */
  readonly serverCapabilities: ServerTransportCapabilities | undefined;
  /** Opens a unidirectional execution stream and writes its 8-byte header. */
  openExecutionStream(header: ExecutionStreamHeader): Promise<OutgoingExecutionStream>;
  /** Opens a unidirectional stream and writes exactly these bytes first (a malformed header). */
  openRawStream(firstBytes: Uint8Array): Promise<OutgoingExecutionStream>;
  /** The next incoming execution stream (optionally matching), with its decoded header. */
  nextExecutionStream(
    predicate?: (stream: IncomingExecutionStream) => boolean,
    options?: NextOptions,
  ): Promise<IncomingExecutionStream>;
  /** Sends one datagram with its 6-byte header; payload bytes as given. */
  sendDatagram(datagram: { channel: number; flags?: number; requestId: number; payload: Uint8Array }): Promise<void>;
  /** Sends a datagram of exactly these bytes (no header added). */
  sendRawDatagram(bytes: Uint8Array): Promise<void>;
  nextDatagram(predicate?: (datagram: ReceivedDatagram) => boolean, options?: NextOptions): Promise<ReceivedDatagram>;
  /** Sends `$/shutdown`, stops opening streams, waits for in-flight streams, then closes. */
  shutdown(options?: { drainTimeoutMs?: number }): Promise<void>;
  /**
   * Ends (FIN) this side's control stream after what was already written, leaving the session
   * open: how a test shows that the peer closes the session when the control stream ends (WT-CONN-6)
   * or answers a frame cut short by that end (WT-FRAME-5).
   */
  endControlStream(): Promise<void>;
  /** The HTTP version the session runs over. */
  readonly httpVersion: 2 | 3;
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP

export interface RawHttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Path relative to the endpoint URL; the endpoint itself when omitted. */
  path?: string;
  /** Sends no Mcp-Session-Id even when one is known. */
  omitSessionId?: boolean;
  /** Leaves out the headers configured for every request (e.g. `--header` auth). */
  omitExtraHeaders?: boolean;
}

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** 'json' for application/json, 'sse' for text/event-stream, 'other' otherwise. */
  bodyKind: 'json' | 'sse' | 'other' | 'empty';
  /** The body as text (SSE: the whole stream until it ended or the deadline). */
  text: string;
  /** Parsed messages: the JSON body, or each SSE event's data parsed as JSON. */
  messages: unknown[];
  /** SSE events as received. */
  events: { event?: string; id?: string; data: string }[];
  /** True when the deadline ended the read before the body did (e.g. an SSE stream left open). */
  incomplete?: boolean;
}

/**
 * A message POST the server answered with an HTTP error status (4xx, 5xx): over Streamable HTTP
 * that is the server's answer to the messages in the body, whatever the body says. The body of an
 * HTTP error is free: a JSON-RPC message in it is delivered by `next()` like any other, anything
 * else (an HTML error page, plain text, nothing) is kept here and is not a fault.
 */
export interface HttpRefusal {
  status: number;
  /** Ids of the requests the refused POST carried (empty for a notification or a response). */
  requestIds: (string | number | null)[];
  /** The body's media type ('' when none) and its first 2 KiB as text. */
  contentType: string;
  text: string;
  /** The body carried at least one JSON-RPC message (delivered by `next()`). */
  carriedMessage: boolean;
  /** Milliseconds since the Unix epoch. */
  at: number;
}

export interface HttpFacet {
  /** The MCP session id the server assigned (Mcp-Session-Id), once known. */
  readonly sessionId: string | undefined;
  /** Sends one HTTP request exactly as given (plus the session header unless overridden). */
  request(request: RawHttpRequest, options?: NextOptions): Promise<RawHttpResponse>;
  /**
   * Every message POST (`send`, `sendRaw`) answered with an HTTP error status so far, oldest
   * first: how a case learns that a request was refused at the HTTP level (413 for a large body,
   * an HTML 400 page) rather than left unanswered.
   */
  refusals(): readonly HttpRefusal[];
}

// ---------------------------------------------------------------------------------------------
// stdio

export interface StdioFacet {
  readonly pid: number | undefined;
  /** Writes a line to the child's stdin (newline appended). */
  writeLine(line: string): Promise<void>;
  /** Lines the child wrote to stderr so far. */
  stderrLines(): readonly string[];
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
}
