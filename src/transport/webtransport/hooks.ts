// Where the layer above changes what one WebTransport session does. The session carries bytes and
// keeps the binding's bookkeeping (framing, the encoding switch, requests in flight, streams,
// datagrams); what a server admits before READY, how it negotiates, and every deliberate breakage
// attach here as hooks (the mock server's binding, src/peer/server/binding.ts; the mock client's
// faults). Every hook is optional: without it the session does what 001 says, in the readings the
// session was given. Hooks see the session through WtSessionView.
import type {
  ExecutionStreamHeader,
  OutgoingExecutionStream,
  ReceivedDatagram,
  ServerTransportCapabilities,
  WtConnectionState,
} from '../connection.js';
import type { Transcript } from '../transcript.js';
import type { DecodedFrame, EncodingName, WireError } from '../../wire/index.js';
import type { WtSessionLimits } from './limits.js';
import type { WtBindingReadings } from './readings.js';

export type WtRole = 'server' | 'client';

/** What a hook may read of its session and do with it. */
export interface WtSessionView {
  readonly role: WtRole;
  readonly transcript: Transcript;
  readonly limits: WtSessionLimits;
  /** The accepted readings the session takes (server role; the recommended ones for a client). */
  readonly readings: WtBindingReadings;
  /** Server role: the encodings this server speaks, preferred first. */
  readonly encodings: readonly EncodingName[];
  /** Server role: whether datagrams are accepted (advertised as datagramsSupported). */
  readonly datagramsSupported: boolean;
  readonly state: WtConnectionState;
  /** The encoding in force on the control stream, and whether it was negotiated yet. */
  readonly encoding: EncodingName;
  readonly encodingNegotiated: boolean;
  /** The id of the initialize request this session is answering or answered. */
  readonly initializeRequestId: string | number | undefined;
  readonly isClosed: boolean;
  /** Execution streams this side has open. */
  readonly outgoingStreams: number;
  /** Ids of the peer's requests not answered yet. */
  receivedRequestIds(): Array<string | number>;
  /** Takes a control message as received (delivered by next() once the streams it references came). */
  deliver(message: unknown, frame: DecodedFrame): void;
  /** Queues a message for next() that did not come from the peer (noted as local in the transcript). */
  deliverLocal(message: unknown, note: string): void;
  /** Records what the peer broke (faults()) and answers it with a JSON-RPC error on the control stream. */
  refuse(id: string | number | null, code: number, faultCode: string, message: string): void;
  /** Records what the peer broke (faults()) without answering. */
  report(faultCode: string, message: string, jsonRpcCode?: number): void;
  send(message: unknown): Promise<void>;
  sendError(id: string | number | null, code: number, message: string, data?: unknown): Promise<void>;
  /** Sends a datagram of exactly these bytes (`requestId` names it in the transcript). */
  sendDatagramBytes(bytes: Uint8Array, requestId?: number): Promise<void>;
  /** Opens an execution stream writing exactly these header bytes first. */
  openStream(headerBytes: Uint8Array, header: ExecutionStreamHeader): Promise<OutgoingExecutionStream>;
  /** Resolves true once `condition` holds (re-checked on every change of the session), false after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs?: number): Promise<boolean>;
  close(reason: string): Promise<void>;
  /** Closes the session once what was written has gone out (the peer gets a moment to read it). */
  closeAfterWrites(reason: string): Promise<void>;
  /** Ends the session by a transport error instead of a close (its HTTP/2 stream reset; HTTP/2 only). */
  resetTransport(reason: string): Promise<void>;
}

/** Options of the control-stream reader: the largest body read, and what follows a length error. */
export interface ControlReaderSettings {
  maxMessageSize: number;
  afterLengthError: 'close' | 'skip';
}

/**
 * How a control frame the reader refused is handled: 'answer' (recorded and answered, the
 * default), 'unanswered' (recorded only), 'skip' (as if it never came), 'serve-in-its-encoding'
 * (a body in the other encoding decoded in that encoding and served), 'read-body-as-frames' (an
 * oversized frame's body read as the next frames), 'serve-partial-body' (at the end of the stream,
 * the bytes of the incomplete frame served when they decode), 'answer-then-close' (answered, then
 * the session closes as if the frame had lost the stream's sync).
 */
export type RefusedFrameHandling = 'answer' | 'unanswered' | 'skip' | 'serve-in-its-encoding' | 'read-body-as-frames' | 'serve-partial-body' | 'answer-then-close';

/** What the frame hook may see and use of an outgoing message's frame. */
export interface OutgoingFrame {
  /** The message is the result of the initialize request (the last JSON frame before the switch). */
  readonly initializeResult: boolean;
  /** CBOR was negotiated and is in force (read before this frame was encoded). */
  readonly cbor: boolean;
  /** The message as one frame in a chosen encoding (the encoding state left alone). */
  encodeAs(encoding: EncodingName): Uint8Array;
}

export interface WtSessionHooks {
  // ---- control stream, inbound --------------------------------------------------------------
  /** The control-stream reader's settings, when it is made ('start') and once the session is READY ('ready'). */
  readerSettings?(phase: 'start' | 'ready', settings: ControlReaderSettings): ControlReaderSettings;
  /** A control chunk arrived while `buffered` bytes of a frame begun in an earlier read wait. */
  chunkArrived?(buffered: number): 'keep' | 'drop-buffered';
  /** A control frame the reader refused (or, `atEnd`, the stream ended inside one). */
  frameRefused?(error: WireError, atEnd: boolean): RefusedFrameHandling;
  /**
   * Server role: a decoded control message, recorded as received. Returns the message to take
   * (possibly another), or undefined when the hook answered, held or dropped it. An initialize
   * request taken before READY starts the handshake (INITIALIZING).
   */
  admit?(message: unknown, frame: DecodedFrame, view: WtSessionView): unknown;
  /** Before a taken control message is delivered: something to wait for first. */
  beforeDelivery?(view: WtSessionView): Promise<unknown> | undefined;
  /** The peer ended its control stream: the session closes (default) or stays open. */
  controlStreamEnded?(): 'close' | 'keep-open';

  // ---- control stream, outbound -------------------------------------------------------------
  /** A message about to be sent: the message to send instead (itself to leave it). */
  outgoing?(message: unknown, view: WtSessionView): unknown;
  /** Whether this response goes out as a datagram instead of on the control stream. */
  responseAsDatagram?(message: unknown, view: WtSessionView): boolean;
  /** The frame of an outgoing message: the bytes to write instead. */
  frame?(message: unknown, frame: Uint8Array, context: OutgoingFrame): Uint8Array;
  /** After a message went out on the control stream. */
  afterSend?(message: unknown, view: WtSessionView): Promise<void> | void;
  /** A binding error the session itself answers (a frame, stream or datagram): the id it carries. */
  bindingErrorId?(id: string | number | null): string | number | null;
  /** Server role: the session answered initialize, with a result (READY) or an error. */
  initializeAnswered?(ok: boolean, view: WtSessionView): void;
  /** Server role: the `result.transport` this session answers initialize with (WebTransportSessionConnection.negotiate). */
  negotiate?(view: WtSessionView): ServerTransportCapabilities;

  // ---- execution streams --------------------------------------------------------------------
  /** The 8 header bytes of a stream this side opens: the bytes to write instead. */
  executionHeader?(bytes: Uint8Array, header: ExecutionStreamHeader): Uint8Array;
  /** After this side opened an execution stream. */
  streamOpened?(header: ExecutionStreamHeader, headerBytes: Uint8Array, view: WtSessionView): Promise<void>;
  /** A chunk this side writes on an execution stream: the bytes to write instead. */
  streamChunk?(chunk: Uint8Array, header: ExecutionStreamHeader): Uint8Array;
  /** Opening a stream while `$/shutdown` is in progress: refused (default) or opened. */
  streamWhileShuttingDown?(): 'refuse' | 'open';
  /**
   * A peer stream over maxConcurrentStreams: refused with `code` (default -32000) and `message`
   * (default: the session's, naming the limit), or accepted.
   */
  streamOverLimit?(code: number, message: string): { refuse: number; message?: string } | 'accept';
  /**
   * A peer stream whose header names no request in flight: refused and reported on the control
   * stream (default), refused without that report ('refuse-unreported'), or accepted.
   */
  injectedStream?(header: ExecutionStreamHeader): 'refuse' | 'refuse-unreported' | 'accept';
  /** A peer stream that ended inside its 8-byte header: handled as the readings say (default), or the session closes. */
  truncatedStreamHeader?(error: WireError): 'default' | 'close-session';
  /** A request whose ref/stream names a stream that never came: answered -32001 (default), or left unanswered. */
  danglingStreamReference?(id: string | number): 'answer' | 'leave-unanswered';

  // ---- datagrams ----------------------------------------------------------------------------
  /** The payload of a datagram this side sends (before its header is added): the payload to send instead. */
  datagramPayload?(payload: Uint8Array, channel: number, encoding: EncodingName): Uint8Array;
  /** A whole datagram this side sends: the bytes to send instead. */
  datagramBytes?(bytes: Uint8Array, datagram: { channel: number; requestId: number }): Uint8Array;
  /** A datagram received although this server does not support datagrams: refused with -32004 (default), or dropped silently. */
  datagramWhileUnsupported?(datagram: ReceivedDatagram): 'refuse' | 'drop';
  /** A malformed datagram (dropped): dropped (default), or the session closes. */
  datagramMalformed?(error: WireError, bytes: Uint8Array): 'drop' | 'close-session';
  /** A datagram naming no request in flight, dropped. */
  datagramNotInFlight?(datagram: ReceivedDatagram, view: WtSessionView): void;

  // ---- shutdown -----------------------------------------------------------------------------
  /** The peer sent `$/shutdown`: drain then close (default), ignore it, or close at once. */
  shutdownReceived?(): 'drain' | 'ignore' | 'close-now';
  /** The peer's `$/shutdown` was drained: something to do before the session closes (the close waits for it). */
  drained?(view: WtSessionView): Promise<void> | void;
}
