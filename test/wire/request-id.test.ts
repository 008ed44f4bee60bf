// The one readable JSON-RPC request id (src/wire/request-id.ts) every transport and the mock
// server's session use: a string, or an integer JSON and CBOR carry exactly.
import { describe, expect, it } from 'vitest';
import { isReadableId } from '../../src/wire/index.js';

describe('isReadableId', () => {
  it('reads strings and integers up to 2^53 - 1 in magnitude', () => {
    for (const id of ['', 'a', '7', 0, 1, -1, 4_294_967_296, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
      expect(isReadableId(id), JSON.stringify(id)).toBe(true);
    }
  });

  it('reads no fraction, no integer past 2^53, no null and nothing else', () => {
    for (const id of [0.5, 1e308, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, {}, [1], 1n]) {
      expect(isReadableId(id), String(id)).toBe(false);
    }
  });
});
