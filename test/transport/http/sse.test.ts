import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseParser, encodeSseEvent } from '../../../src/transport/http/sse.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const parseAll = (text: string) => {
  const parser = new SseParser();
  return [...parser.push(bytes(text)), ...parser.end()].map(({ raw: _raw, ...rest }) => rest);
};

describe('SseParser', () => {
  it('dispatches on a blank line and joins data lines with \\n', () => {
    expect(parseAll('event: message\ndata: {"a":\ndata: 1}\n\n')).toEqual([{ event: 'message', data: '{"a":\n1}' }]);
  });

  it('accepts CRLF, CR and LF line endings alike', () => {
    expect(parseAll('data: a\r\n\r\ndata: b\r\rdata: c\n\n')).toEqual([{ data: 'a' }, { data: 'b' }, { data: 'c' }]);
  });

  it('skips comments, ignores unknown fields and events without data', () => {
    expect(parseAll(': keep-alive\n\nfoo: bar\nevent: x\n\ndata\n\n')).toEqual([{ data: '' }]);
  });

  it('keeps the last event id for later events and reads retry', () => {
    expect(parseAll('id: 7\nretry: 1500\ndata: a\n\ndata: b\n\nid\ndata: c\n\n')).toEqual([
      { id: '7', retry: 1500, data: 'a' },
      { id: '7', data: 'b' },
      { id: '', data: 'c' },
    ]);
  });

  it('discards a last event that never got its blank line', () => {
    expect(parseAll('data: complete\n\ndata: cut off\n')).toEqual([{ data: 'complete' }]);
  });

  it('strips exactly one space after the colon', () => {
    expect(parseAll('data:  two spaces\n\ndata:none\n\n')).toEqual([{ data: ' two spaces' }, { data: 'none' }]);
  });

  it('skips an event over maxEventChars to its blank line, says so, and reads the next one', () => {
    const overflows: number[] = [];
    const parser = new SseParser({ maxEventChars: 100, onOverflow: (chars) => overflows.push(chars) });
    const events = [...parser.push(bytes(`data: ${'x'.repeat(150)}`)), ...parser.push(bytes(`${'x'.repeat(1000)}\r\ndata: more\r\n\r\n`)), ...parser.push(bytes('data: next\n\n'))];
    expect(events.map((event) => event.data)).toEqual(['next']);
    // 156 characters when given up on, then the 1000, "\r\n", "data: more", "\r\n" and the "\r" of the blank line.
    expect(overflows).toEqual([156 + 1000 + 2 + 10 + 2 + 1]);
  });

  it('an over-long event cut off by the end of the stream is reported too', () => {
    const overflows: number[] = [];
    const parser = new SseParser({ maxEventChars: 10, onOverflow: (chars) => overflows.push(chars) });
    expect([...parser.push(bytes(`: ${'c'.repeat(20)}`)), ...parser.end()]).toEqual([]);
    expect(overflows).toEqual([22]);
  });

  it('records the exact text of each event', () => {
    const parser = new SseParser();
    expect(parser.push(bytes(': c\r\nevent: m\r\ndata: x\r\n\r\n')).map((event) => event.raw)).toEqual([': c\r\nevent: m\r\ndata: x\r\n\r\n']);
  });

  it('gives the same events however the bytes are split (also inside CRLF and UTF-8 sequences)', () => {
    const eventArb = fc.record({
      event: fc.option(fc.stringMatching(/^[a-z]{1,8}$/), { nil: undefined }),
      data: fc.string({ unit: 'grapheme', maxLength: 40 }),
    });
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (events, cuts, crlf) => {
        let text = events.map((event) => encodeSseEvent(event.event === undefined ? { data: event.data } : event)).join('');
        if (crlf) text = text.replace(/\n/g, '\r\n');
        const encoded = bytes(text);
        const points = [...new Set(cuts.map((cut) => cut % (encoded.length + 1)))].sort((a, b) => a - b);
        const parser = new SseParser();
        const got = [];
        let from = 0;
        for (const point of [...points, encoded.length]) {
          got.push(...parser.push(encoded.subarray(from, point)));
          from = point;
        }
        got.push(...parser.end());
        const expected = events.map((event) => ({
          ...(event.event !== undefined ? { event: event.event } : {}),
          // encodeSseEvent splits on any line break; the parser joins with "\n".
          data: event.data.replace(/\r\n|\r/g, '\n'),
        }));
        expect(got.map(({ raw: _raw, ...rest }) => rest)).toEqual(expected);
      }),
    );
  });
});
