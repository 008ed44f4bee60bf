import { describe, expect, it } from 'vitest';
import { classifyMessage, decodeJsonBody } from '../../../src/transport/http/json-body.js';

describe('decodeJsonBody', () => {
  it('decodes UTF-8 JSON', () => {
    expect(decodeJsonBody(new TextEncoder().encode('{"a":"é"}'))).toEqual({ ok: true, value: { a: 'é' } });
  });

  it.each([
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 'INVALID_UTF8'],
    ['a BOM', new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 'INVALID_JSON'],
    ['truncated JSON', new TextEncoder().encode('{"a":'), 'INVALID_JSON'],
    ['an empty body', new Uint8Array(0), 'EMPTY_BODY'],
  ])('refuses %s with a parse error', (_what, body, code) => {
    const result = decodeJsonBody(body);
    expect(result).toMatchObject({ ok: false, failure: { code, jsonRpcCode: -32700 } });
  });
});

describe('classifyMessage', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 1, method: 'm' }, { kind: 'request', id: 1, method: 'm' }],
    [{ jsonrpc: '2.0', id: null, method: 'm' }, { kind: 'request', id: null, method: 'm' }],
    [{ jsonrpc: '2.0', method: 'n' }, { kind: 'notification', method: 'n' }],
    [{ jsonrpc: '2.0', id: 'x', result: {} }, { kind: 'response', id: 'x' }],
    [{ jsonrpc: '2.0', id: 2, error: { code: 1, message: '' } }, { kind: 'response', id: 2 }],
    [{ jsonrpc: '1.0', id: 3, method: 'm' }, { kind: 'invalid', id: 3 }],
    [{ jsonrpc: '2.0', id: { no: 1 }, method: 'm' }, { kind: 'invalid', id: null }],
    [{ jsonrpc: '2.0', id: 4, method: 5 }, { kind: 'invalid', id: 4 }],
    [{ jsonrpc: '2.0', id: 5 }, { kind: 'invalid', id: 5 }],
    [[1], { kind: 'invalid', id: null }],
    ['text', { kind: 'invalid', id: null }],
  ])('%j is %j', (value, expected) => {
    expect(classifyMessage(value)).toMatchObject(expected);
  });
});
