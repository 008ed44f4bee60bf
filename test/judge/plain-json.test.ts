// judgeMessage keeps its judgements by message text (src/judge/schema.ts): only a value that JSON
// text tells apart from every other may be looked up by it.
import { describe, expect, it } from 'vitest';
import { plainJsonText } from '../../src/judge/schema.js';

describe('plainJsonText', () => {
  it('is the JSON text of plain JSON values', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }], isError: false, n: null, x: -1.5 } };
    expect(plainJsonText(message)).toBe(JSON.stringify(message));
    expect(plainJsonText(Object.assign(Object.create(null), { a: 1 }))).toBe('{"a":1}');
  });

  it('is undefined for what JSON text would confuse with another value', () => {
    for (const value of [
      { id: new Uint8Array([1]) }, // {"0":1}
      { id: 10n },
      { id: Number.NaN }, // null
      { id: Number.POSITIVE_INFINITY },
      { id: -0 }, // 0
      { at: new Date(0) }, // a string
      { a: undefined }, // {}
      [undefined], // [null]
      [1, , 2], // [1,null,2]
      { m: new Map() },
      { f: () => 1 },
    ]) {
      expect(plainJsonText(value), String(Object.values(value as object)[0])).toBeUndefined();
    }
  });

  it('is undefined when the text would be longer than maxChars (found before it is written)', () => {
    expect(plainJsonText({ a: 'xy' }, 10)).toBe('{"a":"xy"}');
    expect(plainJsonText({ a: 'xy' }, 9)).toBeUndefined();
    expect(plainJsonText({ a: 'x'.repeat(1_000_000) }, 4096)).toBeUndefined();
    // Escapes are not counted ahead: the written text is measured too.
    expect(plainJsonText({ a: '\n'.repeat(10) }, 20)).toBeUndefined();
  });

  it('is undefined for an array or object 64 levels down (such a message is judged each time)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 65; i++) deep = [deep];
    expect(plainJsonText(deep)).toBeUndefined();
    expect(plainJsonText((deep as unknown[])[0])).toBe(JSON.stringify((deep as unknown[])[0]));
  });
});
