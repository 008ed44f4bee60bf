import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Transcript, type TranscriptChannel } from '../../src/transport/transcript.js';

const clock = () => {
  let now = 1_700_000_000_000;
  return () => now++;
};

describe('Transcript', () => {
  it('numbers entries, stamps them with the clock and keeps bytes as hex', () => {
    const transcript = new Transcript({ now: clock() });
    const first = transcript.record({ direction: 'sent', channel: { kind: 'control' }, bytes: new Uint8Array([0, 1, 0xab]), decoded: { a: 1 } });
    const second = transcript.event('state READY');
    expect(first).toEqual({ seq: 0, at: 1_700_000_000_000, direction: 'sent', channel: { kind: 'control' }, byteLength: 3, hex: '0001ab', decoded: { a: 1 } });
    expect(second).toEqual({ seq: 1, at: 1_700_000_000_001, direction: 'local', channel: { kind: 'session' }, byteLength: 0, note: 'state READY' });
  });

  it('keeps only maxHexBytes of hex and marks the entry truncated', () => {
    const transcript = new Transcript({ maxHexBytes: 4 });
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6]);
    const entry = transcript.record({ direction: 'received', channel: { kind: 'stdio', fd: 'stdout' }, bytes });
    expect(entry).toMatchObject({ byteLength: 6, hex: '01020304', truncated: true });
    const exact = transcript.record({ direction: 'received', channel: { kind: 'control' }, bytes: bytes.subarray(2, 6) });
    expect(exact.hex).toBe('03040506');
    expect(exact.truncated).toBeUndefined();
  });

  it('counts bytes it was told about without keeping them', () => {
    const entry = new Transcript().record({ direction: 'received', channel: { kind: 'stream', streamId: 3 }, byteLength: 1_000_000 });
    expect(entry.byteLength).toBe(1_000_000);
    expect(entry.hex).toBeUndefined();
  });

  it('drops the oldest entries beyond maxEntries and counts them', () => {
    const transcript = new Transcript({ maxEntries: 3 });
    for (let i = 0; i < 5; i++) transcript.event(`e${i}`);
    expect(transcript.entries().map((entry) => entry.note)).toEqual(['e2', 'e3', 'e4']);
    expect(transcript.entries().map((entry) => entry.seq)).toEqual([2, 3, 4]);
    expect(transcript.dropped).toBe(2);
  });

  it('keeps a message over maxMessageBytes as its size, SHA-256, first bytes and summary, never decoded', () => {
    const transcript = new Transcript({ maxMessageBytes: 64, maxHexBytes: 8 });
    const message = { jsonrpc: '2.0', id: 3, result: { text: 'x'.repeat(200) } };
    const bytes = new TextEncoder().encode(JSON.stringify(message));
    const entry = transcript.record({ direction: 'received', channel: { kind: 'control' }, bytes, decoded: message });
    expect(entry).toEqual({
      seq: 0,
      at: entry.at,
      direction: 'received',
      channel: { kind: 'control' },
      byteLength: bytes.byteLength,
      hex: Buffer.from(bytes.subarray(0, 8)).toString('hex'),
      truncated: true,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      summary: 'response id 3',
    });
    // Within the limit the message is kept whole, as before.
    const small = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(transcript.record({ direction: 'sent', channel: { kind: 'control' }, bytes: new TextEncoder().encode(JSON.stringify(small)), decoded: small }).decoded).toBe(small);
  });

  it('holds notes to 64 KiB, whatever the message limit', () => {
    const entry = new Transcript({ maxMessageBytes: 0 }).event(`${'n'.repeat(65536)}abcdef`);
    expect(entry.note).toBe(`${'n'.repeat(65536)}… (6 more characters)`);
    expect(new Transcript({ maxMessageBytes: 0 }).event('refused with 400').note).toBe('refused with 400');
  });

  it('is a ring bounded in bytes as well as in entries, and stays fast under a flood', () => {
    const transcript = new Transcript({ maxBytes: 100_000 });
    const bytes = new Uint8Array(1000);
    for (let i = 0; i < 200_000; i++) transcript.record({ direction: 'received', channel: { kind: 'stdio', fd: 'stdout' }, bytes });
    const kept = transcript.entries();
    // Each entry keeps 2000 hex characters: about 45 fit in 100 000 bytes.
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(60);
    expect(kept.at(-1)!.seq).toBe(199_999);
    expect(kept[0]!.seq).toBe(200_000 - kept.length);
    expect(transcript.dropped).toBe(200_000 - kept.length);
  });

  it('by default keeps a flood of 4 KiB messages within its byte bound (32 MiB estimated), not 100000 of them', () => {
    const transcript = new Transcript();
    const message = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(4000) } };
    const bytes = new TextEncoder().encode(JSON.stringify(message));
    for (let i = 0; i < 20_000; i++) transcript.record({ direction: 'received', channel: { kind: 'stdio', fd: 'stdout' }, bytes, decoded: message });
    const kept = transcript.entries();
    const hexChars = kept.reduce((sum, entry) => sum + (entry.hex?.length ?? 0), 0);
    expect(hexChars).toBeLessThan(32 * 1024 * 1024);
    expect(kept.at(-1)!.seq).toBe(19_999);
  });

  it('excerpts the last entries, optionally filtered', () => {
    const transcript = new Transcript();
    for (let i = 0; i < 6; i++) {
      transcript.record({ direction: i % 2 === 0 ? 'sent' : 'received', channel: { kind: 'control' }, note: `n${i}` });
    }
    expect(transcript.excerpt(2).map((entry) => entry.note)).toEqual(['n4', 'n5']);
    expect(transcript.excerpt(2, (entry) => entry.direction === 'sent').map((entry) => entry.note)).toEqual(['n2', 'n4']);
    expect(transcript.excerpt(100)).toHaveLength(6);
    expect(transcript.excerpt(0)).toEqual([]);
  });

  it('round-trips through NDJSON, one entry per line, BigInt written as a string', async () => {
    const transcript = new Transcript({ now: clock() });
    const channels: TranscriptChannel[] = [
      { kind: 'http', method: 'POST', url: 'http://127.0.0.1:1/mcp', status: 200, headers: { 'content-type': 'application/json' } },
      { kind: 'datagram', channel: 1, requestId: 7 },
      { kind: 'stream', streamId: 2, header: { requestId: 7, streamTag: 1 } },
    ];
    for (const channel of channels) {
      transcript.record({ direction: 'received', channel, bytes: new TextEncoder().encode('{"x":"a\\nb"}'), decoded: { x: 'a\nb' } });
    }
    transcript.record({ direction: 'received', channel: { kind: 'control' }, decoded: { big: 2n ** 64n }, error: { code: 'INVALID_JSON', message: 'bad' } });
    const text = transcript.toNdjson();
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd().split('\n')).toHaveLength(4);
    const parsed = Transcript.parseNdjson(text);
    expect(parsed.slice(0, 3)).toEqual(transcript.entries().slice(0, 3));
    expect(parsed[3]!.decoded).toEqual({ big: '18446744073709551616' });

    const dir = await mkdtemp(join(tmpdir(), 'transcript-'));
    try {
      await transcript.writeNdjson(join(dir, 't.ndjson'));
      expect(await readFile(join(dir, 't.ndjson'), 'utf8')).toBe(text);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('round-trips any JSON-shaped decoded value and any bytes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.uint8Array({ maxLength: 64 }), (decoded, bytes) => {
        const transcript = new Transcript({ now: () => 0 });
        transcript.record({ direction: 'sent', channel: { kind: 'control' }, bytes, decoded: decoded ?? undefined });
        const [entry] = Transcript.parseNdjson(transcript.toNdjson());
        // JSON has no -0; everything else survives exactly.
        expect(entry).toEqual(JSON.parse(JSON.stringify(transcript.entries()[0])));
        expect(Buffer.from(entry!.hex!, 'hex')).toEqual(Buffer.from(bytes));
      }),
    );
  });

  it('names the line that is not JSON when parsing NDJSON', () => {
    expect(() => Transcript.parseNdjson('{"seq":0}\n\nnot json\n')).toThrow(/line 3/);
  });
});
