// One MCP Flow session over WebTransport (seed 001), for either role, as a Connection: the control
// stream with its 001 §1 state machine and encoding switch (control-stream.ts, delivery.ts),
// execution streams correlated with requests in flight (execution-streams.ts), datagrams
// (datagrams.ts), `$/shutdown`, and, server role, the handshake deadline and idle expiry. What a
// server admits before READY and answers initialize with, and every deliberate breakage, attach
// through hooks (hooks.ts): the mock server's binding (src/peer/server/binding.ts) is one.
import type {
  CloseInfo,
  Connection,
  ConnectionFault,
  NextOptions,
  ReceivedMessage,
  ServerTransportCapabilities,
  WebTransportFacet,
  WtConnectionState,
} from '../connection.js';
import { ConnectionClosedError, InvalidStateError, LimitExceededError } from '../errors.js';
import { Transcript } from '../transcript.js';
import { codecFor, encodeDatagram, initializeRequestId, negotiatedEncoding, type EncodingName } from '../../wire/index.js';
import { ControlStream } from './control-stream.js';
import { Datagrams } from './datagrams.js';
import { Delivery } from './delivery.js';
import { ExecutionStreams } from './execution-streams.js';
import type { WtRole, WtSessionHooks, WtSessionView } from './hooks.js';
import { endedByStreamError, releaseConnection, resetSessionStream, type LibrarySession } from './library-session.js';
import type { WtSessionLimits } from './limits.js';
import { RECOMMENDED_BINDING_READINGS, type WtBindingReadings } from './readings.js';
import { asError, CONTROL, idOf, LOST_SYNC_CLOSE_DELAY_MS, record, SessionCore, type ClientErrorAnswers } from './session-core.js';

/** How long resetTransport waits for the library to report the reset session closed (then close() ends it). */
const RESET_SETTLE_MS = 2_000;

export type { WtRole } from './hooks.js';
export type { BidiStream, LibrarySession } from './library-session.js';
export type { ClientErrorAnswers } from './session-core.js';

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
  /** Server role: which accepted reading to take where the profile accepts several (readings.ts). Default: the recommended ones. */
  readings?: WtBindingReadings;
  /**
   * Client role: also answer what the server role answers (default false: the harness's client only
   * records): a control frame that does not decode (-32700, id null), an injected execution stream
   * (-32002, id null), a `ref/stream` naming no stream (-32001, id null). `true` answers all three.
   */
  answerErrors?: boolean | ClientErrorAnswers;
  /** The hooks of the layer above for this session (hooks.ts), made once the session exists. */
  hooks?: (view: WtSessionView) => WtSessionHooks;
}

/** A WebTransport MCP Flow session as a Connection (with the `webtransport` facet). */
export class WebTransportSessionConnection implements Connection {
  readonly kind = 'webtransport' as const;
  readonly transcript: Transcript;
  readonly closed: Promise<CloseInfo>;
  readonly webtransport: WebTransportFacet;
  readonly role: WtRole;

  readonly #session: LibrarySession;
  readonly #core: SessionCore;
  readonly #view: WtSessionView;
  readonly #delivery: Delivery;
  readonly #control: ControlStream;
  readonly #streams: ExecutionStreams;
  readonly #datagrams: Datagrams;
  #shutdownSent = false;
  #resolveClosed!: (info: CloseInfo) => void;
  #timers: NodeJS.Timeout[] = [];

  constructor(init: WtSessionInit) {
    this.role = init.role;
    this.#session = init.session;
    this.transcript = init.transcript ?? new Transcript();
    const answers = init.role === 'server' || init.answerErrors === true ? {} : init.answerErrors === undefined || init.answerErrors === false ? undefined : init.answerErrors;
    const core = new SessionCore({
      role: init.role,
      transcript: this.transcript,
      limits: init.limits,
      readings: init.role === 'server' ? (init.readings ?? RECOMMENDED_BINDING_READINGS) : RECOMMENDED_BINDING_READINGS,
      raw: init.raw ?? false,
      encodings: init.encodings ?? ['cbor', 'json'],
      datagramsSupported: init.datagramsSupported ?? true,
      answers: {
        parseErrors: answers ? answers.parseErrors ?? true : false,
        streamInjection: answers ? answers.streamInjection ?? true : false,
        streamReferences: answers ? answers.streamReferences ?? true : false,
      },
    });
    this.#core = core;
    core.ops = {
      send: (message) => this.send(message),
      close: (reason) => this.close(reason),
      controlOpen: () => this.#control.isOpen,
      writesSettled: () => this.#control.writesSettled,
    };
    this.#view = this.#makeView();
    core.hooks = init.hooks?.(this.#view) ?? {};
    const view = () => this.#view;
    this.#streams = new ExecutionStreams(core, init.session, view);
    this.#delivery = new Delivery(core, this.#streams, view, () => this.#onShutdownReceived());
    this.#control = new ControlStream(core, this.#delivery, view);
    this.#datagrams = new Datagrams(core, init.session, view);
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.webtransport = this.#facet(init.httpVersion);
    core.machine.transition('CONNECTED', 'WebTransport session established');
    this.transcript.event(`session open (${this.role}, HTTP/${init.httpVersion})`);
    this.#session.closed.then(
      (info) =>
        this.#finish({
          // The library reports a reset of the session's HTTP/2 stream as a close: it is a transport error.
          initiator: core.closeStarted ?? (endedByStreamError(info) ? 'error' : 'remote'),
          code: info?.closeCode,
          reason: info?.reason,
          ...(endedByStreamError(info) ? { error: new Error(info?.reason) } : {}),
        }),
      (error: Error) => this.#finish({ initiator: core.closeStarted ?? 'error', reason: error?.message, error: asError(error) }),
    );
    if (this.role === 'server') this.#startDeadlines();
    void this.#control.acceptBidirectionalStreams(init.session);
    void this.#streams.accept();
    void this.#datagrams.accept();
  }

  // ---- Connection ---------------------------------------------------------------------------

  get isClosed(): boolean {
    return this.#core.isClosed;
  }

  /**
   * Server role: the `result.transport` this session answers the client's initialize with, as the
   * binding attached through the hooks negotiates it (src/peer/server/binding.ts).
   */
  negotiate(): ServerTransportCapabilities {
    const negotiate = this.#core.hooks.negotiate;
    if (!negotiate) throw new InvalidStateError('no server binding is attached to this session (hooks.negotiate): nothing negotiates result.transport');
    return negotiate(this.#view);
  }

  /** Client role: opens the control stream (001 §1 CONNECTED -> CONTROL_STREAM_OPENED). */
  openControlStream(): Promise<void> {
    return this.#control.open(this.#session);
  }

  async send(message: unknown): Promise<void> {
    const core = this.#core;
    core.assertOpen();
    this.#control.requireWriter();
    core.touch();
    if (this.role === 'server') {
      const answered = this.#datagrams.answeredAlready(message);
      if (answered !== undefined) {
        this.transcript.event(`answer to request ${JSON.stringify(answered)} not sent: the binding already answered it (-32004)`);
        return;
      }
    }
    if (core.hooks.outgoing) message = core.hooks.outgoing(message, this.#view);
    if (core.hooks.responseAsDatagram?.(message, this.#view)) return this.#sendAsDatagram(message);
    const frame = this.#control.encode(message);
    const advertised = core.serverCapabilities?.maxMessageSize;
    if (this.role === 'client' && !core.raw && typeof advertised === 'number' && frame.byteLength - 4 > advertised) {
      // WT-FRAME-9 (the raw client may send it anyway, to test the server's WT-FRAME-3).
      throw new LimitExceededError('maxMessageSize', `message body of ${frame.byteLength - 4} bytes exceeds the server's maxMessageSize ${advertised}`);
    }
    this.#noteSent(message);
    this.transcript.record({ direction: 'sent', channel: CONTROL, bytes: frame, decoded: message });
    await this.#control.write(frame);
    await core.hooks.afterSend?.(message, this.#view);
  }

  /** A response sent as a progress datagram of its request instead of on the control stream (hook responseAsDatagram). */
  async #sendAsDatagram(message: unknown): Promise<void> {
    const id = record(message)?.['id'] as number;
    this.#noteSent(message);
    this.transcript.event(`response to ${id} sent only as a datagram`);
    const payload = codecFor(this.#core.encoding.current).encode(message);
    await this.#datagrams.sendBytes(encodeDatagram({ channel: 0x01, flags: 0, requestId: id, payload }), { kind: 'datagram', channel: 0x01, requestId: id });
  }

  async sendRaw(bytes: Uint8Array): Promise<void> {
    this.#core.assertOpen();
    this.#control.requireWriter();
    this.transcript.record({ direction: 'sent', channel: CONTROL, bytes, note: 'raw bytes' });
    await this.#control.write(bytes);
  }

  async next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage> {
    return this.#delivery.next(predicate, options);
  }

  pending(): readonly ReceivedMessage[] {
    return this.#delivery.pending();
  }

  faults(): readonly ConnectionFault[] {
    return this.#core.faults();
  }

  async close(reason = 'closed'): Promise<void> {
    const core = this.#core;
    if (!core.isClosed && core.closeStarted === undefined) {
      core.closeStarted = 'local';
      this.transcript.event(`closing: ${reason}`);
      try {
        // Flush what was already sent (bounded), end the control stream, then the session.
        await Promise.race([this.#control.writesSettled, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
        this.#control.abandon();
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

  // ---- state ------------------------------------------------------------------------------------

  /** Bookkeeping for a message we send: state, encoding switch, in-flight ids. */
  #noteSent(message: unknown): void {
    const core = this.#core;
    core.inFlight.observe(message, 'sent');
    const state = core.machine.state;
    if (this.role === 'client') {
      const initId = initializeRequestId(message);
      if (initId !== undefined && state === 'CONTROL_STREAM_OPENED') {
        core.encoding.noteInitializeRequest(initId);
        core.machine.transition('INITIALIZING', 'initialize request sent');
      }
      return;
    }
    if (state !== 'INITIALIZING' || idOf(message) !== core.encoding.initializeRequestId) return;
    const selected = negotiatedEncoding(message, core.encoding.initializeRequestId);
    if (selected === undefined) {
      if (record(message)?.['error'] !== undefined) {
        core.machine.transition('CONTROL_STREAM_OPENED', 'initialize answered with an error');
        core.hooks.initializeAnswered?.(false, this.#view);
      }
      return;
    }
    // The result itself went out in JSON; everything after it uses the negotiated encoding.
    if (!core.encoding.negotiated) core.encoding.switchTo(selected);
    core.serverCapabilities = record(record(record(message)?.['result'])?.['transport']) as ServerTransportCapabilities | undefined;
    core.machine.transition('READY', `initialize result sent; encoding ${selected}`);
    core.hooks.initializeAnswered?.(true, this.#view);
    this.#control.onReady();
  }

  /**
   * Server role: a session that is not READY within handshakeTimeoutMs (it never sent initialize,
   * or never got its result) is closed, and so is one where nothing crossed for idleTimeoutMs while
   * no request was in flight and no execution stream open, so that idle peers cannot hold the
   * server's session slots (0 switches either off).
   */
  #startDeadlines(): void {
    const core = this.#core;
    const { handshakeTimeoutMs, idleTimeoutMs } = core.limits;
    if (handshakeTimeoutMs > 0) {
      this.#timers.push(setTimeout(() => {
        if (core.machine.state !== 'READY' && !core.isClosed) void this.close(`no initialize handshake within ${handshakeTimeoutMs} ms`);
      }, handshakeTimeoutMs).unref());
    }
    if (idleTimeoutMs > 0) {
      const check = () => {
        if (core.isClosed) return;
        const busy = core.inFlight.size > 0 || this.#streams.incomingOpen > 0 || this.#streams.outgoingOpen > 0;
        if (busy) core.touch();
        const idle = Date.now() - core.lastActivity;
        if (idle >= idleTimeoutMs) {
          void this.close(`idle for ${idleTimeoutMs} ms`);
          return;
        }
        this.#timers.push(setTimeout(check, idleTimeoutMs - idle).unref());
      };
      this.#timers.push(setTimeout(check, idleTimeoutMs).unref());
    }
  }

  // ---- shutdown and close -----------------------------------------------------------------------

  async #shutdown(drainTimeoutMs: number): Promise<void> {
    const core = this.#core;
    if (core.isClosed) return;
    core.shuttingDown = true;
    if (!this.#shutdownSent && this.#control.isOpen) {
      this.#shutdownSent = true;
      await this.send({ jsonrpc: '2.0', method: '$/shutdown' });
    }
    await this.#drain(drainTimeoutMs);
    // The peer closes on our $/shutdown once it has drained too; closing first could discard the
    // $/shutdown frame still in flight over HTTP/2, so it gets a moment.
    await this.#control.writesSettled;
    await core.until(() => core.isClosed, LOST_SYNC_CLOSE_DELAY_MS);
    await this.close('shutdown');
  }

  #onShutdownReceived(): void {
    const core = this.#core;
    if (core.shuttingDown) return;
    const handling = core.hooks.shutdownReceived?.() ?? 'drain';
    if (handling === 'ignore') {
      this.transcript.event('$/shutdown received: ignored');
      return;
    }
    core.shuttingDown = true;
    if (handling === 'close-now') {
      this.transcript.event('$/shutdown received: closing without draining');
      void this.close('peer sent $/shutdown');
      return;
    }
    this.transcript.event('$/shutdown received: no new streams; draining');
    void this.#drain(core.limits.drainTimeoutMs)
      .then(() => core.hooks.drained?.(this.#view))
      .catch((error: unknown) => this.transcript.event(`after the drain: ${asError(error).message}`))
      .then(() => this.close('peer sent $/shutdown'));
  }

  /** Waits until no execution stream is open in either direction, or the deadline passes. */
  async #drain(timeoutMs: number): Promise<void> {
    const streams = this.#streams;
    const drained = await this.#core.until(() => (streams.incomingOpen === 0 && streams.outgoingOpen === 0) || this.#core.isClosed, timeoutMs);
    this.transcript.event(
      drained
        ? 'execution streams drained'
        : `drain deadline (${timeoutMs} ms) passed with ${streams.incomingOpen} incoming and ${streams.outgoingOpen} outgoing streams open`,
    );
  }

  #finish(info: CloseInfo): void {
    const core = this.#core;
    if (core.isClosed) return;
    core.isClosed = true;
    for (const timer of this.#timers.splice(0)) clearTimeout(timer);
    core.machine.transition('CLOSED', `session closed (${info.initiator})`);
    this.transcript.event(
      `session closed by ${info.initiator}${info.code !== undefined ? `, code ${info.code}` : ''}${info.reason ? `: ${info.reason}` : ''}`,
    );
    const error = new ConnectionClosedError(`WebTransport session closed (${info.initiator})`);
    // Messages read before the close may still be on their way through delivery (waiting for a
    // referenced stream, which the close now ends): they are queued first, so a wait sees them.
    this.#delivery.close(error);
    this.#streams.close(error);
    this.#datagrams.close(error);
    core.changed();
    this.#resolveClosed(info);
    // A client's HTTP/2 connection ends with its session, whoever ended it and however.
    if (core.role === 'client') releaseConnection(this.#session);
  }

  // ---- what hooks and the facet see -------------------------------------------------------------

  #makeView(): WtSessionView {
    const core = this.#core;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    return {
      role: core.role,
      transcript: core.transcript,
      limits: core.limits,
      readings: core.readings,
      encodings: core.encodings,
      datagramsSupported: core.datagramsSupported,
      get state(): WtConnectionState {
        return core.machine.state;
      },
      get encoding() {
        return core.encoding.current;
      },
      get encodingNegotiated() {
        return core.encoding.negotiated;
      },
      get initializeRequestId() {
        return core.encoding.initializeRequestId;
      },
      get isClosed() {
        return core.isClosed;
      },
      get outgoingStreams() {
        return self.#streams.outgoingOpen;
      },
      receivedRequestIds: () => core.inFlight.receivedIds(),
      deliver: (message, frame) => this.#delivery.take(message, frame),
      deliverLocal: (message, note) => this.#delivery.pushLocal(message, note),
      refuse: (id, code, faultCode, message) => core.refuse(id, code, faultCode, message),
      report: (faultCode, message, jsonRpcCode) => core.fault(faultCode, message, CONTROL, jsonRpcCode),
      send: (message) => this.send(message),
      sendError: (id, code, message, data) => core.sendError(id, code, message, data),
      sendDatagramBytes: (bytes, requestId) =>
        this.#datagrams.sendBytes(bytes, { kind: 'datagram', channel: bytes[0] ?? -1, ...(requestId !== undefined ? { requestId } : {}) }),
      openStream: (headerBytes, header) => this.#streams.openUni(headerBytes, header),
      until: (condition, timeoutMs) => core.until(condition, timeoutMs),
      close: (reason) => this.close(reason),
      closeAfterWrites: (reason) => core.closeAfterWrites(reason),
      resetTransport: async (reason) => {
        if (core.isClosed) return;
        this.transcript.event(`resetting the session's HTTP/2 stream (no session close): ${reason}`);
        resetSessionStream(this.#session);
        await core.until(() => core.isClosed, RESET_SETTLE_MS);
      },
    };
  }

  #facet(httpVersion: 2 | 3): WebTransportFacet {
    const core = this.#core;
    return {
      httpVersion,
      get state(): WtConnectionState {
        return core.machine.state;
      },
      get encoding() {
        return core.encoding.current;
      },
      get serverCapabilities() {
        return core.serverCapabilities;
      },
      openExecutionStream: (header) => this.#streams.open(header),
      openRawStream: (firstBytes) => this.#streams.openUni(firstBytes, undefined),
      nextExecutionStream: (predicate, options) => this.#streams.next(predicate, options),
      sendDatagram: (datagram) => this.#datagrams.send(datagram),
      sendRawDatagram: (bytes) => this.#datagrams.sendBytes(bytes),
      nextDatagram: (predicate, options) => this.#datagrams.next(predicate, options),
      shutdown: (options) => this.#shutdown(options?.drainTimeoutMs ?? core.limits.drainTimeoutMs),
      endControlStream: () => this.#control.end(),
    };
  }
}
