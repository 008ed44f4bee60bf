// Newline-delimited framing of the MCP stdio transport: bytes in arbitrary chunks -> complete lines.
// Each line keeps its exact bytes (terminator included) for the transcript.

export interface DecodedLine {
  /** The line's bytes without the terminating "\n" (a "\r" before it is kept). */
  content: Uint8Array;
  /** The bytes as they were on the wire, including the "\n" when there was one. */
  wire: Uint8Array;
}

export interface LineOverflow {
  /** How many bytes the over-long line had when it was given up on (it is skipped to its end). */
  byteLength: number;
}

const NEWLINE = 0x0a;

export class LineDecoder {
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #length = 0;
  /** Bytes of an over-long line that are being skipped until its newline. */
  #skipping: number | undefined;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Splits a chunk; complete lines and over-long lines come back in order. */
  push(chunk: Uint8Array): (DecodedLine | LineOverflow)[] {
    const out: (DecodedLine | LineOverflow)[] = [];
    let buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (buffer.byteLength > 0) {
      const newline = buffer.indexOf(NEWLINE);
      const end = newline < 0 ? buffer.byteLength : newline + 1;
      const piece = buffer.subarray(0, end);
      buffer = buffer.subarray(end);
      if (this.#skipping !== undefined) {
        this.#skipping += piece.byteLength;
        if (newline >= 0) {
          out.push({ byteLength: this.#skipping });
          this.#skipping = undefined;
        }
        continue;
      }
      if (this.#length + piece.byteLength - (newline >= 0 ? 1 : 0) > this.#maxLineBytes) {
        this.#skipping = this.#length + piece.byteLength;
        this.#parts = [];
        this.#length = 0;
        if (newline >= 0) {
          out.push({ byteLength: this.#skipping });
          this.#skipping = undefined;
        }
        continue;
      }
      this.#parts.push(Buffer.from(piece));
      this.#length += piece.byteLength;
      if (newline >= 0) out.push(this.#take(true));
    }
    return out;
  }

  /** The stream ended: a last line without "\n" comes back as a line of its own. */
  end(): (DecodedLine | LineOverflow)[] {
    if (this.#skipping !== undefined) {
      const overflow = { byteLength: this.#skipping };
      this.#skipping = undefined;
      return [overflow];
    }
    return this.#length > 0 ? [this.#take(false)] : [];
  }

  #take(terminated: boolean): DecodedLine {
    const wire = Buffer.concat(this.#parts, this.#length);
    this.#parts = [];
    this.#length = 0;
    const content = terminated ? wire.subarray(0, wire.byteLength - 1) : wire;
    return { content: new Uint8Array(content.buffer, content.byteOffset, content.byteLength), wire: new Uint8Array(wire) };
  }
}

export function isOverflow(item: DecodedLine | LineOverflow): item is LineOverflow {
  return !('wire' in item);
}
