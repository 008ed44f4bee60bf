// Control-stream framing (seed 001 section 2.1): a 4-byte big-endian length prefix, then exactly
// that many body bytes carrying one message.
import { FrameEmptyError, FrameTooLargeError, FrameTruncatedBodyError, FrameTruncatedLengthError, WireOptionError, type WireError } from './errors.js';

export const FRAME_PREFIX_BYTES = 4;
/** 16 MiB: the default cap on a frame body, enforced before any body byte is buffered. */
export const DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;
/** The largest length a 4-byte prefix can declare. */
export const MAX_FRAME_LENGTH = 0xffff_ffff;

export interface FrameOptions {
  /** Largest body length accepted or produced; default DEFAULT_MAX_MESSAGE_SIZE. */
  maxMessageSize?: number;
}

/**
 * What a decoder does after a FRAME_TOO_LARGE prefix (WT-FRAME-7 accepts both): 'close' (default)
 * stays failed, every later call throws the error again; 'skip' discards the declared body as it
 * arrives, without buffering it, and goes on with the next frame. A FRAME_EMPTY prefix (length 0)
 * is a whole frame with no body: the stream is still in sync, so the decoder goes on in either mode
 * (the error is the answer's business, WT-FRAME-2, WT-FRAME-8).
 */
export type AfterLengthError = 'close' | 'skip';

export interface FrameDecoderOptions extends FrameOptions {
  afterLengthError?: AfterLengthError;
}

/** Checks a maximum message size option: an integer in 1..2^32-1. */
export function resolveMaxMessageSize(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_SIZE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_FRAME_LENGTH) {
    throw new WireOptionError('maxMessageSize', value, `an integer in 1..${MAX_FRAME_LENGTH}`);
  }
  return value;
}

/** Prefixes one message body with its length. */
export function encodeFrame(body: Uint8Array, options?: FrameOptions): Uint8Array {
  const max = resolveMaxMessageSize(options?.maxMessageSize);
  if (body.length === 0) throw new FrameEmptyError();
  if (body.length > max) throw new FrameTooLargeError(body.length, max);
  const frame = new Uint8Array(FRAME_PREFIX_BYTES + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, FRAME_PREFIX_BYTES);
  return frame;
}

/**
 * Incremental frame decoder: bytes in, complete bodies out, the same bodies for any chunking.
 * A length prefix of 0 or above the maximum is rejected as soon as its 4 bytes are in, before
 * any body byte is kept. A prefix of 0 leaves the stream in sync (the next frame follows it). After
 * one above the maximum the stream is by default treated as lost and every later call throws that
 * error again; with `afterLengthError: 'skip'` the declared body is skipped instead.
 */
export class FrameDecoder {
  readonly maxMessageSize: number;
  readonly afterLengthError: AfterLengthError;
  #chunks: Uint8Array[] = [];
  /** Index of the first unread chunk (consumed chunks are dropped in batches, not shifted one by one). */
  #first = 0;
  /** Read position inside #chunks[#first]. */
  #head = 0;
  #buffered = 0;
  /** Body length of the frame in progress, once its prefix is in. */
  #bodyLength: number | undefined;
  /** Stream offset of the first byte still buffered. */
  #offset = 0;
  #failure: WireError | undefined;
  /** 'skip' mode: the oversized frame whose body is being discarded. */
  #skipping: { declaredLength: number; frameStart: number; remaining: number } | undefined;
  /** 'skip' mode: an error push() met after returning earlier bodies; thrown by the next call. */
  #pending: WireError | undefined;
  #lastFrameOffset: number | undefined;

  constructor(options?: FrameDecoderOptions) {
    this.maxMessageSize = resolveMaxMessageSize(options?.maxMessageSize);
    const after = options?.afterLengthError ?? 'close';
    if (after !== 'close' && after !== 'skip') throw new WireOptionError('afterLengthError', after, '"close" or "skip"');
    this.afterLengthError = after;
  }

  /** Bytes received but not yet returned or skipped (prefix bytes included). */
  get bufferedBytes(): number {
    return this.#buffered + (this.#bodyLength === undefined ? 0 : FRAME_PREFIX_BYTES);
  }

  /**
   * The body bytes received so far of a frame whose prefix is in but whose body is not complete
   * (a copy), or undefined. What a stream that ends now leaves unprocessed (WT-FRAME-5).
   */
  get partialBody(): Uint8Array | undefined {
    if (this.#bodyLength === undefined || this.#skipping) return undefined;
    const out = new Uint8Array(this.#buffered);
    let done = 0;
    for (let index = this.#first; index < this.#chunks.length; index++) {
      const chunk = index === this.#first ? this.#chunks[index]!.subarray(this.#head) : this.#chunks[index]!;
      out.set(chunk, done);
      done += chunk.length;
    }
    return out;
  }

  /** Stream offset of the next frame's first byte (or of the frame in progress). */
  get offset(): number {
    return this.#offset;
  }

  /** Stream offset of the length prefix of the body read() returned last. */
  get lastFrameOffset(): number | undefined {
    return this.#lastFrameOffset;
  }

  /** The framing error that ended this stream, if any. */
  get failure(): WireError | undefined {
    return this.#failure;
  }

  /**
   * Adds bytes and returns every body they complete. A length error is thrown. When it leaves the
   * stream in sync (an empty frame; any in 'skip' mode) and bodies came before it in the same chunk, they are returned and the error is thrown by the next
   * push() (which still takes its chunk) or end(); calling again then goes on with the next frame.
   * (ControlStreamReader has no such deferral: it returns errors in place.)
   */
  push(chunk: Uint8Array): Uint8Array[] {
    this.write(chunk);
    this.#throwPending();
    const bodies: Uint8Array[] = [];
    for (;;) {
      let body: Uint8Array | undefined;
      try {
        body = this.read();
      } catch (error) {
        if (bodies.length === 0 || this.#failure === error) throw error;
        this.#pending = error as WireError;
        return bodies;
      }
      if (body === undefined) return bodies;
      bodies.push(body);
    }
  }

  #throwPending(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    throw pending;
  }

  /**
   * Adds bytes without extracting bodies (use read() to take them one at a time). The chunk is kept
   * by reference until its bytes are consumed: do not reuse its buffer before then.
   */
  write(chunk: Uint8Array): void {
    if (this.#failure) throw this.#failure;
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
  }

  /** The next complete body, or undefined when more bytes are needed. Throws on a bad prefix. */
  read(): Uint8Array | undefined {
    if (this.#failure) throw this.#failure;
    this.#throwPending();
    if (this.#skipping) {
      const count = Math.min(this.#skipping.remaining, this.#buffered);
      this.#consume(count);
      this.#skipping.remaining -= count;
      if (this.#skipping.remaining > 0) return undefined;
      this.#skipping = undefined;
    }
    if (this.#bodyLength === undefined) {
      if (this.#buffered < FRAME_PREFIX_BYTES) return undefined;
      const prefix = this.#take(FRAME_PREFIX_BYTES);
      const length = new DataView(prefix.buffer, prefix.byteOffset, FRAME_PREFIX_BYTES).getUint32(0, false);
      const frameStart = this.#offset - FRAME_PREFIX_BYTES;
      // A whole frame without a body: reported, and the next frame starts right after its prefix.
      if (length === 0) throw new FrameEmptyError(frameStart);
      if (length > this.maxMessageSize) {
        this.#skipping = { declaredLength: length, frameStart, remaining: length };
        return this.#lengthError(new FrameTooLargeError(length, this.maxMessageSize, frameStart));
      }
      this.#bodyLength = length;
    }
    if (this.#buffered < this.#bodyLength) return undefined;
    this.#lastFrameOffset = this.#offset - FRAME_PREFIX_BYTES;
    const body = this.#take(this.#bodyLength);
    this.#bodyLength = undefined;
    return body;
  }

  /**
   * Declares the end of input; throws if it fell inside a frame. Returns any complete bodies still
   * unread (only possible in 'skip' mode after a deferred error; a further length error among them
   * is thrown at once).
   */
  end(): Uint8Array[] {
    if (this.#failure) throw this.#failure;
    this.#throwPending();
    const bodies: Uint8Array[] = [];
    for (let body = this.read(); body !== undefined; body = this.read()) bodies.push(body);
    // read() has discarded every buffered byte of a skipped body: any still skipping is cut short.
    if (this.#skipping) {
      const { declaredLength, frameStart, remaining } = this.#skipping;
      throw this.#fail(new FrameTruncatedBodyError(declaredLength, declaredLength - remaining, frameStart));
    }
    if (this.#bodyLength !== undefined) {
      const received = this.#buffered;
      throw this.#fail(new FrameTruncatedBodyError(this.#bodyLength, received, this.#offset - FRAME_PREFIX_BYTES));
    }
    if (this.#buffered > 0) throw this.#fail(new FrameTruncatedLengthError(this.#buffered, this.#offset));
    return bodies;
  }

  /** A FRAME_TOO_LARGE prefix: fatal in 'close' mode, thrown and skipped in 'skip' mode. */
  #lengthError(error: WireError): never {
    if (this.afterLengthError === 'close') this.#fail(error);
    throw error;
  }

  #fail(error: WireError): never {
    this.#failure = error;
    this.#chunks = [];
    this.#first = 0;
    this.#head = 0;
    this.#buffered = 0;
    this.#bodyLength = undefined;
    this.#skipping = undefined;
    this.#pending = undefined;
    throw error;
  }

  /** Removes n buffered bytes (n <= #buffered) and returns them as a fresh array. */
  #take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    this.#consume(n, out);
    return out;
  }

  /** Advances past n buffered bytes (n <= #buffered): discards them, or copies them into `out` when given. */
  #consume(n: number, out?: Uint8Array): void {
    let done = 0;
    while (done < n) {
      const first = this.#chunks[this.#first]!;
      const count = Math.min(first.length - this.#head, n - done);
      out?.set(first.subarray(this.#head, this.#head + count), done);
      done += count;
      this.#head += count;
      if (this.#head === first.length) {
        this.#first += 1;
        this.#head = 0;
      }
    }
    this.#buffered -= n;
    this.#offset += n;
    this.#compact();
  }

  #compact(): void {
    if (this.#first === this.#chunks.length) {
      this.#chunks = [];
      this.#first = 0;
    } else if (this.#first >= 1024) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
  }
}
