// The control stream of one session (001 §2.1, §3): the client's one bidirectional stream, read as
// length-prefixed frames in the encoding in force and written the same way. Frames the reader
// refuses are answered with the wire error's JSON-RPC code (in the readings taken); a stream that
// loses frame sync (WT-FRAME-3) or ends (WT-CONN-6) ends the session.
import { InvalidStateError, ConnectionClosedError } from '../errors.js';
import {
  codecFor,
  ControlStreamReader,
  ControlStreamWriter,
  EncodingMismatchError,
  initializeRequestId,
  losesSync,
  WireError,
  type DecodedFrame,
} from '../../wire/index.js';
import type { ControlReaderSettings, RefusedFrameHandling, WtSessionView } from './hooks.js';
import type { Delivery } from './delivery.js';
import type { BidiStream, LibrarySession } from './library-session.js';
import { asError, CONTROL, idOf, LOST_SYNC_CLOSE_DELAY_MS, record, type SessionCore } from './session-core.js';

/** JSON-RPC Parse error (WT-FRAME-4). */
const PARSE_ERROR = -32700;

export class ControlStream {
  readonly #core: SessionCore;
  readonly #delivery: Delivery;
  readonly #view: () => WtSessionView;
  readonly #writer: ControlStreamWriter;
  #reader: ControlStreamReader;
  #readerSettings: ControlReaderSettings;
  /** Control-stream offset at which #reader started (its error offsets count from there). */
  #readerBase = 0;
  /** Stream offset of the next control-stream chunk. */
  #offset = 0;
  #stream: BidiStream | undefined;
  #streamWriter: WritableStreamDefaultWriter<Uint8Array> | undefined;
  /** False once our side of the control stream is closed or errored (writing then trips Node's stream internals). */
  #writable = true;
  #writeChain: Promise<void> = Promise.resolve();
  /** Set when the control stream lost frame sync (WT-FRAME-3): nothing after it is readable. */
  #failure: WireError | undefined;

  constructor(core: SessionCore, delivery: Delivery, view: () => WtSessionView) {
    this.#core = core;
    this.#delivery = delivery;
    this.#view = view;
    this.#readerSettings = this.#settings('start');
    this.#reader = this.#newReader(this.#readerSettings);
    this.#writer = new ControlStreamWriter({ state: core.encoding, maxMessageSize: core.limits.maxMessageSize, role: core.role });
  }

  /** Whether the control stream is attached (the client opened it). */
  get isOpen(): boolean {
    return this.#streamWriter !== undefined;
  }

  /** Settles once everything written so far has gone out (or failed). */
  get writesSettled(): Promise<void> {
    return this.#writeChain;
  }

  /** Client role: opens the control stream (001 §1 CONNECTED -> CONTROL_STREAM_OPENED). */
  async open(session: LibrarySession): Promise<void> {
    if (this.#stream) throw new InvalidStateError('the control stream is already open');
    this.attach(await session.createBidirectionalStream(), 0);
  }

  /** Server role: the client's bidirectional streams; the first is the control stream, any other is refused. */
  async acceptBidirectionalStreams(session: LibrarySession): Promise<void> {
    const core = this.#core;
    const reader = session.incomingBidirectionalStreams.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (core.role === 'server' && !this.#stream) {
          this.attach(value, 0);
          continue;
        }
        // 001 has one bidirectional stream per session: the client's control stream.
        const text = `unexpected bidirectional stream from the ${core.role === 'server' ? 'client' : 'server'} (only the client's control stream is bidirectional)`;
        core.fault('UNEXPECTED_BIDIRECTIONAL_STREAM', text, { kind: 'session' });
        void value.readable.cancel(text).catch(() => undefined);
        void value.writable.abort(text).catch(() => undefined);
      }
    } catch {
      // the session ended
    }
  }

  attach(stream: BidiStream, streamId: number): void {
    this.#stream = stream;
    this.#streamWriter = stream.writable.getWriter();
    const ended = () => void (this.#writable = false);
    this.#streamWriter.closed.then(ended, ended);
    this.#core.machine.transition('CONTROL_STREAM_OPENED', `bidirectional stream ${streamId} is the control stream`);
    void this.#read(stream.readable);
  }

  // ---- writing ----------------------------------------------------------------------------------

  /** One frame for `message` in the encoding in force (the frame hook may write other bytes). */
  encode(message: unknown): Uint8Array {
    const core = this.#core;
    const initializeResult =
      core.role === 'server' &&
      core.machine.state === 'INITIALIZING' &&
      idOf(message) === core.encoding.initializeRequestId &&
      record(message)?.['result'] !== undefined;
    // (Read before encoding: encoding the initialize result switches the encoding state.)
    const cbor = core.encoding.negotiated && core.encoding.current === 'cbor';
    const frame = this.#writer.encode(message);
    if (!core.hooks.frame) return frame;
    return core.hooks.frame(message, frame, { initializeResult, cbor, encodeAs: (encoding) => this.#writer.encodeAs(message, encoding) });
  }

  /** Writes bytes after everything written before them. */
  write(bytes: Uint8Array): Promise<void> {
    const writer = this.requireWriter();
    const write = this.#writeChain.then(async () => {
      if (!this.#writable) throw new ConnectionClosedError('the control stream is closed');
      await writer.ready;
      try {
        await writer.write(bytes);
      } catch (error) {
        // A write racing the stream's end can fail inside Node (ERR_INTERNAL_ASSERTION): the stream is gone either way.
        if (!this.#writable || (error as { code?: unknown }).code === 'ERR_INTERNAL_ASSERTION') {
          throw new ConnectionClosedError('the control stream closed while writing', { cause: error });
        }
        throw error;
      }
    });
    this.#writeChain = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      throw this.#core.isClosed ? new ConnectionClosedError('connection closed while sending', { cause: error }) : error;
    });
  }

  requireWriter(): WritableStreamDefaultWriter<Uint8Array> {
    if (!this.#streamWriter) {
      throw new InvalidStateError(
        this.#core.role === 'server'
          ? 'the client has not opened the control stream yet; nothing can be sent before it'
          : 'the control stream is not open',
      );
    }
    return this.#streamWriter;
  }

  /** Ends (FIN) this side of the control stream after what was already written. */
  async end(): Promise<void> {
    const writer = this.requireWriter();
    await this.#writeChain;
    this.#core.transcript.event('control stream ended by this side (FIN)');
    await writer.close();
  }

  /** Ends this side of the control stream without waiting (closing the session). */
  abandon(): void {
    void this.#streamWriter?.close().catch(() => undefined);
  }

  /** The session is READY: the reader takes its 'ready' settings when no frame is half read. */
  onReady(): void {
    const settings = this.#settings('ready');
    const same = settings.maxMessageSize === this.#readerSettings.maxMessageSize && settings.afterLengthError === this.#readerSettings.afterLengthError;
    if (same || this.#reader.bufferedBytes > 0) return;
    this.#readerSettings = settings;
    this.#reader = this.#newReader(settings);
  }

  // ---- reading ----------------------------------------------------------------------------------

  /** The reader's settings: maxMessageSize, and (reading afterLengthError, WT-FRAME-7) whether length errors are skipped; the hook may change them. */
  #settings(phase: 'start' | 'ready'): ControlReaderSettings {
    const core = this.#core;
    const settings: ControlReaderSettings = {
      maxMessageSize: core.limits.maxMessageSize,
      afterLengthError: core.role === 'server' && core.readings.afterLengthError === 'skip' ? 'skip' : 'close',
    };
    return core.hooks.readerSettings?.(phase, settings) ?? settings;
  }

  #newReader(settings: ControlReaderSettings): ControlStreamReader {
    this.#readerBase = this.#offset;
    return new ControlStreamReader({ state: this.#core.encoding, maxMessageSize: settings.maxMessageSize, role: this.#core.role, afterLengthError: settings.afterLengthError });
  }

  async #read(readable: ReadableStream<Uint8Array>): Promise<void> {
    const core = this.#core;
    const reader = readable.getReader();
    let answeredEnd = false;
    try {
      for (;;) {
        await this.#delivery.belowLimit();
        const { value, done } = await reader.read();
        if (done) {
          answeredEnd = this.#onEnd();
          break;
        }
        this.#onChunk(value);
        if (this.#failure !== undefined) return; // the lost-sync path closes the session
      }
      core.transcript.event('control stream ended by the peer');
    } catch (error) {
      if (!core.isClosed) core.transcript.event(`control stream failed: ${asError(error).message}`);
    } finally {
      reader.releaseLock();
    }
    // WT-CONN-6: the control stream ending or being reset closes the session.
    if (core.hooks.controlStreamEnded?.() === 'keep-open') {
      core.transcript.event('control stream ended: session kept open');
      return;
    }
    if (!core.isClosed && this.#failure === undefined) {
      await this.#writeChain;
      // Closing at once can discard the error answer still in flight over HTTP/2: give the peer a moment.
      if (answeredEnd) await core.until(() => core.isClosed, LOST_SYNC_CLOSE_DELAY_MS);
      await core.ops.close('control stream ended');
    }
  }

  /**
   * WT-FRAME-5: a control stream that ends inside a frame leaves a partial message that is not
   * processed; it is answered with -32700 (or, reading truncatedFrameAtEnd 'close', not at all).
   * Returns whether an answer went out.
   */
  #onEnd(): boolean {
    const core = this.#core;
    const partial = this.#reader.partialBody;
    try {
      this.#reader.end();
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      core.transcript.record({ direction: 'received', channel: CONTROL, error: { code: error.code, message: error.message }, note: 'end of stream' });
      core.fault(error.code, error.message, CONTROL, error.jsonRpcCode);
      const handling = core.hooks.frameRefused?.(error, true) ?? 'answer';
      if (handling === 'serve-partial-body' && partial !== undefined && this.#servePartial(partial)) return true;
      const silent = handling === 'unanswered' || (core.role === 'server' && core.readings.truncatedFrameAtEnd === 'close');
      if (core.answers.parseErrors && !silent) {
        void core.sendError(null, error.jsonRpcCode, error.message, error.toJsonRpcError().data);
        return true;
      }
    }
    return false;
  }

  /** Takes the bytes of an incomplete frame as a message when they decode (handling 'serve-partial-body'). */
  #servePartial(body: Uint8Array): boolean {
    let message: unknown;
    try {
      message = codecFor(this.#core.encoding.current).decode(body);
    } catch {
      return false;
    }
    this.#core.transcript.event(`the ${body.byteLength} bytes of an incomplete frame served as a message`);
    this.#onFrame({ message, encoding: this.#core.encoding.current, body, frameLength: body.byteLength, frameOffset: this.#offset - body.byteLength - 4 });
    return true;
  }

  #onChunk(chunk: Uint8Array): void {
    const core = this.#core;
    core.touch();
    const buffered = this.#reader.bufferedBytes;
    if (buffered > 0 && core.hooks.chunkArrived?.(buffered) === 'drop-buffered') {
      core.transcript.event(`${buffered} bytes of a frame split across reads dropped`);
      this.#reader = this.#newReader(this.#readerSettings);
    }
    const chunkStart = this.#offset;
    this.#offset += chunk.byteLength;
    let items: Array<DecodedFrame | WireError>;
    try {
      items = this.#reader.push(chunk);
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      items = [error];
    }
    for (const item of items) {
      if (this.#failure !== undefined) break;
      if (!(item instanceof WireError)) {
        this.#onFrame(item);
        continue;
      }
      const handling = core.hooks.frameRefused?.(item, false) ?? 'answer';
      if (handling === 'serve-in-its-encoding' && this.#serveMismatched(item, chunk, chunkStart)) continue;
      this.#onRefused(item, chunk, handling);
    }
  }

  /**
   * Handling 'serve-in-its-encoding': a body in the other encoding is decoded in that encoding and
   * served. Works when the frame arrived in one read.
   */
  #serveMismatched(error: WireError, chunk: Uint8Array, chunkStart: number): boolean {
    if (!(error instanceof EncodingMismatchError) || error.offset === undefined) return false;
    const start = this.#readerBase + error.offset - chunkStart;
    if (start < 0 || start + 4 > chunk.byteLength) return false;
    const length = new DataView(chunk.buffer, chunk.byteOffset + start, 4).getUint32(0);
    if (start + 4 + length > chunk.byteLength) return false;
    const body = chunk.subarray(start + 4, start + 4 + length);
    const message = codecFor(error.actual).decode(body);
    this.#onFrame({ message, encoding: error.actual, body, frameLength: length, frameOffset: error.offset });
    return true;
  }

  #onRefused(error: WireError, chunk: Uint8Array, handling: RefusedFrameHandling): void {
    const core = this.#core;
    if (handling === 'skip') {
      core.transcript.record({ direction: 'received', channel: CONTROL, bytes: chunk, note: `${error.code}: frame skipped` });
      return;
    }
    core.transcript.record({
      direction: 'received',
      channel: CONTROL,
      bytes: chunk,
      error: { code: error.code, message: error.message },
      note: 'chunk in which the fault surfaced',
    });
    core.fault(error.code, error.message, CONTROL, error.jsonRpcCode);
    if (core.answers.parseErrors && handling !== 'unanswered') {
      const answer = core.role === 'server' ? this.#bindingErrorAnswer(error) : { id: null, code: error.jsonRpcCode };
      void core.sendError(answer.id, answer.code, error.message, error.toJsonRpcError().data);
    }
    if (handling === 'read-body-as-frames' && error.code === 'FRAME_TOO_LARGE') {
      // A fresh reader takes the refused frame's body as frames.
      const chunkStart = this.#offset - chunk.byteLength;
      const after = error.offset === undefined ? chunk.byteLength : this.#readerBase + error.offset + 4 - chunkStart;
      this.#reader = this.#newReader(this.#readerSettings);
      const rest = chunk.subarray(Math.min(Math.max(after, 0), chunk.byteLength));
      if (rest.byteLength > 0) queueMicrotask(() => this.#onChunkRest(rest));
      return;
    }
    // Handling 'answer-then-close', or a length error (WT-FRAME-3) the reader does not skip (reading
    // afterLengthError 'skip', WT-FRAME-7, keeps it in sync): nothing after it is read.
    if (handling === 'answer-then-close' || (losesSync(error) && !this.#reader.skipsLengthErrors)) {
      this.#failure = error;
      // The stream lost frame sync (WT-FRAME-3): nothing after it can be read, so the session ends.
      // The error answer goes out first; the peer gets a moment to read it before the session ends
      // (closing at once can discard stream data still in flight over HTTP/2).
      if (core.role === 'server' || core.answers.parseErrors) void core.closeAfterWrites(`${error.code}: ${error.message}`);
    }
  }

  /**
   * Server role: the id and code answering a control frame the reader refused, in the readings
   * taken: an empty frame is -32600 or -32700 (WT-FRAME-2); a message in the other encoding is
   * -32003 with id null or its own id, or (a CBOR initialize) -32700 (WT-ENC-5).
   */
  #bindingErrorAnswer(error: WireError): { id: string | number | null; code: number } {
    const { encoding, readings } = this.#core;
    if (error.code === 'FRAME_EMPTY' && readings.emptyFrame === 'parse-error') return { id: null, code: PARSE_ERROR };
    if (error instanceof EncodingMismatchError) {
      if (!encoding.negotiated && readings.cborInitialize === 'parse-error') return { id: null, code: PARSE_ERROR };
      if (encoding.negotiated && readings.mismatchId === 'echo') return { id: error.messageId ?? null, code: error.jsonRpcCode };
    }
    return { id: null, code: error.jsonRpcCode };
  }

  /** The rest of a chunk after a refused frame prefix (handling 'read-body-as-frames'). */
  #onChunkRest(rest: Uint8Array): void {
    this.#offset -= rest.byteLength;
    this.#readerBase = this.#offset;
    this.#onChunk(rest);
  }

  /** A decoded control frame: recorded, admitted (server role, by the hook), then taken. */
  #onFrame(frame: DecodedFrame): void {
    const core = this.#core;
    let message = frame.message;
    const bytes = new Uint8Array(4 + frame.body.byteLength);
    new DataView(bytes.buffer).setUint32(0, frame.body.byteLength);
    bytes.set(frame.body, 4);
    core.transcript.record({ direction: 'received', channel: CONTROL, bytes, decoded: message, note: frame.encoding });
    if (core.role === 'server') {
      if (core.hooks.admit) {
        message = core.hooks.admit(message, frame, this.#view());
        if (message === undefined) return;
      }
      const initializeId = core.machine.state === 'CONTROL_STREAM_OPENED' ? initializeRequestId(message) : undefined;
      if (initializeId !== undefined) {
        core.encoding.noteInitializeRequest(initializeId);
        core.machine.transition('INITIALIZING', 'initialize request received');
      }
    }
    this.#delivery.take(message, frame);
  }
}
