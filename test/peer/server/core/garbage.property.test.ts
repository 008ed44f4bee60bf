// Whatever a client sends, the server keeps its session: after any sequence of generated
// garbage (raw lines, arbitrary JSON, near-miss JSON-RPC messages) it still answers ping, and
// everything it sent is a well-formed JSON-RPC message.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startRaw } from './harness.js';

const methods = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/read', 'resources/list', 'prompts/get', 'logging/setLevel',
  'notifications/cancelled', '$/cancel', 'notifications/initialized', 'completion/complete', 'no/such'];

const nearMiss = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.jsonValue()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.jsonValue()),
    method: fc.oneof(fc.constantFrom(...methods), fc.jsonValue()),
    params: fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom('name', 'uri', 'level', 'cursor', 'requestId', 'arguments', 'protocolVersion'), fc.jsonValue())),
    result: fc.jsonValue(),
    error: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

const item = fc.oneof(
  nearMiss.map((m) => ({ kind: 'message' as const, value: m as unknown })),
  fc.jsonValue().map((v) => ({ kind: 'message' as const, value: v as unknown })),
  fc.array(nearMiss, { maxLength: 4 }).map((v) => ({ kind: 'message' as const, value: v as unknown })),
  fc.string({ maxLength: 60 }).map((s) => ({ kind: 'raw' as const, value: s.replace(/\n/g, ' ') + '\n' })),
);

function wellFormed(message: unknown): boolean {
  if (Array.isArray(message)) return message.length > 0 && message.every(wellFormed);
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  if (m['jsonrpc'] !== '2.0') return false;
  if (typeof m['method'] === 'string') return true;
  const id = m['id'];
  if (!(id === null || typeof id === 'string' || Number.isInteger(id))) return false;
  if (('result' in m) === ('error' in m)) return false;
  if ('error' in m) {
    const e = m['error'] as Record<string, unknown>;
    return Number.isInteger(e['code']) && typeof e['message'] === 'string' && e['message'] !== '';
  }
  return typeof m['result'] === 'object' && m['result'] !== null && !Array.isArray(m['result']);
}

describe('mock server robustness', () => {
  it('answers ping after any garbage, and sends only well-formed messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 12 }), async (items) => {
        const session = startRaw();
        try {
          for (const entry of items) {
            if (entry.kind === 'raw') await session.client.sendRaw(new TextEncoder().encode(entry.value));
            else await session.client.send(entry.value);
          }
          const id = '\u0000final-ping\u0000';
          await session.client.send({ jsonrpc: '2.0', id, method: 'ping' });
          const answer = await session.next((m) => m['id'] === id);
          expect(answer).toEqual({ jsonrpc: '2.0', id, result: {} });
          for (const sent of session.pending()) expect(wellFormed(sent), JSON.stringify(sent)).toBe(true);
        } finally {
          await session.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
