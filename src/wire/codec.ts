// The message codecs (one message per frame body): JSON (json-codec.ts, with the names of the
// encodings) and CBOR, here.
// CBOR: RFC 8949. Encoding through cbor-x (no records, no tag 64 for Uint8Array, no tag 259 for
// maps); integers outside the 32-bit range are written as CBOR integers (major type 0/1), never as
// float64. Decoding through cbor-scan.ts: only a body that is not well-formed is malformed (-32700);
// every well-formed item decodes, simple values, undefined and tags of any number included, those
// JSON-RPC has no use for as values outside the JSON data model (an Invalid Request, -32600).
// Decoded integers are numbers when safe, BigInt otherwise.
import { Encoder } from 'cbor-x';
import { toWireValue } from './data-model.js';
import { CborMalformedError, decodeCborItem } from './cbor-scan.js';
import { CborTrailingBytesError, InvalidCborError, UnknownEncodingError } from './errors.js';
import { jsonCodec, type Codec, type EncodingName } from './json-codec.js';

export { ENCODING_NAMES, firstInvalidUtf8, isEncodingName, jsonCodec, type Codec, type EncodingName } from './json-codec.js';

export function codecFor(name: EncodingName): Codec {
  if (name === 'json') return jsonCodec;
  if (name === 'cbor') return cborCodec;
  throw new UnknownEncodingError(name);
}

const cborOptions = {
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  tagUint8Array: false,
  useTag259ForMaps: false,
  copyBuffers: true,
} as const;
const cborEncoder = new Encoder(cborOptions);

export const cborCodec: Codec = {
  name: 'cbor',
  encode(message) {
    const encoded = cborEncoder.encode(toWireValue(message, 'cbor'));
    // cbor-x returns a view into its reusable buffer: copy it out.
    return new Uint8Array(encoded);
  },
  decode(body) {
    if (body.length === 0) throw new InvalidCborError('body is empty', 0);
    let decoded: { value: unknown; end: number };
    try {
      decoded = decodeCborItem(body);
    } catch (error) {
      if (!(error instanceof CborMalformedError)) throw error;
      throw new InvalidCborError(error.truncated ? 'body ends inside a data item' : `body is not a well-formed data item: ${error.reason}`, error.offset, error);
    }
    if (decoded.end < body.length) throw new CborTrailingBytesError(decoded.end, body.length - decoded.end);
    return decoded.value;
  },
};
