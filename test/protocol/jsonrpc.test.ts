// The message model: guards that sort messages, the id key that keeps an id's JSON type, and the builders.
import { describe, expect, it } from 'vitest';
import { errorOf, errorResponse, idKey, isNotification, isRequest, isRequestId, isResponse, isResponseTo, notification, request, resultResponse } from '../../src/protocol/jsonrpc.js';

describe('guards', () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const answer = { jsonrpc: '2.0', id: 1, result: {} };
  const failure = { jsonrpc: '2.0', id: '1', error: { code: -32601, message: 'Method not found' } };

  it('tell requests, notifications and responses apart', () => {
    expect([ping, note, answer, failure].map((m) => [isRequest(m), isNotification(m), isResponse(m)])).toEqual([
      [true, false, false],
      [false, true, false],
      [false, false, true],
      [false, false, true],
    ]);
    expect(isRequest(ping, 'ping')).toBe(true);
    expect(isRequest(ping, 'tools/list')).toBe(false);
    expect(isNotification(note, 'notifications/cancelled')).toBe(false);
    expect(isRequest({ jsonrpc: '2.0', id: null, method: 'ping' })).toBe(false);
    expect(isResponse('text')).toBe(false);
  });

  it('match an answer to its request by id of the same JSON type', () => {
    expect(isResponseTo(answer, 1)).toBe(true);
    expect(isResponseTo(answer, '1')).toBe(false);
    expect(isResponseTo(failure, '1')).toBe(true);
    expect(isResponseTo(ping, 1)).toBe(false);
    expect(idKey(1)).not.toBe(idKey('1'));
    expect(idKey(1)).toBe(idKey(1));
  });

  it('read ids and errors', () => {
    expect([1, 'a', 1.5, null, undefined, Number.MAX_SAFE_INTEGER + 2].map(isRequestId)).toEqual([true, true, false, false, false, false]);
    expect(errorOf(failure)).toEqual({ code: -32601, message: 'Method not found' });
    expect(errorOf(answer)).toBeUndefined();
  });
});

describe('builders', () => {
  it('build each kind of message, leaving out params that are not given', () => {
    expect(request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(request('a', 'tools/call', { name: 'echo' })).toEqual({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo' } });
    expect(notification('notifications/initialized')).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(resultResponse(3, {})).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(errorResponse(null, -32700, 'Parse error')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(errorResponse(4, -32602, 'Invalid params', { why: 'x' })).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params', data: { why: 'x' } } });
  });
});
