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
 * any body byte is kept; the stream has then lost sync, so every later call throws that error again.
 */
export class FrameDecoder {
  readonly maxMessageSize: number;
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

  constructor(options?: FrameOptions) {
    this.maxMessageSize = resolveMaxMessageSize(options?.maxMessageSize);
  }

  /** Bytes received but not yet returned as a body (prefix bytes included). */
  get bufferedBytes(): number {
    return this.#buffered + (this.#bodyLength === undefined ? 0 : FRAME_PREFIX_BYTES);
  }

  /** Stream offset of the next frame's first byte (or of the frame in progress). */
  get offset(): number {
    return this.#offset;
  }

  /** The framing error that ended this stream, if any. */
  get failure(): WireError | undefined {
    return this.#failure;
  }

  /** Adds bytes and returns every body they complete. */
  push(chunk: Uint8Array): Uint8Array[] {
    this.write(chunk);
    const bodies: Uint8Array[] = [];
    for (let body = this.read(); body !== undefined; body = this.read()) bodies.push(body);
    return bodies;
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
    if (this.#bodyLength === undefined) {
      if (this.#buffered < FRAME_PREFIX_BYTES) return undefined;
      const prefix = this.#take(FRAME_PREFIX_BYTES);
      const length = new DataView(prefix.buffer, prefix.byteOffset, FRAME_PREFIX_BYTES).getUint32(0, false);
      const frameStart = this.#offset - FRAME_PREFIX_BYTES;
      if (length === 0) return this.#fail(new FrameEmptyError(frameStart));
      if (length > this.maxMessageSize) return this.#fail(new FrameTooLargeError(length, this.maxMessageSize, frameStart));
      this.#bodyLength = length;
    }
    if (this.#buffered < this.#bodyLength) return undefined;
    const body = this.#take(this.#bodyLength);
    this.#bodyLength = undefined;
    return body;
  }

  /** Declares the end of input; throws if it fell inside a frame. */
  end(): void {
    if (this.#failure) throw this.#failure;
    if (this.#bodyLength !== undefined) {
      const received = this.#buffered;
      throw this.#fail(new FrameTruncatedBodyError(this.#bodyLength, received, this.#offset - FRAME_PREFIX_BYTES));
    }
    if (this.#buffered > 0) throw this.#fail(new FrameTruncatedLengthError(this.#buffered, this.#offset));
  }

  #fail(error: WireError): never {
    this.#failure = error;
    this.#chunks = [];
    this.#first = 0;
    this.#head = 0;
    this.#buffered = 0;
    this.#bodyLength = undefined;
    throw error;
  }

  /** Removes n buffered bytes (n <= #buffered) and returns them as a fresh array. */
  #take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const first = this.#chunks[this.#first]!;
      const count = Math.min(first.length - this.#head, n - filled);
      out.set(first.subarray(this.#head, this.#head + count), filled);
      filled += count;
      this.#head += count;
      if (this.#head === first.length) {
        this.#first += 1;
        this.#head = 0;
      }
    }
    if (this.#first === this.#chunks.length) {
      this.#chunks = [];
      this.#first = 0;
    } else if (this.#first >= 1024) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
    this.#buffered -= n;
    this.#offset += n;
    return out;
  }
}
