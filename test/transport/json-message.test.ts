import { describe, expect, it } from 'vitest';
import { ConnectionError } from '../../src/transport/errors.js';
import { decodeJsonBody, encodeJsonMessage } from '../../src/transport/json-message.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('JSON messages for JSON-only transports', () => {
  it('encodes with the wire JSON codec and reports what cannot be encoded as a typed error', () => {
    expect(new TextDecoder().decode(encodeJsonMessage({ jsonrpc: '2.0', id: 1, method: 'ping' }))).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    expect(() => encodeJsonMessage({ id: 10n })).toThrow(ConnectionError);
    expect(() => encodeJsonMessage({ id: 10n })).toThrow(/cannot be encoded as JSON/);
  });

  it('decodes, or says why not with the JSON-RPC code to answer', () => {
    expect(decodeJsonBody(bytes('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(decodeJsonBody(bytes(' \r\n\t'))).toMatchObject({ ok: false, failure: { code: 'EMPTY_BODY', jsonRpcCode: -32700 } });
    expect(decodeJsonBody(bytes('{"a":'))).toMatchObject({ ok: false, failure: { code: 'INVALID_JSON', jsonRpcCode: -32700 } });
    expect(decodeJsonBody(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatchObject({ ok: false, failure: { code: 'INVALID_UTF8' } });
    expect(decodeJsonBody(bytes('\ufeff{}'))).toMatchObject({ ok: false, failure: { code: 'INVALID_JSON', message: /byte order mark/ } });
  });
});
