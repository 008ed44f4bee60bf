// One MCP Flow session over WebTransport (seed 001), for either role: the control stream with its
// 001 §1 state machine and encoding switch, execution streams correlated with in-flight requests,
// datagrams, and `$/shutdown`. The server role enforces the binding; the client role records what
// the server does and enforces nothing the harness needs to break.
import { ArrivalQueue } from '../arrival-queue.js';
import type {
  CloseInfo,
  Connection,
  ConnectionFault,
  ExecutionStreamHeader,
  IncomingExecutionStream,
  NextOptions,
  OutgoingExecutionStream,
  ReceivedDatagram,
  ReceivedMessage,
  ServerTransportCapabilities,
  WebTransportFacet,
  WtConnectionState,
} from '../connection.js';
import { ConnectionClosedError, InvalidStateError, LimitExceededError } from '../errors.js';
import { Transcript, type TranscriptChannel } from '../transcript.js';
import {
  codecFor,
  ControlStreamReader,
  ControlStreamWriter,
  decodeDatagram,
  encodeDatagram,
  encodeExecHeader,
  EncodingState,
  ExecHeaderDecoder,
  initializeRequestId,
  losesSync,
  negotiatedEncoding,
  WireError,
  EncodingMismatchError,
  isEncodingName,
  MAX_FRAME_LENGTH,
  type DecodedFrame,
  type EncodingName,
} from '../../wire/index.js';
import { DatagramsNotSupportedError, StreamOpenError, StreamResetError, WT_ERROR } from './errors.js';
import { cborBodyWithFloatId, cborPayloadAsJson, lengthPrefixed, shiftRefStreamTags } from './fault-rewrites.js';
import { WEBTRANSPORT_FAULT as FAULT, type FaultSet } from './faults.js';
import { InFlightRequests, streamTagsReferenced } from './in-flight.js';
import type { WtSessionLimits } from './limits.js';
import { RECOMMENDED_BINDING_READINGS, type WtBindingReadings } from './readings.js';
import { WtStateMachine } from './state-machine.js';

export type WtRole = 'server' | 'client';

/** The subset of the library's session (a W3C WebTransport object) this file uses. */
export interface LibrarySession {
  readonly ready: Promise<unknown>;
  readonly closed: Promise<{ closeCode?: number; reason?: string } | undefined>;
  readonly incomingBidirectionalStreams: ReadableStream<BidiStream>;
  readonly incomingUnidirectionalStreams: ReadableStream<ReadableStream<Uint8Array>>;
  createBidirectionalStream(): Promise<BidiStream>;
  createUnidirectionalStream(): Promise<WritableStream<Uint8Array>>;
  readonly datagrams: {
    readonly readable: ReadableStream<Uint8Array>;
    createWritable(): WritableStream<Uint8Array>;
  };
  close(info?: { closeCode?: number; reason?: string }): void;
}

export interface BidiStream {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

export interface WtSessionInit {
  role: WtRole;
  session: LibrarySession;
  httpVersion: 2 | 3;
  limits: WtSessionLimits;
  transcript?: Transcript;
  /** Server role: encodings this server can speak, in its preference order when the client gives none. */
  encodings?: readonly EncodingName[];
  /** Server role: whether datagrams are accepted (advertised as datagramsSupported). */
  datagramsSupported?: boolean;
  /** Client role: enforce nothing locally (send datagrams and streams whatever the server said). */
  raw?: boolean;
  /** Server role: binding faults switched on (faults.ts); each breaks one rule on purpose. */
  faults?: FaultSet;
  /** Server role: which accepted reading to take where the profile accepts several (readings.ts). Default: the recommended ones. */
  readings?: WtBindingReadings;
  /**
   * Client role: also answer what the server role answers (default false: the harness's client only
   * records): a control frame that does not decode (-32700, id null), an injected execution stream
   * (-32002, id null), a `ref/stream` naming no stream (-32001, id null). `true` answers all three.
   */
  answerErrors?: boolean | ClientErrorAnswers;
}

/** Which binding errors a client-role session answers on the control stream (WtSessionInit.answerErrors). */
export interface ClientErrorAnswers {
  /** Control frames (and stream headers) that do not decode: WT-FRAME-4/5. */
  parseErrors?: boolean;
  /** Execution streams naming no request in flight: WT-EXEC-9. */
  streamInjection?: boolean;
  /** `ref/stream` items naming no execution stream: WT-EXEC-3. */
  streamReferences?: boolean;
}

const MCP_FLOW_TRANSPORT_TYPE = 'mcp-flow';
const MCP_FLOW_TRANSPORT_VERSION = '0.1';

/** A WebTransport MCP Flow session as a Connection (with the `webtransport` facet). */
/**
 * The fault code of a message other than initialize that arrived before READY, naming what the
 * client broke: a first message that is not initialize (WT-CONN-3), or a message sent between
 * initialize and its result (WT-CONN-5), where a ping is allowed (its refusal is the server's
 * reading of WT-CONN-4, not the client's fault).
 */
function beforeReadyCode(state: 'CONTROL_STREAM_OPENED' | 'INITIALIZING', method: unknown): string {
  if (state === 'CONTROL_STREAM_OPENED') return 'FIRST_MESSAGE_NOT_INITIALIZE';
  return method === 'ping' ? 'PING_WHILE_INITIALIZING' : 'MESSAGE_BEFORE_READY';
}

export class WebTransportSessionConnection implements Connection {
  readonly kind = 'webtransport' as const;
  readonly transcript: Transcript;
  readonly closed: Promise<CloseInfo>;
  readonly webtransport: WebTransportFacet;
  readonly role: WtRole;

  readonly #session: LibrarySession;
  readonly #limits: WtSessionLimits;
  readonly #raw: boolean;
  readonly #encodings: readonly EncodingName[];
  readonly #datagramsSupported: boolean;
  readonly #machine: WtStateMachine;
  readonly #encoding = new EncodingState();
  readonly #inFlight = new InFlightRequests();
  readonly #messages = new ArrivalQueue<ReceivedMessage>('message');
  readonly #streams = new ArrivalQueue<IncomingExecutionStream>('execution stream');
  readonly #datagrams = new ArrivalQueue<ReceivedDatagram>('datagram');
  readonly #faults: ConnectionFault[] = [];
  #reader: ControlStreamReader;
  /** Control-stream offset at which #reader started (its error offsets count from there). */
  #readerBase = 0;
  readonly #writer: ControlStreamWriter;
  readonly #seenStreams = new Set<string>();
  readonly #changeListeners = new Set<() => void>();

  #control: BidiStream | undefined;
  /** Set when the control stream lost frame sync (WT-FRAME-3): nothing after it is readable. */
  #controlFailure: WireError | undefined;
  #controlWriter: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #writeChain: Promise<void> = Promise.resolve();
  /** False once our side of the control stream is closed or errored (writing then trips Node's stream internals). */
  #controlWritable = true;
  /** Server role: the protocolVersion the client's initialize asked for (fault initialize-version-echoed). */
  #requestedVersion: unknown;
  /** Server role: the last datagram sent per request id (faults datagram-after-result, result-only-in-datagram). */
  readonly #datagramsSentFor = new Map<number, Uint8Array>();
  #deliveryChain: Promise<void> = Promise.resolve();
  #pendingBytes = 0;
  #incomingOpen = 0;
  #outgoingOpen = 0;
  #nextLocalUni: number;
  #nextRemoteUni: number;
  #offeredEncodings: readonly string[] | undefined;
  #serverCapabilities: ServerTransportCapabilities | undefined;
  #shuttingDown = false;
  #shutdownSent = false;
  #closeStarted: 'local' | 'remote' | 'error' | undefined;
  #isClosed = false;
  #resolveClosed!: (info: CloseInfo) => void;
  #datagramWriter: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #datagramsInQueue = 0;
  /** Faults switched on (server role; see faults.ts). */
  readonly #injected: FaultSet | undefined;
  /** The accepted readings this (server) side takes (readings.ts). */
  readonly #readings: WtBindingReadings;
  /** Server role: requests that arrived while initializing, served once READY (reading requestWhileInitializing). */
  #heldUntilReady: DecodedFrame[] = [];
  /** Server role: ids named by a received `$/cancel` (their -32000 answer may take another code, WT-CANCEL-2). */
  readonly #cancelledIds = new Set<string | number>();
  /** Server role: requests the binding itself answered (WT-DGRAM-5 reading); a later answer from above is dropped. */
  readonly #answeredByBinding = new Set<string | number>();
  /** Which binding errors this session answers (always all in the server role). */
  readonly #answers: Required<ClientErrorAnswers>;
  /** Stream offset of the next control-stream chunk (FAULT: accept-*-mismatch finds the frame in its chunk). */
  #controlOffset = 0;
  /** FAULT switch-encoding-late: the one late JSON message has gone out. */
  #lateSwitchDone = false;

  constructor(init: WtSessionInit) {
    this.role = init.role;
    this.#session = init.session;
    this.#limits = init.limits;
    this.#raw = init.raw ?? false;
    this.#encodings = init.encodings ?? ['cbor', 'json'];
    this.#datagramsSupported = init.datagramsSupported ?? true;
    this.#injected = init.faults;
    this.#readings = init.role === 'server' ? (init.readings ?? RECOMMENDED_BINDING_READINGS) : RECOMMENDED_BINDING_READINGS;
    const answers = init.role === 'server' || init.answerErrors === true ? {} : init.answerErrors === undefined || init.answerErrors === false ? undefined : init.answerErrors;
    this.#answers = {
      parseErrors: answers ? answers.parseErrors ?? true : false,
      streamInjection: answers ? answers.streamInjection ?? true : false,
      streamReferences: answers ? answers.streamReferences ?? true : false,
    };
    this.transcript = init.transcript ?? new Transcript();
    this.#machine = new WtStateMachine(this.transcript);
    this.#reader = this.#newReader(this.#broken(FAULT.acceptOversizedFrame) ? MAX_FRAME_LENGTH : this.#limits.maxMessageSize);
    this.#writer = new ControlStreamWriter({ state: this.#encoding, maxMessageSize: this.#limits.maxMessageSize, role: this.role });
    // QUIC-style stream ids: uni streams opened by the client are 4n+2, by the server 4n+3.
    this.#nextLocalUni = this.role === 'client' ? 2 : 3;
    this.#nextRemoteUni = this.role === 'client' ? 3 : 2;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.webtransport = this.#facet(init.httpVersion);
    this.#machine.transition('CONNECTED', 'WebTransport session established');
    this.transcript.event(`session open (${this.role}, HTTP/${init.httpVersion})`);
    this.#session.closed.then(
      (info) => this.#finish({ initiator: this.#closeStarted ?? 'remote', code: info?.closeCode, reason: info?.reason }),
      (error: Error) =>
        this.#finish({ initiator: this.#closeStarted ?? 'error', reason: error?.message, error: asError(error) }),
    );
    void this.#acceptBidirectionalStreams();
    void this.#acceptUnidirectionalStreams();
    void this.#readDatagrams();
  }

  /** A control-stream reader enforcing `maxMessageSize` (faults replace the reader mid-stream). */
  #newReader(maxMessageSize: number): ControlStreamReader {
    this.#readerBase = this.#controlOffset;
    return new ControlStreamReader({
      state: this.#encoding,
      // FAULT accept-oversized-frame: read frames up to the largest length a prefix can declare.
      maxMessageSize,
      role: this.role,
      // FAULT accept-zero-length-frame: a zero-length frame is skipped (and ignored in #onControlError).
      // Reading afterLengthError 'skip' (WT-FRAME-7): an oversized frame's body is skipped, the stream stays in sync.
      ...(this.#broken(FAULT.acceptZeroLengthFrame) || (this.role === 'server' && this.#readings.afterLengthError === 'skip') ? { afterLengthError: 'skip' as const } : {}),
    });
  }

  // ---- Connection ---------------------------------------------------------------------------

  /** How client-to-server requests travel from this end (the only ones streams and datagrams name). */
  get #clientRequests(): 'sent' | 'received' {
    return this.role === 'client' ? 'sent' : 'received';
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** The encodings the client offered in its initialize request (server role). */
  get offeredEncodings(): readonly string[] | undefined {
    return this.#offeredEncodings;
  }

  /**
   * Server role: the `result.transport` this server would answer the client's initialize with:
   * the first encoding in the client's list that this server speaks ("json" when the client
   * offered none, 001 §3 rule 4), and this session's limits.
   */
  negotiate(): ServerTransportCapabilities {
    const offered = this.#offeredEncodings;
    const speaks = (name: string) => this.#encodings.includes(name as EncodingName);
    let encoding = offered === undefined ? 'json' : (offered.find(speaks) ?? 'json');
    // FAULT ignore-encoding-preference: the last supported encoding in the client's list wins.
    if (this.#broken(FAULT.ignoreEncodingPreference) && offered) encoding = [...offered].reverse().find(speaks) ?? 'json';
    // FAULT default-encoding-not-json: no list offered selects CBOR.
    if (this.#broken(FAULT.defaultEncodingNotJson) && offered === undefined) encoding = 'cbor';
    // FAULT unsupported-encoding-selected: none supported selects the first offered anyway.
    if (this.#broken(FAULT.unsupportedEncodingSelected) && offered && !offered.some(speaks)) encoding = offered.find(isEncodingName) ?? 'json';
    // FAULT encoding-not-offered-selected: CBOR although the client offered only JSON.
    if (this.#broken(FAULT.encodingNotOfferedSelected) && offered && !offered.includes('cbor') && speaks('cbor')) encoding = 'cbor';
    const capabilities: ServerTransportCapabilities = {
      type: MCP_FLOW_TRANSPORT_TYPE,
      version: MCP_FLOW_TRANSPORT_VERSION,
      encoding,
      maxMessageSize: this.#limits.maxMessageSize,
      maxConcurrentStreams: this.#limits.maxConcurrentStreams,
      datagramsSupported: this.#datagramsSupported,
    };
    // FAULT advertise-missing-capabilities: a required field is left out.
    if (this.#broken(FAULT.advertiseMissingCapabilities)) delete (capabilities as Partial<ServerTransportCapabilities>).maxConcurrentStreams;
    return capabilities;
  }

  /** Client role: opens the control stream (001 §1 CONNECTED -> CONTROL_STREAM_OPENED). */
  async openControlStream(): Promise<void> {
    if (this.#control) throw new InvalidStateError('the control stream is already open');
    const stream = await this.#session.createBidirectionalStream();
    this.#attachControl(stream, 0);
  }

  async send(message: unknown): Promise<void> {
    this.#assertOpen();
    const writer = this.#requireControl();
    if (this.role === 'server') {
      const answered = this.#answerAlreadyGiven(message);
      if (answered !== undefined) {
        this.transcript.event(`answer to request ${JSON.stringify(answered)} not sent: the binding already answered it (-32004)`);
        return;
      }
      message = this.#cancelledAnswer(message);
      message = this.#faultyOutgoing(message);
      // FAULT result-only-in-datagram.
      const id = record(message)?.['id'];
      if (this.#broken(FAULT.resultOnlyInDatagram) && typeof id === 'number' && this.#datagramsSentFor.has(id) && !('method' in (record(message) ?? {}))) {
        this.#noteSent(message);
        this.transcript.event(`response to ${id} sent only as a datagram (fault)`);
        const payload = codecFor(this.#encoding.current).encode(message);
        await this.#sendDatagramBytes(encodeDatagram({ channel: 0x01, flags: 0, requestId: id, payload }), { kind: 'datagram', channel: 0x01, requestId: id });
        return;
      }
    }
    const frame = this.#encodeOutgoing(message);
    const advertised = this.#serverCapabilities?.maxMessageSize;
    if (this.role === 'client' && !this.#raw && typeof advertised === 'number' && frame.byteLength - 4 > advertised) {
      // WT-FRAME-9 (the raw client may send it anyway, to test the server's WT-FRAME-3).
      throw new LimitExceededError(
        'maxMessageSize',
        `message body of ${frame.byteLength - 4} bytes exceeds the server's maxMessageSize ${advertised}`,
      );
    }
    this.#noteSent(message);
    this.transcript.record({ direction: 'sent', channel: CONTROL, bytes: frame, decoded: message });
    await this.#write(writer, frame);
    if (this.role === 'server') await this.#afterSentFaults(message);
  }

  /** Server role: the id of a response to a request the binding already answered itself, or undefined. */
  #answerAlreadyGiven(message: unknown): string | number | undefined {
    const m = record(message);
    const id = m?.['id'];
    if (m === undefined || 'method' in m || (typeof id !== 'string' && typeof id !== 'number') || !this.#answeredByBinding.has(id)) return undefined;
    return id;
  }

  /** Server role: the -32000 "Cancelled" answer to a `$/cancel`led request, with the code the readings take (WT-CANCEL-2). */
  #cancelledAnswer(message: unknown): unknown {
    const m = record(message);
    const error = record(m?.['error']);
    const id = m?.['id'];
    if (!error || error['code'] !== WT_ERROR.CANCELLED || (typeof id !== 'string' && typeof id !== 'number') || !this.#cancelledIds.has(id)) return message;
    const code = this.#readings.cancelledCode;
    return code === WT_ERROR.CANCELLED ? message : { ...m, error: { ...error, code } };
  }

  /** Server role: what some faults change in an outgoing message before it is encoded. */
  #faultyOutgoing(message: unknown): unknown {
    const m = record(message);
    if (!m) return message;
    let out: unknown = message;
    const isRequest = typeof m['method'] === 'string' && 'id' in m;
    // FAULT initialize-version-echoed: the result names whatever version the client asked for.
    if (this.#broken(FAULT.initializeVersionEchoed) && this.#machine.state === 'INITIALIZING' && m['id'] === this.#encoding.initializeRequestId) {
      const result = record(m['result']);
      if (result && typeof this.#requestedVersion === 'string') out = { ...m, result: { ...result, protocolVersion: this.#requestedVersion } };
    }
    // FAULT ref-stream-tag-mismatch.
    if (this.#broken(FAULT.refStreamTagMismatch) && 'result' in m) out = shiftRefStreamTags(out);
    // FAULT string-ids-for-server-requests.
    if (this.#broken(FAULT.stringIdsForServerRequests) && isRequest && typeof m['id'] === 'number') out = { ...record(out), id: `s-${m['id']}` };
    // FAULT binding-code-for-unknown-method: -32601 goes out as -32001.
    const error = record(m['error']);
    if (this.#broken(FAULT.bindingCodeForUnknownMethod) && error?.['code'] === -32601) out = { ...record(out), error: { ...error, code: WT_ERROR.INVALID_STREAM_REFERENCE } };
    return out;
  }

  /** Server role: what some faults send after a message went out. */
  async #afterSentFaults(message: unknown): Promise<void> {
    const m = record(message);
    const id = m?.['id'];
    if (typeof id !== 'number' || !isU32(id) || this.#isClosed) return;
    const isRequest = typeof m?.['method'] === 'string';
    // FAULT datagram-for-server-request: a progress datagram names the server's own request.
    if (isRequest && this.#broken(FAULT.datagramForServerRequest) && this.#datagramsSupported) {
      const payload = codecFor(this.#encoding.current).encode({ progress: 0 });
      await this.#sendDatagramBytes(encodeDatagram({ channel: 0x01, flags: 0, requestId: id, payload }), { kind: 'datagram', channel: 0x01, requestId: id }).catch(() => undefined);
    }
    // FAULT datagram-after-result: the last datagram of a request goes out once more after its response.
    const last = this.#datagramsSentFor.get(id);
    if (!isRequest && last && this.#broken(FAULT.datagramAfterResult)) {
      this.#datagramsSentFor.delete(id);
      await this.#sendDatagramBytes(last, { kind: 'datagram', channel: last[0] ?? 0x01, requestId: id }).catch(() => undefined);
    }
  }

  /** One frame for `message` in the encoding in force (or, with a fault on, deliberately not). */
  #encodeOutgoing(message: unknown): Uint8Array {
    const isInitializeResult =
      this.role === 'server' &&
      this.#machine.state === 'INITIALIZING' &&
      idOf(message) === this.#encoding.initializeRequestId &&
      record(message)?.['result'] !== undefined;
    // FAULT initialize-result-in-cbor (#noteSent still switches the encoding state).
    if (isInitializeResult && this.#broken(FAULT.initializeResultInCbor)) return this.#writer.encodeAs(message, 'cbor');
    if (this.#encoding.negotiated && this.#encoding.current === 'cbor') {
      // FAULT reply-json-after-cbor.
      if (this.#broken(FAULT.replyJsonAfterCbor)) return this.#writer.encodeAs(message, 'json');
      // FAULT switch-encoding-late: the first message after the initialize result is still JSON.
      if (this.#broken(FAULT.switchEncodingLate) && !this.#lateSwitchDone) {
        this.#lateSwitchDone = true;
        return this.#writer.encodeAs(message, 'json');
      }
    }
    const id = record(message)?.['id'];
    // FAULT cbor-id-as-float: integral response ids become CBOR float64.
    if (this.#broken(FAULT.cborIdAsFloat) && this.#encoding.negotiated && this.#encoding.current === 'cbor' && typeof id === 'number' && Number.isInteger(id)) {
      const body = cborBodyWithFloatId(message as Record<string, unknown> & { id: number });
      const framed = new Uint8Array(4 + body.byteLength);
      new DataView(framed.buffer).setUint32(0, body.byteLength);
      framed.set(body, 4);
      return framed;
    }
    // (Read before encoding: encoding the initialize result switches the encoding state.)
    const inCbor = this.#encoding.negotiated && this.#encoding.current === 'cbor';
    let frame = this.#writer.encode(message);
    // FAULT cbor-trailing-byte: one byte more after the CBOR data item.
    if (this.#broken(FAULT.cborTrailingByte) && inCbor) frame = withTrailingByte(frame);
    // FAULT wrong-frame-length: the prefix says one byte less than the body has.
    if (this.#broken(FAULT.wrongFrameLength)) new DataView(frame.buffer, frame.byteOffset).setUint32(0, frame.byteLength - 5);
    return frame;
  }

  async sendRaw(bytes: Uint8Array): Promise<void> {
    this.#assertOpen();
    const writer = this.#requireControl();
    this.transcript.record({ direction: 'sent', channel: CONTROL, bytes, note: 'raw bytes' });
    await this.#write(writer, bytes);
  }

  async next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage> {
    const received = await this.#messages.next(predicate, options);
    this.#pendingBytes -= received.body?.byteLength ?? 0;
    this.#changed();
    return received;
  }

  pending(): readonly ReceivedMessage[] {
    return this.#messages.pending();
  }

  faults(): readonly ConnectionFault[] {
    return this.#faults;
  }

  async close(reason = 'closed'): Promise<void> {
    if (!this.#isClosed && this.#closeStarted === undefined) {
      this.#closeStarted = 'local';
      this.transcript.event(`closing: ${reason}`);
      try {
        // Flush what was already sent (bounded), end the control stream, then the session.
        await Promise.race([this.#writeChain, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
        void this.#controlWriter?.close().catch(() => undefined);
        this.#session.close({ closeCode: 0, reason });
      } catch (error) {
        this.#finish({ initiator: 'local', reason, error: asError(error) });
      }
      // Some library paths never settle `closed` after a local close: bound the wait.
      const timer = setTimeout(() => this.#finish({ initiator: 'local', reason }), 2000);
      await this.closed;
      clearTimeout(timer);
    }
    await this.closed;
  }

  // ---- control stream -------------------------------------------------------------------------

  #attachControl(stream: BidiStream, streamId: number): void {
    this.#control = stream;
    this.#controlWriter = stream.writable.getWriter();
    const ended = () => void (this.#controlWritable = false);
    this.#controlWriter.closed.then(ended, ended);
    this.#machine.transition('CONTROL_STREAM_OPENED', `bidirectional stream ${streamId} is the control stream`);
    void this.#readControl(stream.readable);
  }

  async #readControl(readable: ReadableStream<Uint8Array>): Promise<void> {
    const reader = readable.getReader();
    let answeredEnd = false;
    try {
      for (;;) {
        await this.#pendingBelowLimit();
        const { value, done } = await reader.read();
        if (done) {
          answeredEnd = this.#onControlEnd();
          break;
        }
        this.#onControlChunk(value);
        if (this.#controlFailure !== undefined) return; // the lost-sync path closes the session
      }
      this.transcript.event('control stream ended by the peer');
    } catch (error) {
      if (!this.#isClosed) this.transcript.event(`control stream failed: ${asError(error).message}`);
    } finally {
      reader.releaseLock();
    }
    // WT-CONN-6: the control stream ending or being reset closes the session.
    // FAULT control-stream-end-ignored: the session stays open.
    if (this.#broken(FAULT.controlStreamEndIgnored)) {
      this.transcript.event('control stream ended: session kept open (fault)');
      return;
    }
    if (!this.#isClosed && this.#controlFailure === undefined) {
      await this.#writeChain;
      // Closing at once can discard the error answer still in flight over HTTP/2: give the peer a moment.
      if (answeredEnd) await this.#until(() => this.#isClosed, LOST_SYNC_CLOSE_DELAY_MS);
      await this.close('control stream ended');
    }
  }

  /**
   * WT-FRAME-5: a control stream that ends inside a frame leaves a partial message that is not
   * processed; it is answered with -32700 (or, reading truncatedFrameAtEnd 'close', not at all).
   * Returns whether an answer went out.
   */
  #onControlEnd(): boolean {
    // FAULT truncated-frame-at-end-served (either role; the mock client's partial-frame-served): the body bytes that did arrive are served if they decode.
    const partial = this.#broken(FAULT.truncatedFrameAtEndServed) ? this.#reader.partialBody : undefined;
    try {
      this.#reader.end();
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      this.transcript.record({ direction: 'received', channel: CONTROL, error: { code: error.code, message: error.message }, note: 'end of stream' });
      this.#fault(error.code, error.message, CONTROL, error.jsonRpcCode);
      if (partial !== undefined && this.#servePartial(partial)) return true;
      const silent = this.role === 'server' && this.#readings.truncatedFrameAtEnd === 'close';
      if (this.#answers.parseErrors && !silent) {
        void this.#sendError(null, error.jsonRpcCode, error.message, error.toJsonRpcError().data);
        return true;
      }
    }
    return false;
  }

  /** FAULT truncated-frame-at-end-served: takes the bytes of an incomplete frame as a message when they decode. */
  #servePartial(body: Uint8Array): boolean {
    let message: unknown;
    try {
      message = codecFor(this.#encoding.current).decode(body);
    } catch {
      return false;
    }
    this.transcript.event(`the ${body.byteLength} bytes of an incomplete frame served as a message (fault)`);
    this.#onFrame({ message, encoding: this.#encoding.current, body, frameLength: body.byteLength, frameOffset: this.#controlOffset - body.byteLength - 4 });
    return true;
  }

  #onControlChunk(chunk: Uint8Array): void {
    // FAULT split-frame-dropped: a frame begun in an earlier read is thrown away.
    if (this.#broken(FAULT.splitFrameDropped) && this.#reader.bufferedBytes > 0) {
      this.transcript.event(`${this.#reader.bufferedBytes} bytes of a frame split across reads dropped (fault)`);
      this.#reader = this.#newReader(this.#limits.maxMessageSize);
    }
    const chunkStart = this.#controlOffset;
    this.#controlOffset += chunk.byteLength;
    let items: Array<DecodedFrame | WireError>;
    try {
      items = this.#reader.push(chunk);
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      items = [error];
    }
    for (const item of items) {
      if (item instanceof WireError && this.#acceptMismatched(item, chunk, chunkStart)) continue;
      if (item instanceof WireError) this.#onControlError(item, chunk);
      else this.#onFrame(item);
    }
  }

  /**
   * FAULT accept-cbor-initialize (before negotiation) / accept-encoding-mismatch (after): a body in
   * the other encoding is decoded in that encoding and served. Works when the frame arrived in one read.
   */
  #acceptMismatched(error: WireError, chunk: Uint8Array, chunkStart: number): boolean {
    if (this.role !== 'server' || !(error instanceof EncodingMismatchError) || error.offset === undefined) return false;
    if (!this.#broken(this.#encoding.negotiated ? FAULT.acceptEncodingMismatch : FAULT.acceptCborInitialize)) return false;
    const start = this.#readerBase + error.offset - chunkStart;
    if (start < 0 || start + 4 > chunk.byteLength) return false;
    const length = new DataView(chunk.buffer, chunk.byteOffset + start, 4).getUint32(0);
    if (start + 4 + length > chunk.byteLength) return false;
    const body = chunk.subarray(start + 4, start + 4 + length);
    const message = codecFor(error.actual).decode(body);
    this.#onFrame({ message, encoding: error.actual, body, frameLength: length, frameOffset: error.offset });
    return true;
  }

  #onControlError(error: WireError, chunk: Uint8Array): void {
    if (error.code === 'FRAME_EMPTY' && this.#broken(FAULT.acceptZeroLengthFrame)) {
      this.transcript.record({ direction: 'received', channel: CONTROL, bytes: chunk, note: 'zero-length frame skipped (fault)' });
      return;
    }
    this.transcript.record({
      direction: 'received',
      channel: CONTROL,
      bytes: chunk,
      error: { code: error.code, message: error.message },
      note: 'chunk in which the fault surfaced',
    });
    this.#fault(error.code, error.message, CONTROL, error.jsonRpcCode);
    // FAULT frame-parse-error-unanswered: a body that does not decode (-32700) gets no answer.
    const unanswered = error.jsonRpcCode === PARSE_ERROR && this.#broken(FAULT.frameParseErrorUnanswered);
    if (this.#answers.parseErrors && !unanswered) {
      const answer = this.role === 'server' ? this.#bindingErrorAnswer(error) : { id: null, code: error.jsonRpcCode };
      void this.#sendError(answer.id, answer.code, error.message, error.toJsonRpcError().data);
    }
    // FAULT oversized-body-read-as-frames: a fresh reader takes the refused frame's body as frames.
    if (this.role === 'server' && error.code === 'FRAME_TOO_LARGE' && this.#broken(FAULT.oversizedBodyReadAsFrames)) {
      const chunkStart = this.#controlOffset - chunk.byteLength;
      const after = error.offset === undefined ? chunk.byteLength : this.#readerBase + error.offset + 4 - chunkStart;
      this.#reader = this.#newReader(this.#limits.maxMessageSize);
      const rest = chunk.subarray(Math.min(Math.max(after, 0), chunk.byteLength));
      if (rest.byteLength > 0) queueMicrotask(() => this.#onControlChunkRest(rest));
      return;
    }
    // Reading afterLengthError 'skip' (WT-FRAME-7): the reader skipped the frame and is still in sync.
    if (losesSync(error) && !this.#reader.skipsLengthErrors) {
      this.#controlFailure = error;
      // The stream lost frame sync (WT-FRAME-3): nothing after it can be read, so the session ends.
      // The error answer goes out first; the peer gets a moment to read it before the session ends
      // (closing at once can discard stream data still in flight over HTTP/2).
      if (this.role === 'server' || this.#answers.parseErrors) {
        void this.#writeChain
          .then(() => this.#until(() => this.#isClosed, LOST_SYNC_CLOSE_DELAY_MS))
          .then(() => this.close(`${error.code}: ${error.message}`));
      }
    }
  }

  /**
   * Server role: the id and code answering a control frame the reader refused, in the readings
   * taken: an empty frame is -32600 or -32700 (WT-FRAME-2); a message in the other encoding is
   * -32003 with id null or its own id, or (a CBOR initialize) -32700 (WT-ENC-5).
   */
  #bindingErrorAnswer(error: WireError): { id: string | number | null; code: number } {
    if (error.code === 'FRAME_EMPTY' && this.#readings.emptyFrame === 'parse-error') return { id: null, code: PARSE_ERROR };
    if (error instanceof EncodingMismatchError) {
      if (!this.#encoding.negotiated && this.#readings.cborInitialize === 'parse-error') return { id: null, code: PARSE_ERROR };
      if (this.#encoding.negotiated && this.#readings.mismatchId === 'echo') return { id: error.messageId ?? null, code: error.jsonRpcCode };
    }
    return { id: null, code: error.jsonRpcCode };
  }

  /** The rest of a chunk after a refused frame prefix (fault oversized-body-read-as-frames). */
  #onControlChunkRest(rest: Uint8Array): void {
    this.#controlOffset -= rest.byteLength;
    this.#readerBase = this.#controlOffset;
    this.#onControlChunk(rest);
  }

  #onFrame(frame: DecodedFrame): void {
    let message = frame.message;
    if (this.role === 'server') {
      // FAULT string-ids-for-server-requests: the client answers "s-<n>"; the server core knows <n>.
      const id = record(message)?.['id'];
      if (this.#broken(FAULT.stringIdsForServerRequests) && typeof id === 'string' && /^s-\d+$/.test(id) && !('method' in (record(message) ?? {}))) {
        message = { ...record(message), id: Number(id.slice(2)) };
      }
      // FAULT cancel-ignored.
      if (record(message)?.['method'] === '$/cancel' && this.#broken(FAULT.cancelIgnored)) {
        this.transcript.record({ direction: 'received', channel: CONTROL, decoded: message, note: '$/cancel ignored (fault)' });
        return;
      }
    }
    const bytes = new Uint8Array(4 + frame.body.byteLength);
    new DataView(bytes.buffer).setUint32(0, frame.body.byteLength);
    bytes.set(frame.body, 4);
    this.transcript.record({ direction: 'received', channel: CONTROL, bytes, decoded: message, note: frame.encoding });
    if (this.role === 'server') {
      const admitted = this.#admitOnServer(message, frame);
      if (admitted === undefined) return;
      message = admitted;
    }
    this.#take(message, frame);
  }

  /** A control message admitted: in-flight bookkeeping, then delivery (after the streams it references). */
  #take(message: unknown, frame: DecodedFrame): void {
    if (this.role === 'client') this.#noteClientReceived(message);
    if (this.role === 'server' && record(message)?.['method'] === '$/cancel') {
      const requestId = record(record(message)?.['params'])?.['requestId'];
      if (typeof requestId === 'string' || typeof requestId === 'number') this.#cancelledIds.add(requestId);
    }
    this.#inFlight.observe(message, 'received');
    this.#changed();
    const received: ReceivedMessage = { message, channel: CONTROL, at: Date.now(), encoding: frame.encoding, body: frame.body };
    this.#pendingBytes += frame.body.byteLength;
    const m = record(message);
    // Reading requestStreamReferences 'ignore' (WT-EXEC-3): a request's ref/stream items are not looked up (no stream input is taken).
    const ignoreReferences = this.role === 'server' && this.#readings.requestStreamReferences === 'ignore' && typeof m?.['method'] === 'string';
    const tags = ignoreReferences ? [] : streamTagsReferenced(m?.['result'] ?? m?.['params']);
    this.#deliveryChain = this.#deliveryChain
      // FAULT control-blocked-by-streams: nothing is served while an execution stream is open.
      .then(() => (this.#broken(FAULT.controlBlockedByStreams) ? this.#until(() => this.#outgoingOpen === 0 || this.#isClosed) : undefined))
      .then(() => this.#deliver(received, tags))
      .catch((error: unknown) => void this.transcript.event(`delivery failed: ${asError(error).message}`));
    if (m?.['method'] === '$/shutdown') this.#onShutdownReceived();
  }

  /**
   * Server role: the binding's admission rules for a control message (001 §1 before READY, the
   * initialize transport parameters, ids the headers cannot carry). Returns the message to deliver
   * (possibly changed by a fault), or undefined when the binding answered or dropped it.
   */
  #admitOnServer(message: unknown, frame: DecodedFrame): unknown {
    const m = record(message);
    const rawId = m?.['id'];
    const isRequest = m !== undefined && typeof m['method'] === 'string' && 'id' in m;
    if (isRequest && typeof rawId === 'number' && !isU32(rawId)) {
      // FAULT id-out-of-range-truncated: served under the id cut to 32 bits.
      if (this.#broken(FAULT.idOutOfRangeTruncated)) return { ...m, id: rawId >>> 0 };
      // WT-ID-3: the headers cannot carry it. Reading unfitNumericIds 'serve-integers': an integer is served without streams.
      // A fraction is no MCP request id at all (RequestId is a string or an integer): refused with id null.
      if (!(this.#readings.unfitNumericIds === 'serve-integers' && Number.isSafeInteger(rawId))) {
        const echo = Number.isInteger(rawId) && this.#readings.unfitNumericIds !== 'refuse-null';
        this.#refuse(echo ? rawId : null, WT_ERROR.INVALID_REQUEST, 'ID_OUT_OF_RANGE', `Invalid Request: request id ${rawId} is not an integer in 0..2^32-1, which execution-stream and datagram headers carry (WT-ID-3)`);
        return undefined;
      }
    }
    if (isRequest && typeof rawId === 'string' && this.#readings.stringIds === 'refuse') {
      // WT-ID-2, reading "-32600": the headers cannot carry a string id.
      this.#refuse(rawId, WT_ERROR.INVALID_REQUEST, 'STRING_ID', 'Invalid Request: over WebTransport request ids are integers in 0..2^32-1 (WT-ID-2)');
      return undefined;
    }
    const state = this.#machine.state;
    if (state === 'INITIALIZING') return this.#beforeReady(message, frame, 'INITIALIZING');
    if (state !== 'CONTROL_STREAM_OPENED') return message;
    // FAULT accept-cbor-initialize (the frame reached here in CBOR only through that fault).
    if (frame.encoding !== 'json' && !this.#broken(FAULT.acceptCborInitialize)) {
      this.#refuse(idOf(message), WT_ERROR.ENCODING_MISMATCH, 'ENCODING_MISMATCH', 'initialize must be JSON encoded (001 §3 rule 1)');
      return undefined;
    }
    if (initializeRequestId(message) === undefined) return this.#beforeReady(message, frame, 'CONTROL_STREAM_OPENED');
    return this.#admitInitialize(message) ? message : undefined;
  }

  /**
   * Server role, WT-CONN-4: a message other than initialize before READY. A request is refused
   * (-32600 echoing its id, or -32601 and the session closes), a ping may be answered, one that
   * came with initialize may be served once READY; a notification is never answered (ignored, or
   * the session closes). Returns undefined (the binding took care of it).
   */
  #beforeReady(message: unknown, frame: DecodedFrame, state: 'CONTROL_STREAM_OPENED' | 'INITIALIZING'): undefined {
    const m = record(message);
    const method = m?.['method'];
    if (typeof method !== 'string') {
      this.transcript.event(`a message that is no request arrived before READY (${state}): dropped`);
      return undefined;
    }
    const id = idOf(message);
    const isRequest = m !== undefined && 'id' in m;
    const holding = state === 'INITIALIZING' && this.#readings.requestWhileInitializing === 'serve-when-ready';
    if (holding) {
      this.transcript.event(`${method} arrived before the initialize result: served once READY`);
      this.#heldUntilReady.push({ ...frame, message });
      return undefined;
    }
    if (!isRequest) {
      // FAULT notification-before-initialize-answered / notification-while-initializing-answered: a reply to a notification.
      const fault = state === 'CONTROL_STREAM_OPENED' ? FAULT.notificationBeforeInitializeAnswered : FAULT.notificationWhileInitializingAnswered;
      if (this.#broken(fault)) {
        this.#refuse(null, WT_ERROR.INVALID_REQUEST, beforeReadyCode(state, method), `Invalid Request: ${method} before the initialize result (fault: a reply to a notification)`);
        return undefined;
      }
      this.#fault(beforeReadyCode(state, method), `${method} arrived before READY (${state}); notifications are never answered`, CONTROL);
      if (this.#readings.notificationBeforeReady === 'close') void this.close(`${method} before READY`);
      else this.transcript.event(`${method} before READY ignored (no answer: it is a notification)`);
      return undefined;
    }
    if (method === 'ping' && state === 'CONTROL_STREAM_OPENED' && this.#readings.pingBeforeInitialize === 'answer') {
      // MCP lets ping through at any time (the reading WT-CONN-4 accepts).
      void this.send({ jsonrpc: '2.0', id, result: {} }).catch(() => undefined);
      return undefined;
    }
    const when = state === 'CONTROL_STREAM_OPENED' ? 'before initialize' : 'before the initialize result';
    if (this.#readings.requestBeforeReady === 'not-available-and-close') {
      this.#refuse(id, WT_ERROR.METHOD_NOT_FOUND, beforeReadyCode(state, method), `Method not found: ${method} is not available ${when} (001 §1)`);
      void this.#closeAfterWrites(`${method} ${when}`);
      return undefined;
    }
    this.#refuse(id, WT_ERROR.INVALID_REQUEST, beforeReadyCode(state, method), `Invalid Request: ${method} ${when}; nothing but initialize is served before READY (001 §1)`);
    return undefined;
  }

  /** Server role: the initialize request's transport parameters (WT-INIT-2, -5, -6, WT-ENC-7). Returns whether to serve it. */
  #admitInitialize(message: unknown): boolean {
    const id = idOf(message);
    const params = record(record(message)?.['params']);
    const transport = params?.['transport'];
    if (transport === undefined && this.#readings.transportOmitted === 'refuse') {
      // WT-INIT-6, reading "-32600".
      this.#refuse(id, WT_ERROR.INVALID_REQUEST, 'TRANSPORT_MISSING', 'Invalid Request: initialize over WebTransport needs params.transport {type: "mcp-flow", version: "0.1"}');
      return false;
    }
    // FAULT accept-unknown-transport-type.
    if (transport !== undefined && record(transport)?.['type'] !== MCP_FLOW_TRANSPORT_TYPE && !this.#broken(FAULT.acceptUnknownTransportType)) {
      // WT-INIT-2
      this.#refuse(id, WT_ERROR.INVALID_REQUEST, 'UNKNOWN_TRANSPORT_TYPE', `initialize params.transport.type must be "${MCP_FLOW_TRANSPORT_TYPE}"`);
      return false;
    }
    const version = record(transport)?.['version'];
    if (version !== undefined && version !== MCP_FLOW_TRANSPORT_VERSION && this.#readings.otherTransportVersion === 'refuse') {
      // WT-INIT-5, reading "-32600".
      this.#refuse(id, WT_ERROR.INVALID_REQUEST, 'TRANSPORT_VERSION', `Invalid Request: transport.version ${JSON.stringify(version)} is not supported (this server speaks "${MCP_FLOW_TRANSPORT_VERSION}")`);
      return false;
    }
    const encodings = record(transport)?.['encodings'];
    this.#offeredEncodings = Array.isArray(encodings) ? encodings.filter((e): e is string => typeof e === 'string') : undefined;
    // FAULT json-encoding-refused.
    if (this.#broken(FAULT.jsonEncodingRefused) && this.#offeredEncodings?.length === 1 && this.#offeredEncodings[0] === 'json') {
      this.#refuse(id, WT_ERROR.ENCODING_MISMATCH, 'JSON_REFUSED', 'this server does not speak "json" (fault)');
      return false;
    }
    const offered = this.#offeredEncodings ?? [];
    if (offered.length > 0 && !offered.some((name) => this.#encodings.includes(name as EncodingName)) && this.#readings.noSupportedEncoding === 'refuse') {
      // WT-ENC-7, reading "refuse".
      this.#refuse(id, WT_ERROR.INVALID_PARAMS, 'NO_SUPPORTED_ENCODING', `Invalid params: none of the offered encodings (${offered.join(', ')}) is supported; this server speaks ${this.#encodings.join(', ')}`);
      return false;
    }
    this.#requestedVersion = params?.['protocolVersion'];
    this.#encoding.noteInitializeRequest(initializeRequestId(message)!);
    this.#machine.transition('INITIALIZING', 'initialize request received');
    return true;
  }

  /** Closes the session once what was written has gone out (the peer gets a moment to read it). */
  async #closeAfterWrites(reason: string): Promise<void> {
    await this.#writeChain;
    await this.#until(() => this.#isClosed, LOST_SYNC_CLOSE_DELAY_MS);
    await this.close(reason);
  }

  #refuse(id: string | number | null, code: number, faultCode: string, message: string): void {
    this.#fault(faultCode, message, CONTROL, code);
    void this.#sendError(id, code, message);
  }

  #noteClientReceived(message: unknown): void {
    const state = this.#machine.state;
    if (state !== 'INITIALIZING') return;
    const id = record(message)?.['id'];
    if (id === undefined || id !== this.#encoding.initializeRequestId || 'method' in (record(message) ?? {})) return;
    const result = record(record(message)?.['result']);
    if (!result) {
      this.#machine.transition('CONTROL_STREAM_OPENED', 'initialize answered with an error');
      return;
    }
    this.#serverCapabilities = record(result['transport']) as ServerTransportCapabilities | undefined;
    this.#machine.transition('READY', `initialize result received; encoding ${this.#encoding.current}`);
  }

  /** Bookkeeping for a message we send: state, encoding switch, in-flight ids. */
  #noteSent(message: unknown): void {
    this.#inFlight.observe(message, 'sent');
    const state = this.#machine.state;
    if (this.role === 'client') {
      const initId = initializeRequestId(message);
      if (initId !== undefined && state === 'CONTROL_STREAM_OPENED') {
        this.#encoding.noteInitializeRequest(initId);
        this.#machine.transition('INITIALIZING', 'initialize request sent');
      }
      return;
    }
    if (state !== 'INITIALIZING' || idOf(message) !== this.#encoding.initializeRequestId) return;
    const selected = negotiatedEncoding(message, this.#encoding.initializeRequestId);
    if (selected === undefined) {
      if (record(message)?.['error'] !== undefined) {
        this.#machine.transition('CONTROL_STREAM_OPENED', 'initialize answered with an error');
        this.#releaseHeld(false);
      }
      return;
    }
    // The result itself went out in JSON; everything after it uses the negotiated encoding.
    if (!this.#encoding.negotiated) this.#encoding.switchTo(selected);
    this.#serverCapabilities = record(record(record(message)?.['result'])?.['transport']) as
      | ServerTransportCapabilities
      | undefined;
    this.#machine.transition('READY', `initialize result sent; encoding ${selected}`);
    this.#releaseHeld(true);
    // FAULT message-size-only-before-ready: from now on frames of any size are read.
    if (this.#broken(FAULT.messageSizeOnlyBeforeReady) && this.#reader.bufferedBytes === 0) this.#reader = this.#newReader(MAX_FRAME_LENGTH);
  }

  /**
   * Server role: the messages held while initializing (reading requestWhileInitializing
   * 'serve-when-ready'): served now that the session is READY, or, when initialize failed, its
   * requests refused like any other before READY.
   */
  #releaseHeld(ready: boolean): void {
    const held = this.#heldUntilReady;
    this.#heldUntilReady = [];
    for (const frame of held) {
      if (ready) {
        this.#take(frame.message, frame);
        continue;
      }
      const m = record(frame.message);
      if (m !== undefined && 'id' in m) {
        this.#refuse(idOf(frame.message), WT_ERROR.INVALID_REQUEST, beforeReadyCode('INITIALIZING', m['method']), `Invalid Request: ${String(m['method'])} arrived before initialize succeeded (001 §1)`);
      }
    }
  }

  /** Delivers a message, first waiting (bounded) for the streams it references. */
  async #deliver(received: ReceivedMessage, tags: number[]): Promise<void> {
    const message = record(received.message);
    const id = message?.['id'];
    if (tags.length > 0 && (typeof id === 'number' || typeof id === 'string')) {
      const missing: number[] = [];
      for (const tag of tags) {
        if (!(await this.#waitForStream(id, tag, this.#limits.streamReferenceGraceMs))) missing.push(tag);
      }
      // FAULT dangling-stream-ref-unanswered: the request waits for its stream forever (never answered).
      if (missing.length > 0 && this.role === 'server' && this.#broken(FAULT.danglingStreamRefUnanswered) && typeof message?.['method'] === 'string') {
        this.transcript.event(`request ${String(id)} names stream tag ${missing.join(', ')}, which never came: left unanswered (fault)`);
        this.#pendingBytes -= received.body?.byteLength ?? 0;
        return;
      }
      if (missing.length > 0) {
        const text = `ref/stream names stream tag ${missing.join(', ')} for request ${String(id)}, but no such execution stream was opened`;
        this.#fault('INVALID_STREAM_REFERENCE', text, CONTROL, WT_ERROR.INVALID_STREAM_REFERENCE);
        if (this.#answers.streamReferences) {
          const isRequest = typeof message?.['method'] === 'string';
          void this.#sendError(isRequest ? id : null, WT_ERROR.INVALID_STREAM_REFERENCE, `Invalid Stream Reference: ${text}`, {
            streamTags: missing,
          });
          if (isRequest) {
            this.#pendingBytes -= received.body?.byteLength ?? 0;
            this.#inFlight.observe({ id, error: {} }, 'sent');
            return;
          }
        }
      }
    }
    this.#messages.push(received);
  }

  async #waitForStream(id: string | number, tag: number, graceMs: number): Promise<boolean> {
    const key = `${String(id)}:${tag}`;
    if (this.#seenStreams.has(key)) return true;
    return this.#until(() => this.#seenStreams.has(key) || this.#isClosed, graceMs).then(() => this.#seenStreams.has(key));
  }

  async #sendError(id: string | number | null, code: number, message: string, data?: unknown): Promise<void> {
    if (this.#isClosed || !this.#controlWriter) return;
    const error: Record<string, unknown> = { code, message };
    if (data !== undefined) error['data'] = data;
    // FAULT binding-error-id-zero.
    if (id === null && this.role === 'server' && this.#broken(FAULT.bindingErrorIdZero)) id = 0;
    await this.send({ jsonrpc: '2.0', id, error }).catch((failure: unknown) => {
      this.transcript.event(`could not send error ${code}: ${asError(failure).message}`);
    });
  }

  #write(writer: WritableStreamDefaultWriter<Uint8Array>, bytes: Uint8Array): Promise<void> {
    const write = this.#writeChain.then(async () => {
      if (!this.#controlWritable) throw new ConnectionClosedError('the control stream is closed');
      await writer.ready;
      try {
        await writer.write(bytes);
      } catch (error) {
        // A write racing the stream's end can fail inside Node (ERR_INTERNAL_ASSERTION): the stream is gone either way.
        if (!this.#controlWritable || (error as { code?: unknown }).code === 'ERR_INTERNAL_ASSERTION') {
          throw new ConnectionClosedError('the control stream closed while writing', { cause: error });
        }
        throw error;
      }
    });
    this.#writeChain = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      throw this.#isClosed ? new ConnectionClosedError('connection closed while sending', { cause: error }) : error;
    });
  }

  #requireControl(): WritableStreamDefaultWriter<Uint8Array> {
    if (!this.#controlWriter) {
      throw new InvalidStateError(
        this.role === 'server'
          ? 'the client has not opened the control stream yet; nothing can be sent before it'
          : 'the control stream is not open',
      );
    }
    return this.#controlWriter;
  }

  // ---- streams ----------------------------------------------------------------------------------

  async #acceptBidirectionalStreams(): Promise<void> {
    const reader = this.#session.incomingBidirectionalStreams.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (this.role === 'server' && !this.#control) {
          this.#attachControl(value, 0);
          continue;
        }
        // 001 has one bidirectional stream per session: the client's control stream.
        const text = `unexpected bidirectional stream from the ${this.role === 'server' ? 'client' : 'server'} (only the client's control stream is bidirectional)`;
        this.#fault('UNEXPECTED_BIDIRECTIONAL_STREAM', text, { kind: 'session' });
        void value.readable.cancel(text).catch(() => undefined);
        void value.writable.abort(text).catch(() => undefined);
      }
    } catch {
      // the session ended
    }
  }

  async #acceptUnidirectionalStreams(): Promise<void> {
    const reader = this.#session.incomingUnidirectionalStreams.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const streamId = this.#nextRemoteUni;
        this.#nextRemoteUni += 4;
        void this.#onIncomingStream(value, streamId);
      }
    } catch {
      // the session ended
    }
  }

  async #onIncomingStream(readable: ReadableStream<Uint8Array>, streamId: number): Promise<void> {
    const reader = readable.getReader();
    const decoder = new ExecHeaderDecoder();
    let decoded: { header: ExecutionStreamHeader; rest: Uint8Array } | undefined;
    const channel: TranscriptChannel = { kind: 'stream', streamId };
    try {
      while (!decoded) {
        const { value, done } = await reader.read();
        if (done) {
          decoder.end();
          return;
        }
        decoded = decoder.push(value);
      }
    } catch (error) {
      if (error instanceof WireError) {
        this.transcript.record({ direction: 'received', channel, error: { code: error.code, message: error.message } });
        this.#fault(error.code, error.message, channel, error.jsonRpcCode);
        // FAULT truncated-stream-header-closes-session.
        if (this.role === 'server' && this.#broken(FAULT.truncatedStreamHeaderClosesSession)) {
          void this.close(`${error.code}: ${error.message} (fault)`);
          return;
        }
        // Reading truncatedStreamHeader 'drop' (WT-EXEC-1): a stream is no request, nothing is owed.
        const silent = this.role === 'server' && this.#readings.truncatedStreamHeader === 'drop';
        if (this.#answers.parseErrors && !silent) void this.#sendError(null, error.jsonRpcCode, error.message, error.toJsonRpcError().data);
      }
      void reader.cancel().catch(() => undefined);
      return;
    }
    const { header, rest } = decoded;
    const withHeader: TranscriptChannel = { kind: 'stream', streamId, header };
    this.transcript.record({ direction: 'received', channel: withHeader, bytes: encodeExecHeader(header), note: 'execution stream header' });
    const data = { requestId: header.requestId, streamTag: header.streamTag };
    // FAULT no-stream-limit.
    if (this.role === 'server' && this.#incomingOpen >= this.#limits.maxConcurrentStreams && !this.#broken(FAULT.noStreamLimit)) {
      const text = `Stream Limit Exceeded: more than maxConcurrentStreams (${this.#limits.maxConcurrentStreams}) execution streams open`;
      // FAULT wrong-stream-limit-code: -32600 instead of -32000.
      const code = this.#broken(FAULT.wrongStreamLimitCode) ? WT_ERROR.INVALID_REQUEST : WT_ERROR.STREAM_LIMIT_EXCEEDED;
      this.#rejectStream(reader, withHeader, 'STREAM_LIMIT_EXCEEDED', text, code, data);
      return;
    }
    this.#incomingOpen++;
    const correlated = await this.#inFlight.waitFor(header.requestId, this.#clientRequests, this.#limits.streamCorrelationGraceMs);
    // FAULT accept-injected-stream-header.
    if (!correlated && !this.#broken(FAULT.acceptInjectedStreamHeader)) {
      this.#incomingOpen--;
      this.#changed();
      const text = `Stream Injection: stream header names request ${header.requestId}, which is not in flight`;
      // Reading injectedStream 'discard' (WT-EXEC-2): reported, its payload read and thrown away instead of stopped.
      const discard = this.role === 'server' && this.#readings.injectedStream === 'discard';
      this.#rejectStream(reader, withHeader, 'STREAM_INJECTION', text, WT_ERROR.STREAM_INJECTION, data, discard);
      return;
    }
    this.#seenStreams.add(`${header.requestId}:${header.streamTag}`);
    this.#inFlight.streamSeen(header.requestId, header.streamTag);
    this.#changed();
    this.#streams.push(this.#incoming(reader, streamId, header, rest, withHeader));
  }

  #rejectStream(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    channel: TranscriptChannel,
    code: string,
    text: string,
    jsonRpcCode: number,
    data: unknown,
    discard = false,
  ): void {
    if (discard) {
      void this.#discard(reader);
      this.transcript.record({ direction: 'local', channel, note: `refused, payload read and discarded: ${text}` });
    } else {
      void reader.cancel(text).catch(() => undefined);
      this.transcript.record({ direction: 'local', channel, note: `stopped reading: ${text}` });
    }
    this.#fault(code, text, channel, jsonRpcCode);
    if (this.#answers.streamInjection) void this.#sendError(null, jsonRpcCode, text, data);
  }

  /** Reads a refused stream to its end and throws the bytes away (bounded by the session's life). */
  async #discard(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        const { done } = await reader.read();
        if (done || this.#isClosed) break;
      }
    } catch {
      // reset by the peer or the session ended
    }
    if (this.#isClosed) void reader.cancel().catch(() => undefined);
  }

  #incoming(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    streamId: number,
    header: ExecutionStreamHeader,
    rest: Uint8Array,
    channel: TranscriptChannel,
  ): IncomingExecutionStream {
    let payloadBytes = 0;
    let finished = false;
    const finish = (how: string) => {
      if (finished) return;
      finished = true;
      this.#incomingOpen--;
      this.transcript.record({ direction: 'received', channel, byteLength: payloadBytes, note: `payload, ${how}` });
      this.#changed();
    };
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        if (rest.byteLength > 0) {
          payloadBytes += rest.byteLength;
          controller.enqueue(rest);
        }
      },
      pull: async (controller) => {
        try {
          const { value, done } = await reader.read();
          if (done) {
            finish('ended (FIN)');
            controller.close();
            return;
          }
          payloadBytes += value.byteLength;
          controller.enqueue(value);
        } catch (error) {
          finish(`reset by the peer (${asError(error).message})`);
          controller.error(new StreamResetError(header.requestId, header.streamTag, asError(error).message));
        }
      },
      cancel: async (reason) => {
        finish(`cancelled locally (${String(reason ?? 'no reason')})`);
        await reader.cancel(reason).catch(() => undefined);
      },
    }, INCOMING_PREFETCH);
    return {
      streamId,
      header,
      readable,
      cancel: async (reason?: string) => {
        await readable.cancel(reason).catch(() => undefined);
      },
    };
  }

  async #openUni(firstBytes: Uint8Array, header: ExecutionStreamHeader | undefined): Promise<OutgoingExecutionStream> {
    this.#assertOpen();
    let writable: WritableStream<Uint8Array>;
    try {
      writable = await this.#session.createUnidirectionalStream();
    } catch (error) {
      if (this.#isClosed) throw new ConnectionClosedError('connection closed while opening a stream', { cause: error });
      throw new StreamOpenError(asError(error).message, { cause: error });
    }
    const writer = writable.getWriter();
    const streamId = this.#nextLocalUni;
    this.#nextLocalUni += 4;
    const channel: TranscriptChannel = header ? { kind: 'stream', streamId, header } : { kind: 'stream', streamId };
    this.#outgoingOpen++;
    let payloadBytes = 0;
    let finished = false;
    const finish = (how: string) => {
      if (finished) return;
      finished = true;
      this.#outgoingOpen--;
      this.transcript.record({ direction: 'sent', channel, byteLength: payloadBytes, note: `payload, ${how}` });
      this.#changed();
    };
    try {
      await writer.write(firstBytes);
    } catch (error) {
      finish(`failed: ${asError(error).message}`);
      if (this.#isClosed) throw new ConnectionClosedError('connection closed while opening a stream', { cause: error });
      throw new StreamOpenError(`the first bytes could not be written: ${asError(error).message}`, { cause: error });
    }
    this.transcript.record({ direction: 'sent', channel, bytes: firstBytes, note: header ? 'execution stream header' : 'raw stream start' });
    const fallbackHeader = header ?? { requestId: -1, streamTag: -1 };
    return {
      streamId,
      header: fallbackHeader,
      write: async (chunk) => {
        try {
          await writer.ready;
          // FAULT length-prefixed-stream-chunks.
          await writer.write(header && this.role === 'server' && this.#broken(FAULT.lengthPrefixedStreamChunks) ? lengthPrefixed(chunk) : chunk);
        } catch (error) {
          finish(`failed: ${asError(error).message}`);
          throw this.#streamFailure(fallbackHeader, error);
        }
        payloadBytes += chunk.byteLength;
      },
      close: async () => {
        try {
          await writer.close();
        } catch (error) {
          finish(`failed: ${asError(error).message}`);
          throw this.#streamFailure(fallbackHeader, error);
        }
        finish('ended (FIN)');
      },
      abort: async (reason) => {
        await writer.abort(reason ?? 'aborted').catch(() => undefined);
        finish(`reset locally (${reason ?? 'no reason'})`);
      },
    };
  }

  /** A write on an outgoing stream failed: the session closed, or the peer stopped or reset it. */
  #streamFailure(header: ExecutionStreamHeader, error: unknown): Error {
    if (this.#isClosed) return new ConnectionClosedError('connection closed while writing a stream', { cause: error });
    return new StreamResetError(header.requestId, header.streamTag, `stopped by the peer: ${asError(error).message}`);
  }

  // ---- datagrams --------------------------------------------------------------------------------

  async #readDatagrams(): Promise<void> {
    const reader = this.#session.datagrams.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.#onDatagram(value);
      }
    } catch {
      // the session ended
    }
  }

  #onDatagram(bytes: Uint8Array): void {
    const datagram = this.#readDatagram(bytes);
    if (datagram === undefined) return;
    const channel: TranscriptChannel = { kind: 'datagram', channel: datagram.channel, requestId: datagram.requestId };
    if (this.role === 'server' && !this.#datagramsSupported) {
      // FAULT datagram-when-unsupported-ignored: dropped without -32004.
      if (this.#broken(FAULT.datagramWhenUnsupportedIgnored)) {
        this.transcript.record({ direction: 'received', channel, bytes, note: 'dropped silently: datagrams not supported (fault)' });
        return;
      }
      this.transcript.record({ direction: 'received', channel, bytes, note: 'refused: datagrams not supported' });
      const text = 'Datagram Not Supported: this server advertised datagramsSupported: false';
      this.#fault('DATAGRAM_NOT_SUPPORTED', text, channel, WT_ERROR.DATAGRAM_NOT_SUPPORTED);
      // Reading datagramNotSupported 'answer-request' (WT-DGRAM-5): the in-flight request the header names gets the error.
      const answersRequest = this.#readings.datagramNotSupported === 'answer-request' && this.#inFlight.has(datagram.requestId, 'received');
      void this.#sendError(answersRequest ? datagram.requestId : null, WT_ERROR.DATAGRAM_NOT_SUPPORTED, text, { channel: datagram.channel, requestId: datagram.requestId });
      // (send() has checked its id synchronously: the request's own answer, when it comes, is dropped.)
      if (answersRequest) this.#answeredByBinding.add(datagram.requestId);
      return;
    }
    if (!this.#inFlight.has(datagram.requestId, this.#clientRequests)) {
      // WT-DGRAM-10: dropped without affecting any request.
      const text = `datagram names request ${datagram.requestId}, which is not in flight`;
      this.transcript.record({ direction: 'received', channel, bytes, note: `dropped: ${text}` });
      this.#fault('DATAGRAM_NOT_IN_FLIGHT', text, channel);
      // FAULT unknown-datagram-cancels-requests: every in-flight request gets a $/cancel it never had.
      if (this.role === 'server' && this.#broken(FAULT.unknownDatagramCancelsRequests)) {
        for (const requestId of this.#inFlight.receivedIds()) {
          const cancel = { jsonrpc: '2.0', method: '$/cancel', params: { requestId, reason: 'datagram for an unknown request (fault)' } };
          this.transcript.record({ direction: 'local', channel: CONTROL, decoded: cancel, note: 'synthetic $/cancel (fault)' });
          this.#messages.push({ message: cancel, channel: CONTROL, at: Date.now() });
        }
      }
      return;
    }
    let decoded: unknown;
    let decodeError: { code: string; message: string } | undefined;
    if (datagram.channel === 0x01 || datagram.channel === 0x03) {
      try {
        decoded = codecFor(this.#encoding.current).decode(datagram.payload);
      } catch (error) {
        decodeError = { code: error instanceof WireError ? error.code : 'DATAGRAM_PAYLOAD', message: asError(error).message };
      }
    }
    this.transcript.record({ direction: 'received', channel, bytes, decoded, ...(decodeError ? { error: decodeError } : {}) });
    if (this.#datagrams.pending().length >= this.#limits.maxReceivedDatagrams) {
      this.transcript.record({ direction: 'local', channel, note: 'dropped: too many datagrams not yet taken' });
      return;
    }
    if (decoded !== undefined) datagram.decoded = decoded;
    this.#datagrams.push(datagram);
  }

  /**
   * The datagram's header and payload, or undefined when it is dropped: too short, on channel 0x00
   * or an unknown channel, or (unless reading reservedFlags 'ignore') with non-zero flags
   * (WT-DGRAM-1..4). A dropped datagram is reported only with reading droppedDatagram 'report'.
   */
  #readDatagram(bytes: Uint8Array): ReceivedDatagram | undefined {
    try {
      const { channel, flags, requestId, payload } = decodeDatagram(bytes);
      return { channel, flags, requestId, payload, at: Date.now() };
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      if (this.role === 'server' && error.code === 'DATAGRAM_RESERVED_FLAGS' && this.#readings.reservedFlags === 'ignore') {
        const cleared = bytes.slice();
        cleared[1] = 0;
        this.transcript.event(`datagram flags 0x${(bytes[1] ?? 0).toString(16)} are reserved: ignored`);
        const datagram = this.#readDatagram(cleared);
        return datagram === undefined ? undefined : { ...datagram, flags: bytes[1] ?? 0 };
      }
      const channel: TranscriptChannel = { kind: 'datagram', channel: bytes[0] ?? -1 };
      this.transcript.record({ direction: 'received', channel, bytes, error: { code: error.code, message: error.message }, note: 'dropped' });
      this.#fault(error.code, error.message, channel, error.jsonRpcCode);
      if (this.role !== 'server') return undefined;
      // FAULT short-datagram-closes-session.
      if (bytes.byteLength < 6 && this.#broken(FAULT.shortDatagramClosesSession)) {
        void this.close(`${error.code}: ${error.message} (fault)`);
        return undefined;
      }
      if (this.#readings.droppedDatagram === 'report') void this.#sendError(null, WT_ERROR.INVALID_REQUEST, `Invalid Request: datagram dropped: ${error.message}`, { channel: bytes[0] ?? null });
      return undefined;
    }
  }

  async #sendDatagramBytes(bytes: Uint8Array, channel: TranscriptChannel): Promise<void> {
    this.#assertOpen();
    // Bounded, paced queue: the library silently drops datagrams once ~256 are queued.
    await this.#until(() => this.#datagramsInQueue < this.#limits.maxQueuedDatagrams || this.#isClosed);
    this.#assertOpen();
    this.#datagramWriter ??= this.#session.datagrams.createWritable().getWriter();
    const writer = this.#datagramWriter;
    this.#datagramsInQueue++;
    try {
      await writer.ready;
      await writer.write(bytes);
      this.transcript.record({ direction: 'sent', channel, bytes });
    } catch (error) {
      throw this.#isClosed ? new ConnectionClosedError('connection closed while sending a datagram', { cause: error }) : error;
    } finally {
      this.#datagramsInQueue--;
      this.#changed();
    }
  }

  // ---- shutdown and close -----------------------------------------------------------------------

  async #shutdown(drainTimeoutMs: number): Promise<void> {
    if (this.#isClosed) return;
    this.#shuttingDown = true;
    if (!this.#shutdownSent && this.#controlWriter) {
      this.#shutdownSent = true;
      // FAULT shutdown-sent-with-id: sent as a request.
      await this.send({ jsonrpc: '2.0', ...(this.role === 'server' && this.#broken(FAULT.shutdownSentWithId) ? { id: 0 } : {}), method: '$/shutdown' });
    }
    await this.#drain(drainTimeoutMs);
    // The peer closes on our $/shutdown once it has drained too; closing first could discard the
    // $/shutdown frame still in flight over HTTP/2, so it gets a moment.
    await this.#writeChain;
    await this.#until(() => this.#isClosed, LOST_SYNC_CLOSE_DELAY_MS);
    await this.close('shutdown');
  }

  #onShutdownReceived(): void {
    if (this.#shuttingDown) return;
    // FAULT shutdown-ignored: the session stays open and streams may still be opened.
    if (this.#broken(FAULT.shutdownIgnored)) {
      this.transcript.event('$/shutdown received: ignored (fault)');
      return;
    }
    this.#shuttingDown = true;
    // FAULT never-drain-on-shutdown: close at once, cutting in-flight streams.
    if (this.#broken(FAULT.neverDrainOnShutdown)) {
      this.transcript.event('$/shutdown received: closing without draining (fault)');
      void this.close('peer sent $/shutdown');
      return;
    }
    this.transcript.event('$/shutdown received: no new streams; draining');
    void this.#drain(this.#limits.drainTimeoutMs).then(() => this.close('peer sent $/shutdown'));
  }

  /** Waits until no execution stream is open in either direction, or the deadline passes. */
  async #drain(timeoutMs: number): Promise<void> {
    const drained = await this.#until(() => (this.#incomingOpen === 0 && this.#outgoingOpen === 0) || this.#isClosed, timeoutMs);
    this.transcript.event(
      drained
        ? 'execution streams drained'
        : `drain deadline (${timeoutMs} ms) passed with ${this.#incomingOpen} incoming and ${this.#outgoingOpen} outgoing streams open`,
    );
  }

  #finish(info: CloseInfo): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#machine.transition('CLOSED', `session closed (${info.initiator})`);
    this.transcript.event(
      `session closed by ${info.initiator}${info.code !== undefined ? `, code ${info.code}` : ''}${info.reason ? `: ${info.reason}` : ''}`,
    );
    const error = new ConnectionClosedError(`WebTransport session closed (${info.initiator})`);
    // Messages read before the close may still be on their way through the delivery chain (waiting
    // for a referenced stream, which the close now ends): queue them first, so a wait sees them.
    void this.#deliveryChain.then(() => this.#messages.close(error));
    this.#streams.close(error);
    this.#datagrams.close(error);
    this.#changed();
    this.#resolveClosed(info);
  }

  // ---- helpers ----------------------------------------------------------------------------------

  #assertOpen(): void {
    if (this.#isClosed) throw new ConnectionClosedError('the WebTransport session is closed');
  }

  /** Whether the binding fault `name` is switched on (faults.ts). */
  #broken(name: string): boolean {
    return this.#injected?.has(name) ?? false;
  }

  #fault(code: string, message: string, channel: TranscriptChannel, jsonRpcCode?: number): void {
    const fault: ConnectionFault = { code, message, channel, at: Date.now() };
    if (jsonRpcCode !== undefined) fault.jsonRpcCode = jsonRpcCode;
    this.#faults.push(fault);
  }

  #changed(): void {
    for (const listener of [...this.#changeListeners]) listener();
  }

  /** Resolves true when `condition` holds (re-checked on every state change), false after `timeoutMs`. */
  #until(condition: () => boolean, timeoutMs?: number): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => done(false), timeoutMs);
      const listener = () => {
        if (condition()) done(true);
      };
      const done = (value: boolean) => {
        if (timer) clearTimeout(timer);
        this.#changeListeners.delete(listener);
        resolve(value);
      };
      this.#changeListeners.add(listener);
    });
  }

  #pendingBelowLimit(): Promise<boolean> {
    return this.#until(() => this.#pendingBytes < this.#limits.maxPendingBytes || this.#isClosed);
  }

  #facet(httpVersion: 2 | 3): WebTransportFacet {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    return {
      httpVersion,
      get state(): WtConnectionState {
        return self.#machine.state;
      },
      get encoding() {
        return self.#encoding.current;
      },
      get serverCapabilities() {
        return self.#serverCapabilities;
      },
      openExecutionStream: async (header) => {
        if (!this.#raw) {
          // FAULT stream-after-shutdown.
          if (this.#shuttingDown && !this.#broken(FAULT.streamAfterShutdown)) throw new InvalidStateError('$/shutdown is in progress: no new execution streams (001 §7)');
          if (this.role === 'server' && this.#outgoingOpen >= this.#limits.maxConcurrentStreams) {
            throw new LimitExceededError(
              'maxConcurrentStreams',
              `already ${this.#outgoingOpen} execution streams open (maxConcurrentStreams ${this.#limits.maxConcurrentStreams})`,
            );
          }
        }
        const headerBytes = encodeExecHeader(header);
        // FAULT wrong-execution-header: the request id goes out little-endian.
        if (this.#broken(FAULT.wrongExecutionHeader)) headerBytes.subarray(0, 4).reverse();
        const stream = await this.#openUni(headerBytes, header);
        // FAULT duplicate-stream-tag: an empty second stream with the same request id and tag.
        if (this.role === 'server' && this.#broken(FAULT.duplicateStreamTag)) {
          const twin = await this.#openUni(headerBytes.slice(), header);
          await twin.close().catch(() => undefined);
        }
        return stream;
      },
      openRawStream: (firstBytes) => this.#openUni(firstBytes, undefined),
      nextExecutionStream: (predicate, options) => this.#streams.next(predicate, options),
      sendDatagram: async (datagram) => {
        const supported = this.role === 'server' ? this.#datagramsSupported : this.#serverCapabilities?.datagramsSupported !== false;
        if (!supported && !this.#raw) throw new DatagramsNotSupportedError();
        let payload = datagram.payload;
        // Reading datagramPayload 'notification' (WT-DGRAM-6): the whole notification rather than its params.
        if (this.role === 'server' && this.#readings.datagramPayload === 'notification' && (datagram.channel === 0x01 || datagram.channel === 0x03)) {
          payload = wholeNotificationPayload(payload, datagram.channel, codecFor(this.#encoding.current));
        }
        // FAULT datagram-payload-json-after-cbor.
        if (this.role === 'server' && this.#broken(FAULT.datagramPayloadJsonAfterCbor) && this.#encoding.current === 'cbor' && (datagram.channel === 0x01 || datagram.channel === 0x03)) {
          payload = cborPayloadAsJson(payload);
        }
        const full = { channel: datagram.channel, flags: datagram.flags ?? 0, requestId: datagram.requestId, payload };
        const bytes = encodeDatagram(full);
        if (this.role === 'server') this.#datagramsSentFor.set(datagram.requestId, bytes);
        // FAULT send-reserved-datagram-channel / nonzero-datagram-flags.
        if (this.#broken(FAULT.sendReservedDatagramChannel)) bytes[0] = 0x00;
        if (this.#broken(FAULT.nonzeroDatagramFlags)) bytes[1] = 0x01;
        // FAULT truncated-datagram-sent: shorter than the 6-byte header.
        const sent = this.role === 'server' && this.#broken(FAULT.truncatedDatagramSent) ? bytes.subarray(0, 5) : bytes;
        await this.#sendDatagramBytes(sent, { kind: 'datagram', channel: datagram.channel, requestId: datagram.requestId });
      },
      sendRawDatagram: (bytes) => this.#sendDatagramBytes(bytes, { kind: 'datagram', channel: bytes[0] ?? -1 }),
      nextDatagram: (predicate, options) => this.#datagrams.next(predicate, options),
      shutdown: (options) => this.#shutdown(options?.drainTimeoutMs ?? this.#limits.drainTimeoutMs),
      endControlStream: async () => {
        const writer = this.#requireControl();
        await this.#writeChain;
        this.transcript.event('control stream ended by this side (FIN)');
        await writer.close();
      },
    };
  }
}

const CONTROL: TranscriptChannel = { kind: 'control' };
/** JSON-RPC Parse error (WT-FRAME-4). */
const PARSE_ERROR = -32700;
/** How long a peer whose control stream lost frame sync may keep the session to read our error answer. */
const LOST_SYNC_CLOSE_DELAY_MS = 1000;
/** Bytes read ahead from an incoming execution stream (keeps the library busy; bounded memory per stream). */
const INCOMING_PREFETCH = new ByteLengthQueuingStrategy({ highWaterMark: 4 * 1024 * 1024 });

/** A frame whose body has one 0x00 byte more after its data item (fault cbor-trailing-byte). */
function withTrailingByte(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(frame.byteLength + 1);
  out.set(frame, 0);
  new DataView(out.buffer).setUint32(0, frame.byteLength - 4 + 1);
  return out;
}

/** A progress (0x01) or log (0x03) payload holding the notification's params, re-encoded as the whole notification. */
function wholeNotificationPayload(payload: Uint8Array, channel: number, codec: { encode(value: unknown): Uint8Array; decode(bytes: Uint8Array): unknown }): Uint8Array {
  let params: unknown;
  try {
    params = codec.decode(payload);
  } catch {
    return payload;
  }
  const method = channel === 0x01 ? 'notifications/progress' : 'notifications/message';
  return codec.encode({ jsonrpc: '2.0', method, params });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function idOf(message: unknown): string | number | null {
  const id = record(message)?.['id'];
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function isU32(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
