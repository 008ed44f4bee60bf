import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_MESSAGE_SIZE,
  FRAME_PREFIX_BYTES,
  FrameDecoder,
  FrameEmptyError,
  FrameTooLargeError,
  FrameTruncatedBodyError,
  FrameTruncatedLengthError,
  WireError,
  WireOptionError,
  encodeFrame,
  fromHex,
  toHex,
} from '../../src/wire/index.js';
import { captureError, chunked, concat, utf8 } from './arbitraries.js';
import { propertyRuns } from '../support/property-runs.js';

describe('encodeFrame', () => {
  it('prefixes the body with its length as a 4-byte big-endian integer', () => {
    expect(toHex(encodeFrame(utf8('{}')))).toBe('000000027b7d');
    const body = new Uint8Array(0x0102_03);
    expect(toHex(encodeFrame(body).subarray(0, FRAME_PREFIX_BYTES))).toBe('00010203');
  });

  it('refuses an empty body (FRAME_EMPTY) and a body above the maximum (FRAME_TOO_LARGE)', () => {
    expect(() => encodeFrame(new Uint8Array(0))).toThrow(FrameEmptyError);
    const error = captureError(() => encodeFrame(new Uint8Array(11), { maxMessageSize: 10 }));
    expect(error).toBeInstanceOf(FrameTooLargeError);
    expect(error).toMatchObject({ code: 'FRAME_TOO_LARGE', declaredLength: 11, maxMessageSize: 10, jsonRpcCode: -32600, requirement: 'WT-FRAME-3' });
    expect(encodeFrame(new Uint8Array(10), { maxMessageSize: 10 })).toHaveLength(14);
  });

  it('rejects a maximum message size that is not an integer in 1..2^32-1', () => {
    for (const bad of [0, -1, 1.5, 2 ** 32, Number.NaN]) {
      expect(() => new FrameDecoder({ maxMessageSize: bad })).toThrow(WireOptionError);
    }
    expect(DEFAULT_MAX_MESSAGE_SIZE).toBe(16 * 1024 * 1024);
  });
});

describe('FrameDecoder', () => {
  it('decodes the seed 001 initialize frame prefix (0x000000DA = 218 bytes)', () => {
    const body = new Uint8Array(218).fill(0x20);
    body[0] = 0x7b;
    const decoder = new FrameDecoder();
    expect(decoder.push(fromHex('00 00 00 DA'))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(4);
    const bodies = decoder.push(body);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toEqual(body);
    expect(decoder.bufferedBytes).toBe(0);
    expect(() => decoder.end()).not.toThrow();
  });

  it('FRAME_EMPTY on a zero prefix, with the frame offset; the stream stays in sync (the next frame follows the prefix)', () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(fromHex('00000001 41'))).toEqual([fromHex('41')]);
    const error = captureError(() => decoder.push(fromHex('00000000')));
    expect(error).toBeInstanceOf(FrameEmptyError);
    expect(error).toMatchObject({ code: 'FRAME_EMPTY', jsonRpcCode: -32600, requirement: 'WT-FRAME-2', offset: 5 });
    expect(decoder.failure).toBeUndefined();
    expect(decoder.push(fromHex('00000001 42'))).toEqual([fromHex('42')]);
    expect(decoder.end()).toEqual([]);
  });

  it('FRAME_EMPTY after good bodies of the same chunk: the bodies first, the error on the next call, then the frames after it', () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(fromHex('00000001 41 00000000 00000001 42'))).toEqual([fromHex('41')]);
    expect(captureError(() => decoder.push(new Uint8Array(0)))).toMatchObject({ code: 'FRAME_EMPTY', offset: 5 });
    expect(decoder.push(new Uint8Array(0))).toEqual([fromHex('42')]);
  });

  it('FRAME_TOO_LARGE as soon as the prefix is in, before any body byte is buffered', () => {
    const decoder = new FrameDecoder({ maxMessageSize: 100 });
    expect(decoder.push(fromHex('00 00'))).toEqual([]);
    expect(decoder.push(fromHex('00'))).toEqual([]);
    const error = captureError(() => decoder.push(fromHex('65')));
    expect(error).toMatchObject({ code: 'FRAME_TOO_LARGE', declaredLength: 101, maxMessageSize: 100, offset: 0 });
    expect(decoder.bufferedBytes).toBe(0);
    expect(decoder.failure).toBe(error);
  });

  it('FRAME_TRUNCATED_LENGTH when input ends inside the prefix', () => {
    const decoder = new FrameDecoder();
    decoder.push(fromHex('00000001 41 0000'));
    const error = captureError(() => decoder.end());
    expect(error).toBeInstanceOf(FrameTruncatedLengthError);
    expect(error).toMatchObject({ code: 'FRAME_TRUNCATED_LENGTH', receivedPrefixBytes: 2, offset: 5, jsonRpcCode: -32700, requirement: 'WT-FRAME-5' });
  });

  it('FRAME_TRUNCATED_BODY when input ends inside the body', () => {
    const decoder = new FrameDecoder();
    decoder.push(fromHex('00000005 4142'));
    const error = captureError(() => decoder.end());
    expect(error).toBeInstanceOf(FrameTruncatedBodyError);
    expect(error).toMatchObject({ code: 'FRAME_TRUNCATED_BODY', declaredLength: 5, receivedBodyBytes: 2, offset: 0, jsonRpcCode: -32700, requirement: 'WT-FRAME-5' });
  });

  it("'skip' mode: push() defers an error that follows good bodies to the next call, then goes on", () => {
    const decoder = new FrameDecoder({ maxMessageSize: 4, afterLengthError: 'skip' });
    expect(decoder.push(fromHex('00000001 41  00000009 0102'))).toEqual([fromHex('41')]);
    const error = captureError(() => decoder.push(fromHex('030405060708 09 00000001 42')));
    expect(error).toMatchObject({ code: 'FRAME_TOO_LARGE', offset: 5, declaredLength: 9 });
    expect(decoder.push(fromHex('00000001 43'))).toEqual([fromHex('42'), fromHex('43')]);
    expect(decoder.end()).toEqual([]);
    expect(decoder.failure).toBeUndefined();
    expect(() => new FrameDecoder({ afterLengthError: 'ignore' as 'skip' })).toThrow(WireOptionError);
  });

  it("'skip' mode: end() returns bodies left unread after a deferred error", () => {
    const decoder = new FrameDecoder({ maxMessageSize: 4, afterLengthError: 'skip' });
    expect(decoder.push(fromHex('00000001 41 00000000 00000001 42'))).toEqual([fromHex('41')]);
    expect(captureError(() => decoder.end())).toMatchObject({ code: 'FRAME_EMPTY', offset: 5 });
    expect(decoder.end()).toEqual([fromHex('42')]);
  });

  it('returns bodies that do not alias the pushed chunks', () => {
    const chunk = fromHex('00000002 4142');
    const [body] = new FrameDecoder().push(chunk);
    chunk.fill(0);
    expect(toHex(body!)).toBe('4142');
  });

  it('property: any chunking of a concatenation of frames yields the same bodies', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (bodies, cuts) => {
          const stream = concat(bodies.map((b) => encodeFrame(b)));
          const decoder = new FrameDecoder();
          const out = chunked(stream, cuts).flatMap((chunk) => decoder.push(chunk));
          decoder.end();
          expect(out).toEqual(bodies);
          expect(decoder.bufferedBytes).toBe(0);
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });

  it('property: an oversized prefix is rejected on the chunk completing it, buffering at most 3 of its bytes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
        fc.integer({ min: 1, max: 2 ** 32 - 1 }),
        fc.uint8Array({ maxLength: 64 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (max, good, excess, tail, cuts) => {
          const declared = Math.min(max + excess, 2 ** 32 - 1);
          const prefix = new Uint8Array(4);
          new DataView(prefix.buffer).setUint32(0, declared);
          const goodFrames = concat(good.map((b) => encodeFrame(b)));
          const stream = concat([goodFrames, prefix, tail]);
          const rejectAt = goodFrames.length + 4; // stream position just past the bad prefix
          const decoder = new FrameDecoder({ maxMessageSize: Math.max(max, 20) });
          if (declared <= decoder.maxMessageSize) return;
          let consumed = 0;
          let thrown: unknown;
          for (const chunk of chunked(stream, cuts)) {
            try {
              decoder.push(chunk);
            } catch (error) {
              thrown = error;
              break;
            }
            consumed += chunk.length;
            expect(consumed).toBeLessThan(rejectAt);
            // Only a whole good frame (at most 4 + 20 bytes) or part of the bad prefix is ever held.
            expect(decoder.bufferedBytes).toBeLessThanOrEqual(4 + 20);
          }
          expect(thrown).toBeInstanceOf(FrameTooLargeError);
          expect((thrown as FrameTooLargeError).offset).toBe(goodFrames.length);
          expect(decoder.bufferedBytes).toBe(0);
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });

  it('property: arbitrary bytes in arbitrary chunks only ever raise WireErrors', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 10 }), fc.integer({ min: 1, max: 64 }), (bytes, cuts, max) => {
        const decoder = new FrameDecoder({ maxMessageSize: max });
        try {
          for (const chunk of chunked(bytes, cuts)) {
            decoder.push(chunk);
            expect(decoder.bufferedBytes).toBeLessThanOrEqual(4 + max);
          }
          decoder.end();
        } catch (error) {
          expect(error).toBeInstanceOf(WireError);
        }
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
