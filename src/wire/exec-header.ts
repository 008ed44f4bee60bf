// Execution-stream header (seed 001 section 2.2): request id (u32 BE) then stream tag (u32 BE),
// written once at the start of each unidirectional execution stream, payload bytes after it.
import { ExecHeaderTruncatedError, IdOutOfRangeError } from './errors.js';

export const EXEC_HEADER_BYTES = 8;

export interface ExecHeader {
  requestId: number;
  streamTag: number;
}

/** Whether `value` is an integer in 0..2^32-1: a request id or stream tag a header can carry (WT-ID-1). */
export function isU32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}

/** Checks that `value` is an integer in 0..2^32-1 (request ids and stream tags on the wire). */
export function assertU32(field: string, value: unknown): asserts value is number {
  if (!isU32(value)) throw new IdOutOfRangeError(field, value);
}

export function encodeExecHeader(header: ExecHeader): Uint8Array {
  assertU32('requestId', header.requestId);
  assertU32('streamTag', header.streamTag);
  const bytes = new Uint8Array(EXEC_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, header.requestId, false);
  view.setUint32(4, header.streamTag, false);
  return bytes;
}

/** Reads the header from the first 8 bytes (later bytes are payload and ignored here). */
export function decodeExecHeader(bytes: Uint8Array): ExecHeader {
  if (bytes.length < EXEC_HEADER_BYTES) throw new ExecHeaderTruncatedError(bytes.length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, EXEC_HEADER_BYTES);
  return { requestId: view.getUint32(0, false), streamTag: view.getUint32(4, false) };
}

/** Collects the header across chunks; returns it with the payload bytes of the completing chunk. */
export class ExecHeaderDecoder {
  #pending = new Uint8Array(EXEC_HEADER_BYTES);
  #filled = 0;
  #header: ExecHeader | undefined;

  /** The header once complete. */
  get header(): ExecHeader | undefined {
    return this.#header;
  }

  /**
   * Feeds stream bytes. Returns the header and the rest of this chunk once the 8th header byte
   * arrives; undefined before that. After the header, every chunk comes back whole as `rest`.
   */
  push(chunk: Uint8Array): { header: ExecHeader; rest: Uint8Array } | undefined {
    if (this.#header) return { header: this.#header, rest: chunk };
    const count = Math.min(EXEC_HEADER_BYTES - this.#filled, chunk.length);
    this.#pending.set(chunk.subarray(0, count), this.#filled);
    this.#filled += count;
    if (this.#filled < EXEC_HEADER_BYTES) return undefined;
    this.#header = decodeExecHeader(this.#pending);
    return { header: this.#header, rest: chunk.subarray(count) };
  }

  /** Declares the end of the stream; throws if it ended before the header was complete. */
  end(): void {
    if (!this.#header) throw new ExecHeaderTruncatedError(this.#filled);
  }
}
