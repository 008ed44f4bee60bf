// The CBOR decoder (RFC 8949). Well-formedness is exactly RFC 8949's (section 3 and appendix F):
// only a body that is not well-formed is malformed. Every well-formed item decodes, also the ones
// JSON-RPC has no use for; those decode to values outside the JSON data model, so the JSON-RPC
// layer refuses the message as an Invalid Request (-32600), never as a Parse error (-32700):
// - a simple value other than false, true and null (undefined is simple value 23): CborSimpleValue;
// - a tag other than the bignums (2, 3) and self-described CBOR (55799, which means nothing):
//   CborTag, whatever its number (unknown tags included);
// - a text string whose bytes are not UTF-8 (well-formed, only invalid): CborInvalidText;
// - a map with a key that is not a text string: CborMap.
// Integers are numbers when safe, BigInt otherwise (bignums too); floats of every width are numbers.
// The walk keeps its own stack, so nesting depth is bounded by the body, not by the call stack.
import { define } from './data-model.js';

/** A tag this decoder gives no meaning: its number and the item it encloses. */
export class CborTag {
  constructor(
    readonly tag: number | bigint,
    readonly value: unknown,
  ) {}
  toJSON(): string {
    return diagnostic(this);
  }
}

/** A simple value other than false, true and null (23 is `undefined`). */
export class CborSimpleValue {
  constructor(readonly value: number) {}
  toJSON(): string {
    return diagnostic(this);
  }
}

/** A text string (major type 3) whose bytes are not UTF-8. */
export class CborInvalidText {
  constructor(readonly bytes: Uint8Array) {}
  toJSON(): string {
    return diagnostic(this);
  }
}

/** A map with at least one key that is not a text string, entries in order. */
export class CborMap {
  constructor(readonly entries: readonly [unknown, unknown][]) {}
  toJSON(): string {
    return diagnostic(this);
  }
}

/** Why bytes are not one well-formed CBOR data item, and where. */
export class CborMalformedError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    /** The bytes ended inside an item (rather than holding a forbidden encoding). */
    readonly truncated = false,
  ) {
    super(`${reason} (at byte ${offset})`);
    this.name = 'CborMalformedError';
  }
}

/** The data item starting at `start`: its value and the offset just past it. Throws CborMalformedError. */
export function decodeCborItem(bytes: Uint8Array, start = 0): { value: unknown; end: number } {
  return new Walker(bytes, start).item();
}

/** Offset just past the data item starting at `start`, or undefined if it is not well-formed. */
export function cborItemEnd(bytes: Uint8Array, start = 0): number | undefined {
  try {
    return decodeCborItem(bytes, start).end;
  } catch (error) {
    if (error instanceof CborMalformedError) return undefined;
    throw error;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const SELF_DESCRIBED = 55799;

type Frame =
  | { kind: 'array'; items: unknown[]; remaining: number | undefined }
  | { kind: 'map'; entries: [unknown, unknown][]; key: unknown; hasKey: boolean; remaining: number | undefined }
  | { kind: 'tag'; tag: number | bigint };

class Walker {
  #pos: number;
  readonly #bytes: Uint8Array;
  readonly #view: DataView;

  constructor(bytes: Uint8Array, start: number) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#pos = start;
  }

  item(): { value: unknown; end: number } {
    const stack: Frame[] = [];
    for (;;) {
      let value = this.#head(stack);
      if (value === OPENED) continue;
      // Hand the finished value to the containers it completes.
      for (;;) {
        const top = stack.at(-1);
        if (!top) return { value, end: this.#pos };
        if (top.kind === 'tag') {
          stack.pop();
          value = tagged(top.tag, value);
          continue;
        }
        if (top.kind === 'array') top.items.push(value);
        else if (top.hasKey) {
          top.entries.push([top.key, value]);
          top.hasKey = false;
        } else {
          top.key = value;
          top.hasKey = true;
        }
        if (top.remaining === undefined || --top.remaining > 0) break;
        stack.pop();
        value = finish(top);
      }
    }
  }

  /** Reads one head: returns a complete value, or OPENED after pushing a container or tag frame. */
  #head(stack: Frame[]): unknown {
    const start = this.#pos;
    const initial = this.#byte();
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (initial === 0xff) {
      const top = stack.at(-1);
      if (!top || top.kind === 'tag' || top.remaining !== undefined) throw new CborMalformedError('a "break" byte outside an indefinite-length array or map', start);
      if (top.kind === 'map' && top.hasKey) throw new CborMalformedError('an indefinite-length map ends after a key without its value', start);
      stack.pop();
      return finish(top);
    }
    if (info === 31) {
      if (major === 2 || major === 3) return this.#indefiniteString(major, start);
      if (major === 4) stack.push({ kind: 'array', items: [], remaining: undefined });
      else if (major === 5) stack.push({ kind: 'map', entries: [], key: undefined, hasKey: false, remaining: undefined });
      else throw new CborMalformedError(`major type ${major} has no indefinite length`, start);
      return OPENED;
    }
    if (major === 7) return this.#simpleOrFloat(info, start);
    const argument = this.#argument(info, start);
    switch (major) {
      case 0:
        return argument;
      case 1:
        return typeof argument === 'bigint' || argument > Number.MAX_SAFE_INTEGER - 1 ? narrow(-1n - BigInt(argument)) : -1 - argument;
      case 2:
        // A copy, as a plain Uint8Array (never a view of the body, nor a Buffer).
        return new Uint8Array(this.#take(argument, start));
      case 3:
        return text(this.#take(argument, start));
      case 4:
      case 5: {
        // Every item takes at least one byte: a count beyond the bytes left cannot be met.
        const items = major === 4 ? argument : typeof argument === 'bigint' ? argument : argument * 2;
        if (items > this.#bytes.length - this.#pos) throw new CborMalformedError(`the body ends before the ${major === 4 ? 'array' : 'map'}'s ${String(argument)} declared entries`, this.#bytes.length, true);
        if (items === 0) return major === 4 ? [] : {};
        stack.push(major === 4 ? { kind: 'array', items: [], remaining: Number(items) } : { kind: 'map', entries: [], key: undefined, hasKey: false, remaining: Number(items) });
        return OPENED;
      }
      default:
        stack.push({ kind: 'tag', tag: argument });
        return OPENED;
    }
  }

  #indefiniteString(major: 2 | 3, start: number): unknown {
    const chunks: Uint8Array[] = [];
    let validText = true;
    for (;;) {
      const at = this.#pos;
      const initial = this.#byte();
      if (initial === 0xff) break;
      if (initial >> 5 !== major || (initial & 0x1f) === 31) {
        throw new CborMalformedError(`a chunk of an indefinite-length ${major === 2 ? 'byte' : 'text'} string must be a definite-length string of the same type`, at);
      }
      const chunk = this.#take(this.#argument(initial & 0x1f, at), at);
      // Each chunk of a text string is a text string of its own (RFC 8949 section 3.2.3).
      if (major === 3 && validText && typeof text(chunk) !== 'string') validText = false;
      chunks.push(chunk);
    }
    const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    if (major === 2) return joined;
    return validText ? text(joined) : new CborInvalidText(joined);
  }

  #simpleOrFloat(info: number, start: number): unknown {
    if (info < 20) return new CborSimpleValue(info);
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 23:
        return new CborSimpleValue(23);
      case 24: {
        const value = this.#byte();
        // Simple values below 32 have a one-byte encoding only (RFC 8949 section 3.3).
        if (value < 32) throw new CborMalformedError(`simple value ${value} in the two-byte encoding`, start);
        return new CborSimpleValue(value);
      }
      case 25:
        return halfToNumber(this.#view.getUint16(this.#advance(2, start)));
      case 26:
        return this.#view.getFloat32(this.#advance(4, start));
      case 27:
        return this.#view.getFloat64(this.#advance(8, start));
      default:
        throw new CborMalformedError(`reserved additional information ${info}`, start);
    }
  }

  /** The argument of a head (after its initial byte); BigInt when beyond a safe integer. */
  #argument(info: number, start: number): number | bigint {
    if (info < 24) return info;
    switch (info) {
      case 24:
        return this.#byte();
      case 25:
        return this.#view.getUint16(this.#advance(2, start));
      case 26:
        return this.#view.getUint32(this.#advance(4, start));
      case 27:
        return narrow(this.#view.getBigUint64(this.#advance(8, start)));
      default:
        throw new CborMalformedError(`reserved additional information ${info}`, start);
    }
  }

  #byte(): number {
    if (this.#pos >= this.#bytes.length) throw new CborMalformedError('the body ends inside a data item', this.#bytes.length, true);
    return this.#bytes[this.#pos++]!;
  }

  /** Moves past `count` bytes; returns where they start. */
  #advance(count: number, start: number): number {
    if (this.#pos + count > this.#bytes.length) throw new CborMalformedError(`the body ends inside the item starting at byte ${start}`, this.#bytes.length, true);
    const at = this.#pos;
    this.#pos += count;
    return at;
  }

  #take(length: number | bigint, start: number): Uint8Array {
    if (typeof length === 'bigint' || this.#pos + length > this.#bytes.length) {
      throw new CborMalformedError(`the body ends inside the string starting at byte ${start}`, this.#bytes.length, true);
    }
    return this.#bytes.subarray(this.#advance(length, start), this.#pos);
  }
}

const OPENED = Symbol('opened');

/** A number when it is a safe integer, the BigInt otherwise. */
function narrow(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function text(bytes: Uint8Array): string | CborInvalidText {
  // Short ASCII (member names, methods) is read without a TextDecoder call.
  const short = bytes.length <= 64 ? ascii(bytes) : undefined;
  if (short !== undefined) return short;
  try {
    return utf8.decode(bytes);
  } catch {
    return new CborInvalidText(new Uint8Array(bytes));
  }
}

function ascii(bytes: Uint8Array): string | undefined {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80) return undefined;
    out += String.fromCharCode(byte);
  }
  return out;
}

/** The value a tag gives its content: bignums are integers, 55799 is transparent, any other tag stays a tag. */
function tagged(tag: number | bigint, value: unknown): unknown {
  if ((tag === 2 || tag === 3) && value instanceof Uint8Array) {
    let magnitude = 0n;
    for (const byte of value) magnitude = (magnitude << 8n) | BigInt(byte);
    return narrow(tag === 2 ? magnitude : -1n - magnitude);
  }
  if (tag === SELF_DESCRIBED) return value;
  return new CborTag(tag, value);
}

/** A finished array, or a map: an object when every key is a text string, a CborMap otherwise. */
function finish(frame: Exclude<Frame, { kind: 'tag' }>): unknown {
  if (frame.kind === 'array') return frame.items;
  const object: Record<string, unknown> = {};
  // Duplicate keys are well-formed (RFC 8949 section 5.6 leaves them to the application): the last one wins.
  for (const [key, value] of frame.entries) {
    if (typeof key !== 'string') return new CborMap(frame.entries);
    // "__proto__" is an own member like any other, never the prototype.
    if (key === '__proto__') define(object, key, value);
    else object[key] = value;
  }
  return object;
}

/** IEEE 754 half precision to a number (RFC 8949 Appendix D). */
export function halfToNumber(half: number): number {
  const exponent = (half >> 10) & 0x1f;
  const mantissa = half & 0x3ff;
  const sign = half & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** RFC 8949 diagnostic notation of a decoded value (section 8), for transcripts and messages. */
export function diagnostic(value: unknown): string {
  if (value instanceof CborTag) return `${String(value.tag)}(${diagnostic(value.value)})`;
  if (value instanceof CborSimpleValue) return value.value === 23 ? 'undefined' : `simple(${value.value})`;
  if (value instanceof CborInvalidText) return `invalid-utf8(h'${hex(value.bytes)}')`;
  if (value instanceof CborMap) return `{${value.entries.map(([k, v]) => `${diagnostic(k)}: ${diagnostic(v)}`).join(', ')}}`;
  if (value instanceof Uint8Array) return `h'${hex(value)}'`;
  if (Array.isArray(value)) return `[${value.map(diagnostic).join(', ')}]`;
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : Object.is(value, -0) ? '-0.0' : !Number.isFinite(value) ? (value > 0 ? 'Infinity' : '-Infinity') : String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${diagnostic(v)}`).join(', ')}}`;
  return String(value);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
