// Two CBOR libraries other than the wire layer's cbor-x (cborg in strict mode, which also checks
// that integers and lengths use their shortest form, and cbor2) decode every CBOR body in the
// vectors to the same value; JSON bodies are checked with the platform's own JSON.parse.
import { decode as cbor2Decode, diagnose as cbor2Diagnose } from 'cbor2';
import { decode as cborgDecode } from 'cborg';
import { describe, expect, it } from 'vitest';
import { toVectorValue, type Vector, type VectorValue } from '../../src/vectors/vector-file.js';
import { allVectors, rows } from './committed.js';

const libraries: Array<[string, (bytes: Uint8Array) => unknown]> = [
  ['cborg (strict)', (bytes) => cborgDecode(bytes, { strict: true, rejectDuplicateMapKeys: true })],
  ['cbor2', (bytes) => cbor2Decode(bytes)],
];

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Splits control bytes into bodies by their 4-byte big-endian prefixes (independently of src/wire). */
function bodies(hex: string): Uint8Array[] {
  const bytes = Buffer.from(hex, 'hex');
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const length = bytes.readUInt32BE(at);
    out.push(new Uint8Array(bytes.subarray(at + 4, at + 4 + length)));
    at += 4 + length;
  }
  return out;
}

const controlValid = allVectors.filter((v) => v.kind === 'control' && v.decoded !== undefined);
const cborDatagrams = allVectors.filter((v) => v.kind === 'datagram' && v.encoding === 'cbor' && v.decoded !== undefined);
const badCbor = allVectors.filter((v) => v.error?.code === 'INVALID_CBOR' || v.error?.code === 'CBOR_TRAILING_BYTES');

describe.each(libraries)('%s', (_name, decode) => {
  it.each(rows(controlValid))('%s: every body decodes to the expected message', (_id, vector: Vector) => {
    const frames = bodies(vector.hex);
    const expected = vector.decoded as VectorValue[];
    expect(frames.length).toBe(expected.length);
    frames.forEach((body, i) => {
      const value = vector.frameEncodings![i] === 'cbor' ? decode(body) : JSON.parse(strictUtf8.decode(body));
      expect(toVectorValue(value), `frame ${i}`).toEqual(expected[i]);
    });
  });

  it.each(rows(cborDatagrams))('%s: the payload decodes to the expected value', (_id, vector) => {
    const { payloadHex, payload } = vector.decoded as { payloadHex: string; payload: VectorValue };
    expect(toVectorValue(decode(Buffer.from(payloadHex, 'hex')))).toEqual(payload);
  });

  it.each(rows(badCbor))('%s: the body is rejected too', (_id, vector) => {
    const [body] = bodies(vector.hex);
    expect(() => decode(body!)).toThrow();
  });

  it('reads the CBOR initialize of the ENCODING_MISMATCH vector as the seed message (so the mismatch is real CBOR)', () => {
    const vector = allVectors.find((v) => v.id === 'invalid/encoding-mismatch-cbor-initialize')!;
    const seed = allVectors.find((v) => v.id === 'control/seed-001-initialize')!;
    expect(toVectorValue(decode(bodies(vector.hex)[0]!))).toEqual((seed.decoded as VectorValue[])[0]);
  });
});

// Malformed is RFC 8949's not well-formed, a syntax matter: cbor2's diagnostic decoder, which builds
// no values (so refuses nothing for its meaning), finds every bad CBOR body not well-formed.
it.each(rows(badCbor))('%s: cbor2 finds the body not well-formed (RFC 8949)', (_id, vector) => {
  const [body] = bodies(vector.hex);
  expect(() => cbor2Diagnose(body!)).toThrow();
});

it('has CBOR to check: control frames in CBOR, CBOR datagrams and bad CBOR bodies', () => {
  expect(controlValid.filter((v) => v.frameEncodings?.includes('cbor')).length).toBeGreaterThan(10);
  expect(cborDatagrams.length).toBeGreaterThan(0);
  expect(badCbor.length).toBeGreaterThan(0);
});
