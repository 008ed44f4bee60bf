// Every WireError subclass carries the JSON-RPC code and requirement docs/architecture.md assigns to its code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as wire from '../../src/wire/index.js';

const architecture = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
const table = new Map(
  [...architecture.matchAll(/^\| `([A-Z0-9_]+)` \| [^|]+ \| (-\d+) \| (WT-[A-Z]+-\d+) \|$/gm)].map((m) => [m[1]!, { jsonRpcCode: Number(m[2]), requirement: m[3]! }]),
);

const oneOfEach: wire.WireError[] = [
  new wire.FrameTruncatedLengthError(2, 0),
  new wire.FrameTruncatedBodyError(10, 3, 0),
  new wire.FrameTooLargeError(100, 10, 0),
  new wire.FrameEmptyError(0),
  new wire.InvalidUtf8Error(1),
  new wire.InvalidJsonError('x'),
  new wire.InvalidCborError('x'),
  new wire.CborTrailingBytesError(1, 1),
  new wire.EncodingMismatchError('json', 'cbor', 'x'),
  new wire.ExecHeaderTruncatedError(3),
  new wire.DatagramTooShortError(2),
  new wire.DatagramReservedChannelError(),
  new wire.DatagramReservedFlagsError(1),
  new wire.DatagramUnknownChannelError(9),
  new wire.IdOutOfRangeError('requestId', -1),
  new wire.UnknownEncodingError('msgpack'),
  new wire.UnencodableValueError('json', '/a', 'x'),
  new wire.EncodingAlreadyNegotiatedError('json', 'cbor'),
];

/** Local-side failures this layer adds beyond the architecture table (none: the table is complete). */
const beyondTable = new Set<string>();

describe('wire error classes', () => {
  it('every code in the table has a class with its JSON-RPC code and requirement', () => {
    expect(table.size).toBeGreaterThanOrEqual(18);
    const codes = new Set(oneOfEach.map((e) => e.code));
    for (const code of table.keys()) expect(codes, code).toContain(code);
    for (const error of oneOfEach) {
      expect(error).toBeInstanceOf(wire.WireError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(error.constructor.name);
      const row = table.get(error.code);
      if (row) expect({ jsonRpcCode: error.jsonRpcCode, requirement: error.requirement }, error.code).toEqual(row);
      else expect(beyondTable, error.code).toContain(error.code);
    }
  });

  it('turns into the error member of a JSON-RPC response', () => {
    const error = new wire.FrameTooLargeError(100, 10, 4);
    expect(error.toJsonRpcError()).toEqual({
      code: -32600,
      message: 'frame length 100 exceeds the maximum message size 10',
      data: { wireCode: 'FRAME_TOO_LARGE', requirement: 'WT-FRAME-3', offset: 4 },
    });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: 'FRAME_TOO_LARGE', jsonRpcCode: -32600, offset: 4 });
    expect(wire.isWireError(error)).toBe(true);
    expect(wire.isWireError(new Error('x'))).toBe(false);
  });
});
