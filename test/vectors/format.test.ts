// parseVectorFile: the documented file format, and a clear error naming the file and the vector
// for each way a hand-written file can be wrong.
import { describe, expect, it } from 'vitest';
import {
  VectorFileError,
  fromVectorValue,
  parseVectorFile,
  toVectorValue,
  type Vector,
} from '../../src/vectors/vector-file.js';
import { allVectors } from './committed.js';

const good: Vector = {
  id: 'exec-header/x',
  description: 'x',
  kind: 'exec',
  hex: '0000002a00000001ff',
  decoded: { requestId: 42, streamTag: 1, payloadHex: 'ff' },
  profile: ['WT-EXEC-1'],
};

function doc(vectors: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ format: 'mcp-flow-conformance/vectors', version: 1, vectors, ...extra });
}

function problem(text: string): string {
  try {
    parseVectorFile(text, 'vectors/t.json');
  } catch (error) {
    expect(error).toBeInstanceOf(VectorFileError);
    expect((error as VectorFileError).code).toBe('VECTOR_FILE_INVALID');
    return (error as Error).message;
  }
  throw new Error('parseVectorFile accepted the file');
}

describe('parseVectorFile', () => {
  it('accepts a well-formed file and every committed vector', () => {
    expect(parseVectorFile(doc([good]), 'vectors/t.json').vectors).toEqual([good]);
    expect(() => parseVectorFile(doc(allVectors), 'vectors/all.json')).not.toThrow();
  });

  it.each([
    ['not JSON', '{', /vectors\/t\.json: not valid JSON/],
    ['another format', doc([], { format: 'x' }), /"format" must be "mcp-flow-conformance\/vectors", found "x"/],
    ['an unknown version', doc([], { version: 2 }), /"version" 2 is not supported/],
    ['a duplicate id', doc([good, good]), /vectors\[1\] \(exec-header\/x\): duplicate id/],
    ['upper-case hex', doc([{ ...good, hex: 'FF' }]), /"hex" must be lower-case hex/],
    ['an odd hex digit count', doc([{ ...good, hex: 'fff' }]), /"hex" must be lower-case hex/],
    ['decoded and error together', doc([{ ...good, error: { code: 'X', jsonRpcCode: -1 } }]), /exactly one of "decoded" and "error"/],
    ['a malformed error', doc([{ ...good, decoded: undefined, error: { code: 'X' } }]), /"error" must be/],
    ['an unknown kind', doc([{ ...good, kind: 'stream' }]), /"kind" must be one of control, exec, datagram/],
    ['a control vector without role', doc([{ ...good, kind: 'control', encoding: 'json', negotiated: true, decoded: [{}] }]), /needs "role"/],
    ['CBOR before negotiation', doc([{ ...good, kind: 'control', encoding: 'cbor', negotiated: false, role: 'server', decoded: [{}] }]), /"encoding" must be "json" while "negotiated" is false/],
    ['a datagram without encoding', doc([{ ...good, kind: 'datagram' }]), /a datagram vector needs "encoding"/],
    ['a bad profile ID', doc([{ ...good, profile: ['WT-frame-1'] }]), /profile entry "WT-frame-1" is not a requirement ID/],
    ['an empty profile', doc([{ ...good, profile: [] }]), /"profile" must be a non-empty array/],
    ['a request id out of range', doc([{ ...good, decoded: { ...good.decoded as object, requestId: 2 ** 32 } }]), /"decoded": "requestId" must be an integer in 0..4294967295/],
    ['control decoded that is not a list', doc([{ ...good, kind: 'control', encoding: 'json', negotiated: true, role: 'server', decoded: {} }]), /"decoded": must be a non-empty array of messages/],
    ['a zero maxMessageSize', doc([{ ...good, maxMessageSize: 0 }]), /"maxMessageSize" must be a positive integer/],
  ])('rejects %s', (_name, text, message) => {
    expect(problem(text)).toMatch(message);
  });
});

describe('$bigint values', () => {
  it('round-trip integers beyond 2^53 and leave safe ones as numbers', () => {
    const value = { a: 2n ** 53n + 1n, b: -(2n ** 63n), c: 2n ** 32n, d: [1, 'x', null] };
    const vector = toVectorValue(value);
    expect(vector).toEqual({ a: { $bigint: '9007199254740993' }, b: { $bigint: '-9223372036854775808' }, c: 4294967296, d: [1, 'x', null] });
    expect(fromVectorValue(vector)).toEqual({ ...value, c: 4294967296 });
  });
});
