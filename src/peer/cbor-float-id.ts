// A CBOR body whose integral `id` is written as a float64: decodable to the same number, but not
// WT-ENC-13's "CBOR integers for integers". Shared by the mock server's and the mock client's
// faults (cbor-id-as-float on both sides).
import { cborCodec } from '../wire/index.js';

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

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.byteLength <= haystack.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
