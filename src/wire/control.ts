// Message-level reader and writer for one control stream: framing + the encoding in force at each
// message boundary (a reader/writer split in the style of vscode-jsonrpc).
import { CborMap } from './cbor-scan.js';
import { type Codec, type EncodingName, codecFor } from './codec.js';
import { EncodingState, initializeRequestId, negotiatedEncoding } from './encoding-state.js';
import { EncodingMismatchError, WireError } from './errors.js';
import { type AfterLengthError, FrameDecoder, encodeFrame, resolveMaxMessageSize } from './frame.js';

export type ControlRole = 'client' | 'server';

export interface DecodedFrame {
  message: unknown;
  /** The encoding in force when this body was decoded. */
  encoding: EncodingName;
  body: Uint8Array;
  /** The body length the frame's prefix declared (prefix bytes not included). */
  frameLength: number;
  /** Stream offset of the frame's length prefix. */
  frameOffset: number;
}

/**
 * Framing errors after which the byte stream is not resynchronised (in the default 'close' mode):
 * an oversized prefix (its body is not read). An empty frame (FRAME_EMPTY) is whole: the next
 * frame follows it.
 */
export function losesSync(error: WireError): boolean {
  return error.code === 'FRAME_TOO_LARGE';
}

export interface ControlStreamReaderOptions {
  state: EncodingState;
  maxMessageSize?: number;
  /** After FRAME_TOO_LARGE: 'close' (default, the error is fatal) or 'skip' the body and go on (WT-FRAME-7). */
  afterLengthError?: AfterLengthError;
  /** Which end reads: a client switches encoding when it reads the initialize result. */
  role: ControlRole;
}

/**
 * Decodes control-stream bytes into messages, each body with the encoding in force at its boundary.
 * A client reader switches `state` as soon as it decodes the initialize result, so a CBOR frame that
 * arrived in the same chunk is already read as CBOR. A server reader records the initialize request id.
 *
 * push() returns per-frame errors (bad body, encoding mismatch) in place, so later good frames still
 * come out; so is an empty frame (FRAME_EMPTY), which leaves the stream in sync. In the default
 * 'close' mode a framing error that loses sync (FRAME_TOO_LARGE) is thrown; if good frames preceded
 * it in the same chunk they are returned with the error as the last element instead, and every
 * later push()/end() throws it. In 'skip' mode it is returned in place like any other and decoding
 * goes on after the skipped body.
 */
export class ControlStreamReader {
  readonly state: EncodingState;
  readonly role: ControlRole;
  readonly #frames: FrameDecoder;

  constructor(options: ControlStreamReaderOptions) {
    this.state = options.state;
    this.role = options.role;
    this.#frames = new FrameDecoder({
      maxMessageSize: resolveMaxMessageSize(options.maxMessageSize),
      afterLengthError: options.afterLengthError ?? 'close',
    });
  }

  /** The framing error that ended this stream ('close' mode), if any. */
  get failure(): WireError | undefined {
    return this.#frames.failure;
  }

  get bufferedBytes(): number {
    return this.#frames.bufferedBytes;
  }

  /** The body bytes of a frame begun but not complete (FrameDecoder.partialBody). */
  get partialBody(): Uint8Array | undefined {
    return this.#frames.partialBody;
  }

  /** Whether a FRAME_TOO_LARGE prefix is skipped (the stream stays in sync) rather than fatal. */
  get skipsLengthErrors(): boolean {
    return this.#frames.afterLengthError === 'skip';
  }

  push(chunk: Uint8Array): Array<DecodedFrame | WireError> {
    this.#frames.write(chunk);
    const out: Array<DecodedFrame | WireError> = [];
    for (;;) {
      let body: Uint8Array | undefined;
      try {
        body = this.#frames.read();
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
        if (this.#frames.failure !== error) {
          out.push(error); // 'skip' mode: the stream is still in sync
          continue;
        }
        if (out.length === 0) throw error;
        out.push(error);
        return out;
      }
      if (body === undefined) return out;
      out.push(this.#decode(body, this.#frames.lastFrameOffset!));
    }
  }

  /** Declares the end of the stream; throws if it ended inside a frame. */
  end(): void {
    // push() reads every complete frame, so nothing is left for end() to return.
    this.#frames.end();
  }

  #decode(body: Uint8Array, frameOffset: number): DecodedFrame | WireError {
    const encoding = this.state.current;
    let message: unknown;
    try {
      message = codecFor(encoding).decode(body);
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      return this.#mismatch(body, frameOffset) ?? error;
    }
    this.#observe(message);
    return { message, encoding, body, frameLength: body.length, frameOffset };
  }

  /** An EncodingMismatchError if `body` decodes to a message in the encoding not in force. */
  #mismatch(body: Uint8Array, frameOffset: number): EncodingMismatchError | undefined {
    const encoding = this.state.current;
    const other: EncodingName = encoding === 'json' ? 'cbor' : 'json';
    const message = decodedMessage(codecFor(other), body);
    if (message === undefined) return undefined;
    const why = this.state.negotiated ? `${encoding} was negotiated` : `${encoding} is required until the initialize result`;
    const id = (message as { id?: unknown }).id;
    return new EncodingMismatchError(encoding, other, why, frameOffset, typeof id === 'string' || typeof id === 'number' ? id : undefined);
  }

  #observe(message: unknown): void {
    if (this.state.negotiated) return;
    if (this.role === 'server') {
      const id = initializeRequestId(message);
      if (id !== undefined) this.state.noteInitializeRequest(id);
      return;
    }
    const encoding = negotiatedEncoding(message, this.state.initializeRequestId);
    if (encoding !== undefined) this.state.switchTo(encoding);
  }
}

/** A map or an array: the shape of a JSON-RPC message or batch (a tag, a simple value or a byte string is none). */
function isMessageShaped(value: unknown): boolean {
  if (Array.isArray(value) || value instanceof CborMap) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What `body` decodes to in `codec` when that is message-shaped, else undefined. */
function decodedMessage(codec: Codec, body: Uint8Array): object | undefined {
  try {
    const value = codec.decode(body);
    return isMessageShaped(value) ? (value as object) : undefined;
  } catch {
    return undefined;
  }
}

export interface ControlStreamWriterOptions {
  state: EncodingState;
  maxMessageSize?: number;
  /**
   * Which end writes. With 'server', encoding the initialize result switches `state` right after
   * that frame; without it the caller calls state.switchTo() itself.
   */
  role?: ControlRole;
}

/** Encodes messages into whole frames in the encoding in force. */
export class ControlStreamWriter {
  readonly state: EncodingState;
  readonly role: ControlRole | undefined;
  readonly maxMessageSize: number;

  constructor(options: ControlStreamWriterOptions) {
    this.state = options.state;
    this.role = options.role;
    this.maxMessageSize = resolveMaxMessageSize(options.maxMessageSize);
  }

  /** One whole frame (length prefix + body) for `message`, in the encoding in force. */
  encode(message: unknown): Uint8Array {
    const frame = this.encodeAs(message, this.state.current);
    this.#observe(message);
    return frame;
  }

  /** A frame in a chosen encoding, leaving the state alone (for sending deliberately wrong frames). */
  encodeAs(message: unknown, encoding: EncodingName): Uint8Array {
    return encodeFrame(codecFor(encoding).encode(message), { maxMessageSize: this.maxMessageSize });
  }

  #observe(message: unknown): void {
    if (this.state.negotiated) return;
    if (this.role !== 'server') {
      const id = initializeRequestId(message);
      if (id !== undefined) this.state.noteInitializeRequest(id);
      return;
    }
    const encoding = negotiatedEncoding(message, this.state.initializeRequestId);
    if (encoding !== undefined) this.state.switchTo(encoding);
  }
}
