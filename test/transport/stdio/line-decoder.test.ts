import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineDecoder, isOverflow } from '../../../src/transport/stdio/line-decoder.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

describe('LineDecoder', () => {
  it('splits on \\n, keeps each line\'s wire bytes and returns an unterminated last line at the end', () => {
    const decoder = new LineDecoder(100);
    const lines = [...decoder.push(Buffer.from('a\r\nbb\n')), ...decoder.push(Buffer.from('c')), ...decoder.end()];
    expect(lines.map((line) => (isOverflow(line) ? line : [text(line.content), text(line.wire)]))).toEqual([
      ['a\r', 'a\r\n'],
      ['bb', 'bb\n'],
      ['c', 'c'],
    ]);
  });

  it('skips a line over the limit to its end and reports its size', () => {
    const decoder = new LineDecoder(4);
    const out = [...decoder.push(Buffer.from('1234')), ...decoder.push(Buffer.from('56\nok\n'))];
    expect(out).toEqual([{ byteLength: 7 }, expect.objectContaining({ content: new Uint8Array(Buffer.from('ok')) })]);
  });

  it('gives the same lines however the input is split', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }).map((line) => line.replace(/\n/g, '')), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 }), (lines, cuts) => {
        const input = Buffer.from(lines.map((line) => line + '\n').join(''));
        const points = [...new Set(cuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
        const decoder = new LineDecoder(1024);
        const got: string[] = [];
        let from = 0;
        for (const point of [...points, input.length]) {
          for (const line of decoder.push(input.subarray(from, point))) if (!isOverflow(line)) got.push(text(line.content));
          from = point;
        }
        expect(decoder.end()).toEqual([]);
        expect(got).toEqual(lines);
      }),
    );
  });
});
