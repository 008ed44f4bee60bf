import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EXEC_HEADER_BYTES,
  ExecHeaderDecoder,
  ExecHeaderTruncatedError,
  IdOutOfRangeError,
  WireError,
  decodeExecHeader,
  encodeExecHeader,
  fromHex,
  toHex,
} from '../../src/wire/index.js';
import { captureError, chunked, concat } from './arbitraries.js';

describe('execution stream header', () => {
  it('matches seed 001 section 2.2: request 42, tag 1', () => {
    expect(toHex(encodeExecHeader({ requestId: 42, streamTag: 1 }))).toBe('0000002a00000001');
    expect(decodeExecHeader(fromHex('00 00 00 2A 00 00 00 01 ff'))).toEqual({ requestId: 42, streamTag: 1 });
    expect(EXEC_HEADER_BYTES).toBe(8);
  });

  it('ID_OUT_OF_RANGE for ids that are not integers in 0..2^32-1', () => {
    for (const [requestId, streamTag] of [[-1, 0], [2 ** 32, 0], [1.5, 0], [0, Number.NaN], [0, '1' as unknown as number]]) {
      const error = captureError(() => encodeExecHeader({ requestId: requestId!, streamTag: streamTag! }));
      expect(error).toBeInstanceOf(IdOutOfRangeError);
      expect(error).toMatchObject({ code: 'ID_OUT_OF_RANGE', jsonRpcCode: -32600, requirement: 'WT-ID-1' });
    }
    expect(toHex(encodeExecHeader({ requestId: 2 ** 32 - 1, streamTag: 0 }))).toBe('ffffffff00000000');
  });

  it('EXEC_HEADER_TRUNCATED for fewer than 8 bytes', () => {
    const error = captureError(() => decodeExecHeader(fromHex('0000002a000000')));
    expect(error).toBeInstanceOf(ExecHeaderTruncatedError);
    expect(error).toMatchObject({ code: 'EXEC_HEADER_TRUNCATED', receivedBytes: 7, jsonRpcCode: -32600, requirement: 'WT-EXEC-1' });
  });

  it('the decoder reports a stream that ends inside the header', () => {
    const decoder = new ExecHeaderDecoder();
    expect(decoder.push(fromHex('000000'))).toBeUndefined();
    expect(captureError(() => decoder.end())).toMatchObject({ code: 'EXEC_HEADER_TRUNCATED', receivedBytes: 3 });
  });

  it('property: header split across any chunks, payload passed through intact', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 32 - 1 }),
        fc.nat({ max: 2 ** 32 - 1 }),
        fc.uint8Array({ maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (requestId, streamTag, payload, cuts) => {
          const stream = concat([encodeExecHeader({ requestId, streamTag }), payload]);
          const decoder = new ExecHeaderDecoder();
          const rest: Uint8Array[] = [];
          for (const chunk of chunked(stream, cuts)) {
            const out = decoder.push(chunk);
            if (out) {
              expect(out.header).toEqual({ requestId, streamTag });
              rest.push(out.rest);
            }
          }
          decoder.end();
          expect(decoder.header).toEqual({ requestId, streamTag });
          expect(concat(rest)).toEqual(payload);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: arbitrary bytes only raise WireErrors', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
        try {
          decodeExecHeader(bytes);
          expect(bytes.length).toBeGreaterThanOrEqual(8);
        } catch (error) {
          expect(error).toBeInstanceOf(WireError);
        }
      }),
      { numRuns: 100 },
    );
  });
});
