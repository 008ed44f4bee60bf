// CBOR well-formedness is exactly RFC 8949's (docs/profile.md §2, rule 5): every well-formed data
// item decodes (simple values 0..19 and 32..255, undefined, tags of any number, indefinite lengths,
// every float width, non-text map keys), and only a body that is not well-formed is malformed
// (-32700). Generated items are checked against a second implementation, cbor2's diagnostic
// decoder, which agrees on what is well-formed; what JSON-RPC has no use for decodes to a value
// outside the JSON data model, which the mock server refuses as an Invalid Request (-32600).
import { diagnose } from 'cbor2';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { connectWebTransport, initializeSession } from '../../src/transport/webtransport/index.js';
import { CborInvalidText, CborMap, CborSimpleValue, CborTag, cborCodec, encodeFrame, isWireError } from '../../src/wire/index.js';
import { propertyRuns } from '../support/property-runs.js';

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** A head of `major` with `argument`, in the shortest form or a longer one (both are well-formed). */
function head(major: number, argument: bigint, width: 0 | 1 | 2 | 4 | 8): Uint8Array {
  const fits = (w: number) => (w === 0 ? argument < 24n : argument < 1n << BigInt(8 * w));
  const w = [width, 0, 1, 2, 4, 8].find((candidate) => fits(candidate))!;
  if (w === 0) return Uint8Array.of((major << 5) | Number(argument));
  const out = new Uint8Array(1 + w);
  out[0] = (major << 5) | { 1: 24, 2: 25, 4: 26, 8: 27 }[w as 1 | 2 | 4 | 8];
  for (let i = 0; i < w; i++) out[w - i] = Number((argument >> BigInt(8 * i)) & 0xffn);
  return out;
}

const width = fc.constantFrom<0 | 1 | 2 | 4 | 8>(0, 1, 2, 4, 8);
const argument = fc.oneof(fc.bigInt({ min: 0n, max: 23n }), fc.bigInt({ min: 0n, max: 0xffffn }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
const utf8 = new TextEncoder();
const definiteString = (major: 2 | 3) =>
  (major === 2 ? fc.uint8Array({ maxLength: 12 }) : fc.string({ maxLength: 8, unit: 'grapheme' }).map((s) => utf8.encode(s))).chain((bytes) =>
    width.map((w) => concat(head(major, BigInt(bytes.length), w), bytes)),
  );
const indefiniteString = (major: 2 | 3) => fc.array(definiteString(major), { maxLength: 3 }).map((chunks) => concat(Uint8Array.of((major << 5) | 31), ...chunks, Uint8Array.of(0xff)));

/** One well-formed data item: any major type, definite or indefinite, any tag number, any simple value. */
const { item: wellFormed } = fc.letrec<{ item: Uint8Array }>((tie) => ({
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.constantFrom(0, 1), argument, width).map(([major, arg, w]) => head(major, arg, w)),
    fc.constantFrom<2 | 3>(2, 3).chain((major) => fc.oneof(definiteString(major), indefiniteString(major))),
    fc.tuple(fc.array(tie('item'), { maxLength: 4 }), fc.boolean(), width).map(([items, indefinite, w]) =>
      indefinite ? concat(Uint8Array.of(0x9f), ...items, Uint8Array.of(0xff)) : concat(head(4, BigInt(items.length), w), ...items),
    ),
    fc.tuple(fc.array(fc.tuple(tie('item'), tie('item')), { maxLength: 3 }), fc.boolean(), width).map(([pairs, indefinite, w]) =>
      indefinite ? concat(Uint8Array.of(0xbf), ...pairs.flat(), Uint8Array.of(0xff)) : concat(head(5, BigInt(pairs.length), w), ...pairs.flat()),
    ),
    fc.tuple(argument, width, tie('item')).map(([tag, w, content]) => concat(head(6, tag, w), content)),
    fc.oneof(fc.integer({ min: 0, max: 23 }).map((n) => Uint8Array.of(0xe0 | n)), fc.integer({ min: 32, max: 255 }).map((n) => Uint8Array.of(0xf8, n))),
    fc.oneof(
      fc.uint8Array({ minLength: 2, maxLength: 2 }).map((b) => concat(Uint8Array.of(0xf9), b)),
      fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => concat(Uint8Array.of(0xfa), b)),
      fc.uint8Array({ minLength: 8, maxLength: 8 }).map((b) => concat(Uint8Array.of(0xfb), b)),
    ),
  ),
}));

/** Byte sequences that are not a data item wherever one is expected. */
const malformedAtom = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 28, max: 30 })).map(([major, info]) => Uint8Array.of((major << 5) | info)),
  fc.constantFrom(0, 1, 6).map((major) => Uint8Array.of((major << 5) | 31, 0x00)),
  fc.integer({ min: 0, max: 31 }).map((n) => Uint8Array.of(0xf8, n)),
  fc.constant(Uint8Array.of(0xff)),
  fc.constant(Uint8Array.of(0x5f, 0x61, 0x61, 0xff)),
  fc.constant(Uint8Array.of(0x7f, 0x7f, 0xff, 0xff)),
  fc.constant(Uint8Array.of(0xbf, 0x01, 0xff)),
);

const cbor2Accepts = (bytes: Uint8Array): boolean => {
  try {
    diagnose(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('RFC 8949 well-formedness', () => {
  it('property: every generated well-formed item decodes (and cbor2 agrees it is well-formed)', () => {
    fc.assert(
      fc.property(wellFormed, (bytes) => {
        expect(cbor2Accepts(bytes)).toBe(true);
        expect(() => cborCodec.decode(bytes)).not.toThrow();
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('property: a well-formed item with bytes after it is trailing bytes, at the item end', () => {
    fc.assert(
      fc.property(wellFormed, fc.uint8Array({ minLength: 1, maxLength: 4 }), (bytes, rest) => {
        const error = capture(() => cborCodec.decode(concat(bytes, rest)));
        expect(error).toMatchObject({ code: 'CBOR_TRAILING_BYTES', jsonRpcCode: -32700, offset: bytes.length });
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('property: every proper prefix of a well-formed item is malformed (-32700), for cbor2 too', () => {
    fc.assert(
      fc.property(
        wellFormed.filter((bytes) => bytes.length > 1),
        fc.nat(),
        (bytes, cut) => {
          const prefix = bytes.subarray(0, 1 + (cut % (bytes.length - 1)));
          expect(cbor2Accepts(prefix)).toBe(false);
          expect(capture(() => cborCodec.decode(prefix))).toMatchObject({ code: 'INVALID_CBOR', jsonRpcCode: -32700 });
        },
      ),
      { numRuns: propertyRuns(1000) },
    );
  });

  it('property: a malformed encoding inside a well-formed container is malformed (-32700), for cbor2 too', () => {
    fc.assert(
      fc.property(fc.array(wellFormed, { maxLength: 2 }), malformedAtom, (before, atom) => {
        const body = concat(head(4, BigInt(before.length + 1), 0), ...before, atom);
        expect(cbor2Accepts(body)).toBe(false);
        expect(capture(() => cborCodec.decode(body))).toMatchObject({ code: 'INVALID_CBOR', jsonRpcCode: -32700 });
      }),
      { numRuns: propertyRuns(1000) },
    );
  });

  it('decodes what JSON-RPC has no use for to values outside the JSON data model', () => {
    expect(cborCodec.decode(Uint8Array.of(0xe0))).toEqual(new CborSimpleValue(0));
    expect(cborCodec.decode(Uint8Array.of(0xf3))).toEqual(new CborSimpleValue(19));
    expect(cborCodec.decode(Uint8Array.of(0xf7))).toEqual(new CborSimpleValue(23));
    expect(cborCodec.decode(Uint8Array.of(0xf8, 0x20))).toEqual(new CborSimpleValue(32));
    expect(cborCodec.decode(Uint8Array.of(0xf8, 0xff))).toEqual(new CborSimpleValue(255));
    // Unknown tags, tags cbor-x would have turned into objects, and the largest tag number.
    expect(cborCodec.decode(Buffer.from('d99c4001', 'hex'))).toEqual(new CborTag(40000, 1));
    expect(cborCodec.decode(Buffer.from('d81b8263666f6f01', 'hex'))).toEqual(new CborTag(27, ['foo', 1]));
    expect(cborCodec.decode(Buffer.from('d84001', 'hex'))).toEqual(new CborTag(64, 1));
    expect(cborCodec.decode(Buffer.from('dbffffffffffffffff01', 'hex'))).toEqual(new CborTag((1n << 64n) - 1n, 1));
    expect(cborCodec.decode(Buffer.from('c074323031332d30332d32315432303a30343a30305a', 'hex'))).toEqual(new CborTag(0, '2013-03-21T20:04:00Z'));
    // A map keyed by something other than text, and text that is not UTF-8 (well-formed, only invalid).
    expect(cborCodec.decode(Buffer.from('a10101', 'hex'))).toEqual(new CborMap([[1, 1]]));
    expect(cborCodec.decode(Buffer.from('61ff', 'hex'))).toEqual(new CborInvalidText(Uint8Array.of(0xff)));
    // What means something in the JSON data model keeps its meaning: bignums are integers, 55799 is transparent.
    expect(cborCodec.decode(Buffer.from('c249010000000000000000', 'hex'))).toBe(1n << 64n);
    expect(cborCodec.decode(Buffer.from('c24101', 'hex'))).toBe(1);
    expect(cborCodec.decode(Buffer.from('d9d9f7a161610a', 'hex'))).toEqual({ a: 10 });
    // In a transcript they show in RFC 8949 diagnostic notation.
    expect(JSON.stringify({ id: cborCodec.decode(Uint8Array.of(0xf7)), uri: cborCodec.decode(Uint8Array.of(0xd8, 0x20, 0x60)) })).toBe('{"id":"undefined","uri":"32(\\"\\")"}');
  });

  it('calls only a body that is not well-formed malformed', () => {
    for (const hex of ['', '1c', 'f81f', 'ff', '5f61', '7f4161ff', 'bf01ff', 'a2616101', '1f00', '9b0000000100000000']) {
      expect(capture(() => cborCodec.decode(Buffer.from(hex, 'hex'))), hex).toMatchObject({ code: 'INVALID_CBOR', jsonRpcCode: -32700 });
    }
  });
});

describe('the mock server over WebTransport with CBOR negotiated', () => {
  let server: RunningMockServer;
  beforeAll(async () => {
    server = await startMockServer({ transport: 'wt' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers a well-formed item that is no valid JSON-RPC message with -32600, a malformed body with -32700', async () => {
    const connection = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    await initializeSession(connection, { encodings: ['cbor'], timeoutMs: 10_000 });
    const answerTo = async (body: Uint8Array) => {
      await connection.sendRaw(encodeFrame(body));
      const { message } = await connection.next((r) => typeof r.message === 'object' && r.message !== null && 'error' in r.message, { timeoutMs: 10_000 });
      return message as { id: unknown; error: { code: number } };
    };
    const text = (value: string) => concat(head(3, BigInt(utf8.encode(value).length), 0), utf8.encode(value));
    const request = (id: Uint8Array, method: Uint8Array) => concat(Uint8Array.of(0xa3), text('jsonrpc'), text('2.0'), text('id'), id, text('method'), method);
    expect(await answerTo(Uint8Array.of(0xe0))).toMatchObject({ id: null, error: { code: -32600 } });
    // undefined as the id; a method that is a tagged string (tag 32, a URI); a map keyed by an integer.
    expect(await answerTo(request(Uint8Array.of(0xf7), text('ping')))).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answerTo(request(Uint8Array.of(0x07), concat(Uint8Array.of(0xd8, 0x20), text('ping'))))).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(await answerTo(Uint8Array.of(0xa1, 0x01, 0xf6))).toMatchObject({ id: null, error: { code: -32600 } });
    // The same request well-formed and valid is served.
    await connection.sendRaw(encodeFrame(request(Uint8Array.of(0x08), text('ping'))));
    expect((await connection.next((r) => (r.message as { id?: unknown }).id === 8, { timeoutMs: 10_000 })).message).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    expect(await answerTo(Uint8Array.of(0xf8, 0x1f))).toMatchObject({ id: null, error: { code: -32700 } });
    await connection.close();
  });
});

function capture(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (isWireError(error)) return error.toJSON();
    throw error;
  }
  throw new Error('expected a wire error');
}
