// JSON and CBOR message codecs (one message per frame body).
//
// JSON: UTF-8 without BOM. Encoding refuses what JSON cannot carry faithfully (BigInt, byte
// strings, non-finite numbers) with an UnencodableValueError; decoding gives IEEE doubles, so
// integers beyond 2^53 lose precision exactly as in any JSON peer.
// CBOR: RFC 8949 through cbor-x (no records, no tag 64 for Uint8Array, no tag 259 for maps).
// Integers outside the 32-bit range are written as CBOR integers (major type 0/1), never as
// float64; decoded integers are numbers when safe, BigInt otherwise.
import { Decoder, Encoder } from 'cbor-x';
import { define, toWireValue } from './data-model.js';
import { cborItemEnd, definiteStrings } from './cbor-scan.js';
import { CborTrailingBytesError, InvalidCborError, InvalidJsonError, InvalidUtf8Error, UnknownEncodingError, WireError } from './errors.js';

export type EncodingName = 'json' | 'cbor';
export const ENCODING_NAMES: readonly EncodingName[] = ['json', 'cbor'];

export interface Codec {
  readonly name: EncodingName;
  /** Message -> body bytes. Throws UnencodableValueError for values outside the data model. */
  encode(message: unknown): Uint8Array;
  /** Body bytes -> message. Throws a WireError (never anything else) for a bad body. */
  decode(body: Uint8Array): unknown;
}

export function isEncodingName(value: unknown): value is EncodingName {
  return value === 'json' || value === 'cbor';
}

export function codecFor(name: EncodingName): Codec {
  if (name === 'json') return jsonCodec;
  if (name === 'cbor') return cborCodec;
  throw new UnknownEncodingError(name);
}

// ---- JSON ----

const utf8Encoder = new TextEncoder();
// ignoreBOM keeps a leading U+FEFF in the text, so JSON.parse rejects a body that starts with a BOM.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export const jsonCodec: Codec = {
  name: 'json',
  encode(message) {
    return utf8Encoder.encode(JSON.stringify(toWireValue(message, 'json')));
  },
  decode(body) {
    let text: string;
    try {
      text = utf8Decoder.decode(body);
    } catch {
      throw new InvalidUtf8Error(firstInvalidUtf8(body));
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      if (text.charCodeAt(0) === 0xfeff) throw new InvalidJsonError('body starts with a byte order mark', 0, error);
      const position = /at position (\d+)/.exec(detail);
      const offset = position ? Buffer.byteLength(text.slice(0, Number(position[1])), 'utf8') : undefined;
      throw new InvalidJsonError(detail, offset, error);
    }
  },
};

/** Body offset of the first byte that breaks UTF-8 (RFC 3629), or undefined if none does. */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let count: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [count, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [count, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [count, min] = [3, 0x10000];
    else return i;
    let codePoint = b & (0x3f >> count);
    for (let k = 1; k <= count; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return i;
    i += count + 1;
  }
  return undefined;
}

// ---- CBOR ----

const cborOptions = {
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  tagUint8Array: false,
  useTag259ForMaps: false,
  copyBuffers: true,
} as const;
const cborEncoder = new Encoder(cborOptions);
const cborDecoder = new Decoder(cborOptions);
// cbor-x renames a decoded "__proto__" key to "__proto_"; bodies holding that text anywhere decode
// to Maps first and are rebuilt as objects with a real own "__proto__" member.
const cborMapDecoder = new Decoder({ ...cborOptions, mapsAsObjects: false });
const PROTO_TEXT = Buffer.from('__proto__', 'latin1');

export const cborCodec: Codec = {
  name: 'cbor',
  encode(message) {
    const encoded = cborEncoder.encode(toWireValue(message, 'cbor'));
    // cbor-x returns a view into its reusable buffer: copy it out.
    return new Uint8Array(encoded);
  },
  decode(body) {
    if (body.length === 0) throw new InvalidCborError('body is empty', 0);
    let value: unknown;
    try {
      value = decodeWithCborX(body);
    } catch (error) {
      if (error instanceof WireError) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      if (detail.includes('Indefinite length not supported')) {
        // Well-formed RFC 8949 that cbor-x cannot read: rewrite those strings as definite ones.
        const rewritten = definiteStrings(body);
        if (rewritten === undefined) throw new InvalidCborError('body is not a well-formed data item', undefined, error);
        if (rewritten !== body) {
          try {
            return cborCodec.decode(rewritten);
          } catch (retryError) {
            if (!(retryError instanceof CborTrailingBytesError)) throw retryError;
            const end = cborItemEnd(body); // report offsets in the original body
            throw new CborTrailingBytesError(end, end === undefined ? undefined : body.length - end);
          }
        }
      }
      if (detail.includes('end of buffer not reached')) {
        const end = cborItemEnd(body);
        throw new CborTrailingBytesError(end, end === undefined ? undefined : body.length - end);
      }
      if ((error as { incomplete?: boolean } | null)?.incomplete) {
        throw new InvalidCborError('body ends inside a data item', body.length, error);
      }
      throw new InvalidCborError(detail, undefined, error);
    }
    return mayHoldWideIntegers(body) ? narrowIntegers(value) : value;
  },
};

function decodeWithCborX(body: Uint8Array): unknown {
  // cbor-x caches a `dataView` property on the array it decodes: hand it a throwaway view. A
  // plain Uint8Array view (not a Buffer) also makes decoded byte strings plain Uint8Arrays.
  const view = new Uint8Array(body.buffer, body.byteOffset, body.length);
  if (Buffer.from(body.buffer, body.byteOffset, body.length).includes(PROTO_TEXT)) {
    return mapsToObjects(cborMapDecoder.decode(view));
  }
  return cborDecoder.decode(view);
}

/** Initial bytes of 64-bit integers (0x1b, 0x3b) and bignum tags (0xc2, 0xc3): if none occur, no BigInt can come out. */
function mayHoldWideIntegers(body: Uint8Array): boolean {
  return body.includes(0x1b) || body.includes(0x3b) || body.includes(0xc2) || body.includes(0xc3);
}

/** BigInts that fit a safe integer become numbers (in place: the value is freshly decoded). */
function narrowIntegers(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = narrowIntegers(value[i]);
    return value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) define(record, key, narrowIntegers(record[key]));
  }
  return value;
}

function mapsToObjects(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(mapsToObjects);
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) define(object, String(key), mapsToObjects(item));
    return object;
  }
  return value;
}
