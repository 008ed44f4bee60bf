// The judge's rule tables name catalog requirements only, and the proxy judges exactly what they
// name (its rule lists are derived from them, never kept by hand).
import { describe, expect, it } from 'vitest';
import {
  ENVELOPE_REQUIREMENTS,
  envelopeProblems,
  PROMPT_RULE_REQUIREMENTS,
  STREAM_RULES,
  WIRE_FAULT_REQUIREMENTS,
  WT_ENVELOPE_REQUIREMENTS,
  WT_STREAM_RULES,
} from '../../src/judge/index.js';
import { RULE_REQUIREMENTS, WT_RULE_REQUIREMENTS } from '../../src/peer/proxy/index.js';
import { requirements } from '../../src/protocol/requirements.js';

const catalog = requirements();

describe('the rule tables', () => {
  it('name requirements of the catalog', () => {
    const named = [...ENVELOPE_REQUIREMENTS, ...WT_ENVELOPE_REQUIREMENTS, ...PROMPT_RULE_REQUIREMENTS, ...Object.values(STREAM_RULES), ...Object.values(WT_STREAM_RULES), ...WIRE_FAULT_REQUIREMENTS];
    expect(named.filter((id) => !catalog.has(id))).toEqual([]);
  });

  it("are the proxy's rule lists", () => {
    expect(new Set(RULE_REQUIREMENTS)).toEqual(new Set([...ENVELOPE_REQUIREMENTS, ...PROMPT_RULE_REQUIREMENTS, ...Object.values(STREAM_RULES)]));
    expect(new Set(WT_RULE_REQUIREMENTS)).toEqual(new Set([...WT_ENVELOPE_REQUIREMENTS, ...Object.values(WT_STREAM_RULES), ...WIRE_FAULT_REQUIREMENTS]));
  });
});

describe('envelope rules', () => {
  const rows: [string, unknown, { webTransport?: boolean }, string[], boolean][] = [
    ['a request', { jsonrpc: '2.0', id: 1, method: 'ping' }, {}, [], true],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, {}, [], true],
    ['a result', { jsonrpc: '2.0', id: 'a', result: {} }, {}, [], true],
    ['an error', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, {}, [], true],
    ['not an object', [1], {}, ['CORE-RPC-1'], false],
    ['another jsonrpc', { jsonrpc: '1.0', id: 1, method: 'ping' }, {}, ['CORE-RPC-1'], false],
    ['positional params', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }, {}, ['CORE-RPC-2'], false],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, {}, ['CORE-RPC-3'], false],
    ['a string id on WebTransport', { jsonrpc: '2.0', id: 'a', method: 'ping' }, { webTransport: true }, ['WT-ID-1'], true],
    ['neither method nor id', { jsonrpc: '2.0', result: {} }, {}, ['CORE-RPC-5'], false],
    ['both result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }, {}, ['CORE-RPC-5'], false],
    ['an error without a message', { jsonrpc: '2.0', id: 1, error: { code: -32600 } }, {}, ['CORE-RPC-7'], false],
    ['an array result', { jsonrpc: '2.0', id: 1, result: [] }, {}, ['CORE-RPC-14'], false],
  ];
  it.each(rows)('%s', (_name, message, options, expected, readable) => {
    const envelope = envelopeProblems(message, options);
    expect(envelope.problems.map((p) => p.requirement)).toEqual(expected);
    expect(envelope.readable).toBe(readable);
  });
});
