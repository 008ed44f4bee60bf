import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidHexError, fromHex, toHex } from '../../src/wire/index.js';
import { captureError } from './arbitraries.js';

describe('hex', () => {
  it('tolerates spaces, newlines, colons and 0x prefixes', () => {
    const expected = new Uint8Array([0x00, 0x00, 0x00, 0xda, 0x7b]);
    for (const text of ['000000DA7B', '00 00 00 DA 7b', '00:00:00:da:7b', '0x00 0x00 0x00 0xDA 0x7B', '0x000000da7b', '00 00\n00 DA\r\n\t7B\n', '00-00-00-da-7b']) {
      expect(fromHex(text), text).toEqual(expected);
    }
    expect(fromHex('')).toEqual(new Uint8Array());
  });

  it('names an odd digit count', () => {
    const error = captureError(() => fromHex('00 0'));
    expect(error).toBeInstanceOf(InvalidHexError);
    expect(error).toMatchObject({ code: 'INVALID_HEX' });
    expect((error as Error).message).toMatch(/odd number of hex digits \(3\)/);
  });

  it('names a non-hex character and where it is', () => {
    const error = captureError(() => fromHex('00 0g'));
    expect(error).toMatchObject({ code: 'INVALID_HEX', offset: 4 });
    expect((error as Error).message).toContain('"g"');
    expect(() => fromHex('10x')).toThrow(InvalidHexError);
  });

  it('property: fromHex(toHex(b)) is b', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(toHex(bytes)).toMatch(/^([0-9a-f]{2})*$/);
        expect(fromHex(toHex(bytes))).toEqual(bytes);
      }),
      { numRuns: 100 },
    );
  });
});
