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
