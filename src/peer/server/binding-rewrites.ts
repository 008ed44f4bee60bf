// The message and byte rewrites some binding faults (binding-faults.ts) make to what the server
// sends. Pure functions, kept out of binding-fault-hooks.ts so it shows only where each fault hooks in.
import { cborCodec, isRecord, jsonCodec } from '../../wire/index.js';

/** How far `ref-stream-tag-mismatch` moves each streamTag. */
export const REF_STREAM_TAG_SHIFT = 1000;

/** A copy of `message` whose `ref/stream` content items name streamTag + REF_STREAM_TAG_SHIFT. */
export function shiftRefStreamTags(message: unknown): unknown {
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > 32) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    if (!isRecord(value)) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = walk(item, depth + 1);
    if (copy['type'] === 'ref/stream' && typeof copy['streamTag'] === 'number') copy['streamTag'] = copy['streamTag'] + REF_STREAM_TAG_SHIFT;
    return copy;
  };
  return walk(message, 0);
}

/** A marker string no real message carries, replaced in the CBOR bytes by a float64. */
const FLOAT_ID_MARKER = '\u0000float-id\u0000';

/**
 * The CBOR body of `message` with its integral `id` written as a float64 (major type 7, 0xfb)
 * instead of an integer: still decodable to the same number, but not WT-ENC-13's "CBOR integers
 * for integers".
 */
export function cborBodyWithFloatId(message: Record<string, unknown> & { id: number }): Uint8Array {
  const body = cborCodec.encode({ ...message, id: FLOAT_ID_MARKER });
  const marker = cborCodec.encode(FLOAT_ID_MARKER);
  const at = indexOf(body, marker);
  if (at < 0) return cborCodec.encode(message);
  const float = new Uint8Array(9);
  float[0] = 0xfb;
  new DataView(float.buffer).setFloat64(1, message.id);
  const out = new Uint8Array(body.byteLength - marker.byteLength + float.byteLength);
  out.set(body.subarray(0, at), 0);
  out.set(float, at);
  out.set(body.subarray(at + marker.byteLength), at + float.byteLength);
  return out;
}

/** A datagram payload re-encoded from CBOR into JSON (`datagram-payload-json-after-cbor`). */
export function cborPayloadAsJson(payload: Uint8Array): Uint8Array {
  return jsonCodec.encode(cborCodec.decode(payload));
}

/** Prefixes a 4-byte big-endian length (`length-prefixed-stream-chunks`; a frame around a body). */
export function lengthPrefixed(chunk: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + chunk.byteLength);
  new DataView(out.buffer).setUint32(0, chunk.byteLength);
  out.set(chunk, 4);
  return out;
}

/** A frame whose body has one 0x00 byte more after its data item (`cbor-trailing-byte`). */
export function withTrailingByte(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(frame.byteLength + 1);
  out.set(frame, 0);
  new DataView(out.buffer).setUint32(0, frame.byteLength - 4 + 1);
  return out;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.byteLength <= haystack.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
