import * as cborg from 'cborg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CborTrailingBytesError,
  InvalidCborError,
  InvalidJsonError,
  InvalidUtf8Error,
  UnencodableValueError,
  UnknownEncodingError,
  WireError,
  cborCodec,
  codecFor,
  fromHex,
  isEncodingName,
  jsonCodec,
  toHex,
  type EncodingName,
} from '../../src/wire/index.js';
import { firstInvalidUtf8 } from '../../src/wire/codec.js';
import { captureError, jsonRpcMessage, jsonValue, utf8 } from './arbitraries.js';
import { propertyRuns } from '../support/property-runs.js';

describe('codec selection', () => {
  it('names exactly json and cbor', () => {
    expect(codecFor('json')).toBe(jsonCodec);
    expect(codecFor('cbor')).toBe(cborCodec);
    expect(isEncodingName('json')).toBe(true);
    expect(isEncodingName('cbor')).toBe(true);
    expect(isEncodingName('msgpack')).toBe(false);
    expect(isEncodingName(undefined)).toBe(false);
    const error = captureError(() => codecFor('msgpack' as EncodingName));
    expect(error).toBeInstanceOf(UnknownEncodingError);
    expect(error).toMatchObject({ code: 'UNKNOWN_ENCODING', encoding: 'msgpack' });
  });
});

describe('round trips', () => {
  for (const codec of [jsonCodec, cborCodec]) {
    it(`property: any JSON-RPC message round-trips through ${codec.name}`, () => {
      fc.assert(
        fc.property(jsonRpcMessage, (message) => {
          expect(codec.decode(codec.encode(message))).toEqual(message);
        }),
        { numRuns: propertyRuns(200) },
      );
    });
  }

  it('keeps an own "__proto__" member in both encodings', () => {
    const message = JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1},"y":[{"__proto__":2}]}}');
    for (const codec of [jsonCodec, cborCodec]) {
      const decoded = codec.decode(codec.encode(message)) as { result: Record<string, unknown> };
      expect(Object.keys(decoded.result)).toEqual(['__proto__', 'y']);
      expect(Object.getPrototypeOf(decoded.result)).toBe(Object.prototype);
      expect(decoded).toEqual(message);
    }
  });

  it('keeps "__proto__" written with a non-preferred length header', () => {
    // {"__proto__": 1} with the key length in a 1-byte argument (0x78 0x09) instead of 0x69.
    const body = fromHex('a1 7809 5f5f70726f746f5f5f 01');
    const decoded = cborCodec.decode(body) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['__proto__']);
    expect(decoded['__proto__']).toBe(1);
  });

  it('drops object members whose value is undefined, as JSON.stringify does', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { a: undefined, b: 1 }, error: undefined };
    for (const codec of [jsonCodec, cborCodec]) {
      expect(codec.decode(codec.encode(message))).toEqual({ jsonrpc: '2.0', id: 1, result: { b: 1 } });
    }
  });

  it('writes Maps with string keys as objects', () => {
    const message = { result: new Map([['a', 1]]) };
    expect(jsonCodec.decode(jsonCodec.encode(message))).toEqual({ result: { a: 1 } });
    expect(cborCodec.decode(cborCodec.encode(message))).toEqual({ result: { a: 1 } });
  });
});

describe('JSON codec', () => {
  it('encodes UTF-8 without a BOM', () => {
    expect(toHex(jsonCodec.encode({ a: 'é' }))).toBe(toHex(utf8('{"a":"é"}')));
  });

  it('INVALID_UTF8 with the offset of the first bad byte', () => {
    for (const [hex, offset] of [
      ['7b2261223a22ff227d', 6], // 0xFF never appears in UTF-8
      ['7b22c0af227d', 2], // overlong "/"
      ['7b22eda080227d', 2], // UTF-16 surrogate D800
      ['7b22e282', 2], // truncated sequence
    ] as const) {
      const error = captureError(() => jsonCodec.decode(fromHex(hex)));
      expect(error).toBeInstanceOf(InvalidUtf8Error);
      expect(error).toMatchObject({ code: 'INVALID_UTF8', jsonRpcCode: -32700, requirement: 'WT-FRAME-4', offset });
    }
    expect(firstInvalidUtf8(utf8('ascii é € 𝄞'))).toBeUndefined();
  });

  it('INVALID_JSON for text that does not parse, and for a leading BOM', () => {
    const error = captureError(() => jsonCodec.decode(utf8('{"jsonrpc":"2.0",}')));
    expect(error).toBeInstanceOf(InvalidJsonError);
    expect(error).toMatchObject({ code: 'INVALID_JSON', jsonRpcCode: -32700, requirement: 'WT-FRAME-4' });
    const bom = captureError(() => jsonCodec.decode(fromHex('efbbbf 7b7d')));
    expect(bom).toMatchObject({ code: 'INVALID_JSON', offset: 0 });
    expect((bom as Error).message).toContain('byte order mark');
  });

  it('refuses values JSON cannot carry, naming where they are', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ id: 1n }, '/id', /BigInt/],
      [{ a: [1, undefined] }, '/a/1', /undefined/],
      [{ a: () => 1 }, '/a', /function/],
      [{ a: Symbol('s') }, '/a', /symbol/],
      [{ a: Number.NaN }, '/a', /NaN/],
      [{ a: Number.POSITIVE_INFINITY }, '/a', /Infinity/],
      [{ 'a/b': new Uint8Array(1) }, '/a~1b', /byte string/],
      [{ a: new Date(0) }, '/a', /Date/],
      [{ a: new Set() }, '/a', /Set/],
      [{ a: new Map([[1, 2]]) }, '/a', /Map key/],
      [undefined, '', /undefined/],
      // eslint-disable-next-line no-sparse-arrays
      [{ a: [1, , 3] }, '/a/1', /sparse/],
    ];
    for (const [value, path, reason] of cases) {
      const error = captureError(() => jsonCodec.encode(value));
      expect(error).toBeInstanceOf(UnencodableValueError);
      expect(error).toMatchObject({ code: 'UNENCODABLE_VALUE', path, encoding: 'json' });
      expect((error as Error).message).toMatch(reason);
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = { again: cyclic };
    expect(captureError(() => jsonCodec.encode(cyclic))).toMatchObject({ code: 'UNENCODABLE_VALUE', path: '/self/again' });
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(jsonCodec.decode(jsonCodec.encode({ a: shared, b: shared }))).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });
});

describe('CBOR codec', () => {
  it('writes integers outside the 32-bit range as CBOR integers, never float64', () => {
    expect(toHex(cborCodec.encode(2 ** 32))).toBe('1b0000000100000000');
    expect(toHex(cborCodec.encode(Number.MAX_SAFE_INTEGER))).toBe('1b001fffffffffffff');
    expect(toHex(cborCodec.encode(-(2 ** 32) - 1))).toBe('3b0000000100000000');
    expect(toHex(cborCodec.encode(Number.MIN_SAFE_INTEGER))).toBe('3b001ffffffffffffe');
    expect(toHex(cborCodec.encode(0xffffffff))).toBe('1affffffff');
    expect(toHex(cborCodec.encode(1.5))).toMatch(/^f[9ab]/);
  });

  it('decodes 64-bit integers to numbers when safe and BigInt otherwise', () => {
    expect(cborCodec.decode(fromHex('1b0000000000000005'))).toBe(5);
    expect(cborCodec.decode(fromHex('1b001fffffffffffff'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(cborCodec.decode(fromHex('1b0020000000000000'))).toBe(2n ** 53n);
    expect(cborCodec.decode(fromHex('3bffffffffffffffff'))).toBe(-(2n ** 64n));
    expect(cborCodec.decode(fromHex('a1616983 1b0000000000000001 c249010000000000000000 00'))).toEqual({
      i: [1, 2n ** 64n, 0],
    });
  });

  it('encodes BigInt within -2^63..2^64-1 as CBOR integers and refuses it outside', () => {
    expect(toHex(cborCodec.encode(2n ** 64n - 1n))).toBe('1bffffffffffffffff');
    expect(toHex(cborCodec.encode(-(2n ** 63n)))).toBe('3b7fffffffffffffff');
    expect(captureError(() => cborCodec.encode(-(2n ** 63n) - 1n))).toMatchObject({ code: 'UNENCODABLE_VALUE', path: '' });
    expect(cborCodec.decode(cborCodec.encode({ n: 2n ** 60n }))).toEqual({ n: 2n ** 60n });
    expect(captureError(() => cborCodec.encode({ n: 2n ** 64n }))).toMatchObject({ code: 'UNENCODABLE_VALUE', path: '/n', encoding: 'cbor' });
  });

  it('writes Uint8Array as a plain byte string (major type 2, no tag 64)', () => {
    expect(toHex(cborCodec.encode({ b: new Uint8Array([1, 2]) }))).toBe('a161624201 02'.replace(/ /g, ''));
    const decoded = cborCodec.decode(fromHex('a161624201 02')) as { b: Uint8Array };
    expect(decoded).toEqual({ b: new Uint8Array([1, 2]) });
    expect(Object.getPrototypeOf(decoded.b)).toBe(Uint8Array.prototype);
  });

  it('refuses undefined, functions and non-string Map keys', () => {
    expect(captureError(() => cborCodec.encode([undefined]))).toMatchObject({ code: 'UNENCODABLE_VALUE', path: '/0' });
    expect(captureError(() => cborCodec.encode({ f: Math.max }))).toMatchObject({ code: 'UNENCODABLE_VALUE', path: '/f' });
    expect(captureError(() => cborCodec.encode(new Map([[{}, 1]])))).toBeInstanceOf(UnencodableValueError);
  });

  it('reads indefinite-length arrays, maps and strings (RFC 8949 section 3.2)', () => {
    expect(cborCodec.decode(fromHex('9f 01 02 ff'))).toEqual([1, 2]);
    expect(cborCodec.decode(fromHex('bf 6161 01 ff'))).toEqual({ a: 1 });
    expect(cborCodec.decode(fromHex('bf 6161 7f 62 6865 63 6c6c6f ff 6162 5f 41 01 42 0203 ff ff'))).toEqual({
      a: 'hello',
      b: new Uint8Array([1, 2, 3]),
    });
    expect(cborCodec.decode(fromHex('82 7f ff 1b0000000000000007'))).toEqual(['', 7]);
    expect(captureError(() => cborCodec.decode(fromHex('7f 6161 ff 00')))).toMatchObject({ code: 'CBOR_TRAILING_BYTES', offset: 4, trailingBytes: 1 });
    expect(captureError(() => cborCodec.decode(fromHex('7f 4161 ff')))).toBeInstanceOf(InvalidCborError);
  });

  it('after a well-formed first item with indefinite strings, any bytes left are CBOR_TRAILING_BYTES', () => {
    // The bytes after the item are not well-formed on their own (a lone break, an unfinished string).
    for (const [hex, offset] of [['7f 6161 ff ff', 4], ['7f 6161 ff 7f', 4], ['9f 7f 6161 ff ff 1c', 6]] as const) {
      expect(captureError(() => cborCodec.decode(fromHex(hex))), hex).toMatchObject({ code: 'CBOR_TRAILING_BYTES', offset, trailingBytes: 1 });
    }
    const truncated = captureError(() => cborCodec.decode(fromHex('7f 6161')));
    expect(truncated).toBeInstanceOf(InvalidCborError);
    expect((truncated as Error).message).not.toMatch(/not supported/);
  });

  it('INVALID_CBOR for a body that does not decode', () => {
    for (const hex of ['a2', '5a0000ffff00', 'ff', '1c']) {
      const error = captureError(() => cborCodec.decode(fromHex(hex)));
      expect(error, hex).toBeInstanceOf(InvalidCborError);
      expect(error).toMatchObject({ code: 'INVALID_CBOR', jsonRpcCode: -32700, requirement: 'WT-FRAME-4' });
    }
    expect(captureError(() => cborCodec.decode(new Uint8Array(0)))).toBeInstanceOf(InvalidCborError);
  });

  it('CBOR_TRAILING_BYTES with the offset where the first item ends', () => {
    const error = captureError(() => cborCodec.decode(fromHex('a1616101 0203')));
    expect(error).toBeInstanceOf(CborTrailingBytesError);
    expect(error).toMatchObject({ code: 'CBOR_TRAILING_BYTES', offset: 4, trailingBytes: 2, jsonRpcCode: -32700, requirement: 'WT-FRAME-4' });
  });

  it('does not decorate the body it decodes', () => {
    const body = cborCodec.encode({ a: 1 });
    cborCodec.decode(body);
    expect(Object.keys(body)).toEqual(['0', '1', '2', '3']);
  });
});

describe('CBOR interop (RFC 8949) with cborg', () => {
  const wide = fc.oneof(
    jsonValue,
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).filter((n) => n < BigInt(Number.MIN_SAFE_INTEGER) || n > BigInt(Number.MAX_SAFE_INTEGER)),
    fc.uint8Array({ maxLength: 16 }),
  );
  const message = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.maxSafeNat(), result: fc.array(wide, { maxLength: 6 }) });

  it('property: cborg decodes what we encode to the same value', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(normalizeBytes(cborg.decode(cborCodec.encode(m)))).toEqual(normalizeBytes(m));
      }),
      { numRuns: 150 },
    );
  });

  it('property: we decode what cborg encodes to the same value', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(normalizeBytes(cborCodec.decode(cborg.encode(m)))).toEqual(normalizeBytes(m));
      }),
      { numRuns: 150 },
    );
  });

  it('property: cborg in strict mode accepts our integers (preferred serialisation of ints)', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(cborg.decode(cborCodec.encode(n), { strict: true })).toBe(n);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});

describe('decoders never throw anything but WireError', () => {
  for (const codec of [jsonCodec, cborCodec]) {
    it(`property: ${codec.name} decode of arbitrary and mutated bytes`, () => {
      const mutated = fc
        .tuple(jsonRpcMessage, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat())
        .map(([m, at, byte, cut]) => {
          const body = codecFor(codec.name).encode(m);
          body[at % body.length] = byte;
          return body.subarray(0, Math.max(1, body.length - (cut % 4)));
        });
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 100 }), mutated), (bytes) => {
          try {
            codec.decode(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(WireError);
          }
        }),
        { numRuns: propertyRuns(300) },
      );
    });
  }

  it('deeply nested CBOR is an INVALID_CBOR error, not a stack overflow escaping', () => {
    const deep = new Uint8Array(200_000).fill(0x81);
    expect(captureError(() => cborCodec.decode(deep))).toBeInstanceOf(InvalidCborError);
  });
});

/** Buffers (cbor-x) and Uint8Arrays (cborg) compare as plain arrays of bytes. */
function normalizeBytes(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: Array.from(value) };
  if (Array.isArray(value)) return value.map(normalizeBytes);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeBytes(v)]));
  }
  return value;
}
