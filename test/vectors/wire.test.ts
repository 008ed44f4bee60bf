// Every vector, run through src/wire: decodes (in one chunk and byte by byte) to its `decoded`
// value or fails with its error code and JSON-RPC code, and re-encodes to the same bytes.
import { describe, expect, it } from 'vitest';
import { checkVector, decodeVector, encodeVector, type Vector } from '../../src/vectors/vector-file.js';
import { allVectors, rows } from './committed.js';

const valid = allVectors.filter((v) => v.decoded !== undefined);
const invalid = allVectors.filter((v) => v.error !== undefined);

function chunkSizes(v: Vector): Array<number | undefined> {
  return [undefined, v.hex.length / 2 <= 8192 ? 1 : 997, 5];
}

describe('valid vectors', () => {
  it.each(rows(valid))('%s decodes to its value and re-encodes to its bytes', (_id, vector) => {
    for (const size of chunkSizes(vector)) {
      const expected = vector.kind === 'control' ? { decoded: vector.decoded, frameEncodings: vector.frameEncodings } : { decoded: vector.decoded };
      expect(decodeVector(vector, size), `chunk size ${size ?? 'whole'}`).toEqual(expected);
    }
    expect(encodeVector(vector)).toBe(vector.hex);
  });
});

describe('invalid vectors', () => {
  it.each(rows(invalid))('%s fails with its error', (_id, vector) => {
    for (const size of chunkSizes(vector)) {
      const outcome = decodeVector(vector, size);
      expect('error' in outcome, `chunk size ${size ?? 'whole'}: ${JSON.stringify(outcome)}`).toBe(true);
      if (!('error' in outcome)) continue;
      expect({ code: outcome.error.code, jsonRpcCode: outcome.error.jsonRpcCode }).toEqual(vector.error);
      // The requirement the wire layer names for the error is among the vector's profile IDs.
      expect(vector.profile).toContain(outcome.error.requirement);
    }
  });
});

describe('the set of vectors', () => {
  it('covers every kind, both encodings, both roles and the JSON -> CBOR switch', () => {
    expect(new Set(valid.map((v) => v.kind))).toEqual(new Set(['control', 'exec', 'datagram']));
    const control = valid.filter((v) => v.kind === 'control');
    expect(new Set(control.flatMap((v) => v.frameEncodings ?? []))).toEqual(new Set(['json', 'cbor']));
    expect(new Set(control.map((v) => v.role))).toEqual(new Set(['client', 'server']));
    expect(control.some((v) => v.frameEncodings?.join(',').includes('json,cbor'))).toBe(true);
  });

  it('has an invalid vector for every wire error code a receiver can hit', () => {
    const codes = new Set(invalid.map((v) => v.error!.code));
    for (const code of [
      'FRAME_TRUNCATED_LENGTH', 'FRAME_TRUNCATED_BODY', 'FRAME_TOO_LARGE', 'FRAME_EMPTY', 'INVALID_UTF8', 'INVALID_JSON',
      'INVALID_CBOR', 'CBOR_TRAILING_BYTES', 'ENCODING_MISMATCH', 'EXEC_HEADER_TRUNCATED', 'DATAGRAM_TOO_SHORT',
      'DATAGRAM_RESERVED_CHANNEL', 'DATAGRAM_RESERVED_FLAGS', 'DATAGRAM_UNKNOWN_CHANNEL',
    ]) {
      expect(codes, code).toContain(code);
    }
  });

  it('has execution headers for ids 0, 1, 42, 2^31 and 2^32-1', () => {
    const ids = new Set(valid.filter((v) => v.kind === 'exec').map((v) => (v.decoded as { requestId: number }).requestId));
    for (const id of [0, 1, 42, 2 ** 31, 2 ** 32 - 1]) expect(ids).toContain(id);
  });

  it('has datagrams on every channel, progress and log in both encodings', () => {
    const seen = new Set(
      valid.filter((v) => v.kind === 'datagram').map((v) => `${(v.decoded as { channel: number }).channel}/${v.encoding}`),
    );
    for (const key of ['1/json', '1/cbor', '2/json', '3/json', '3/cbor']) expect(seen).toContain(key);
  });
});

describe('checkVector (what self-check runs) notices a wrong vector', () => {
  const pick = (id: string) => structuredClone(allVectors.find((v) => v.id === id)!);

  it('passes the committed vectors it is given', () => {
    expect(checkVector(pick('control/switch-json-to-cbor'))).toEqual([]);
    expect(checkVector(pick('invalid/frame-too-large'))).toEqual([]);
  });

  it('reports a decoded value that differs', () => {
    const v = pick('exec-header/seed-001-id-42-tag-1');
    (v.decoded as { requestId: number }).requestId = 43;
    expect(checkVector(v).join('\n')).toMatch(/decoding in one chunk gave .*"requestId":42/);
  });

  it('reports a frame read in the wrong encoding', () => {
    const v = pick('control/switch-json-to-cbor');
    v.frameEncodings = ['json', 'json', 'cbor'];
    expect(checkVector(v).join('\n')).toMatch(/read the frames as \["json","cbor","cbor"\]/);
  });

  it('reports bytes that no longer re-encode', () => {
    const v = pick('control/json-shutdown');
    // Same message, but with a space: decodes to the same value, encodes differently.
    const body = Buffer.from('{"jsonrpc":"2.0", "method":"$/shutdown"}');
    v.hex = Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]).toString('hex');
    expect(checkVector(v).join('\n')).toMatch(/re-encoding gave/);
  });

  it('reports the wrong error code and an unexpected success', () => {
    const wrongCode = pick('invalid/frame-empty');
    wrongCode.error = { code: 'FRAME_TOO_LARGE', jsonRpcCode: -32600 };
    expect(checkVector(wrongCode).join('\n')).toMatch(/failed with FRAME_EMPTY \(-32600\); expected FRAME_TOO_LARGE/);
    const success = pick('invalid/frame-too-large');
    success.maxMessageSize = 16 * 1024 * 1024;
    expect(checkVector(success).join('\n')).toMatch(/FRAME_TRUNCATED_BODY/);
  });
});
