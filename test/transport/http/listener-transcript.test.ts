// What the Streamable HTTP listener keeps of requests it refuses before any session (issue 17
// item 2): their size, hash and why, never their bodies, in a ring.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHttp, type HttpListener } from '../../../src/transport/http/index.js';

let listener: HttpListener;
beforeAll(async () => {
  listener = await listenHttp({ onSession: () => undefined, transcript: { maxEntries: 50 } });
});
afterAll(async () => {
  await listener.close();
});

async function post(body: string): Promise<number> {
  const response = await fetch(listener.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
  await response.arrayBuffer();
  return response.status;
}

describe('the listener transcript', () => {
  it('keeps no body of a refused request: only its size, SHA-256 and why, in a ring', async () => {
    const large = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(1024 * 1024) } });
    for (let i = 0; i < 60; i++) expect(await post(large)).toBe(400);
    const entries = listener.transcript.entries();
    expect(entries.length).toBeLessThanOrEqual(50);
    for (const entry of entries.filter((e) => e.byteLength > 0)) {
      expect(entry.decoded).toBeUndefined();
      expect(entry.hex ?? '').toBe('');
      expect(entry.byteLength).toBe(Buffer.byteLength(large));
      expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(entries.some((entry) => entry.note === 'refused with 400: Bad Request: Mcp-Session-Id header is required')).toBe(true);
    // 60 MB were refused; what is kept of them is a few kilobytes.
    expect(JSON.stringify(entries).length).toBeLessThan(50 * 1024);
  });
});
