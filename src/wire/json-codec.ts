// The JSON message codec, and what names an encoding: UTF-8 without BOM. Encoding refuses what
// JSON cannot carry faithfully (BigInt, byte strings, non-finite numbers) with an
// UnencodableValueError; decoding gives IEEE doubles, so integers beyond 2^53 lose precision exactly
// as in any JSON peer. Apart from codec.ts (CBOR, through cbor-x): a peer that speaks JSON alone
// (stdio, Streamable HTTP; the stdio mock server, started once per case) never loads cbor-x.
import { toWireValue } from './data-model.js';
import { InvalidJsonError, InvalidUtf8Error } from './errors.js';

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
