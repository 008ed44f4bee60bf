// Between two WebTransport legs the proxy forwards what is not on the control stream: an execution
// stream carrying a tool result's bytes (the result's ref/stream follows it), and progress
// datagrams, with zero violations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPair, type Pair } from './support.js';
import { formatViolation } from '../../../src/peer/proxy/index.js';
import { connectWebTransport, initializeSession, type WebTransportSessionConnection } from '../../../src/transport/webtransport/index.js';

const DEADLINE_MS = 20_000;

describe('execution streams and datagrams through a wt -> wt proxy', () => {
  let pair: Pair;
  let client: WebTransportSessionConnection;

  beforeAll(async () => {
    // The mock server's default: progress travels in datagrams.
    pair = await startPair('wt', { server: {} });
    client = await connectWebTransport(pair.proxy.url, { certificateHash: pair.proxy.certificateHash!, timeoutMs: DEADLINE_MS });
    const { transport } = await initializeSession(client, { timeoutMs: DEADLINE_MS });
    expect(transport?.encoding).toBe('cbor');
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await pair?.close();
  });

  it('a download: the execution stream arrives whole and the result references it', async () => {
    const bytes = 200_000;
    await client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'download', arguments: { bytes } } });
    const stream = await client.webtransport.nextExecutionStream((s) => s.header.requestId === 1, { timeoutMs: DEADLINE_MS });
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream.readable) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    expect(body.byteLength).toBe(bytes);
    expect(body.every((byte, index) => byte === index % 256)).toBe(true);
    const answer = await client.next((m) => (m.message as { id?: unknown }).id === 1, { timeoutMs: DEADLINE_MS });
    expect(answer.message).toMatchObject({ result: { content: [{ type: 'ref/stream', streamTag: stream.header.streamTag }] } });
  });

  it('progress datagrams of a slow tool reach the client with their request id', async () => {
    await client.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { steps: 3, stepMs: 5 }, _meta: { progressToken: 'p2' } } });
    const datagram = await client.webtransport.nextDatagram((d) => d.requestId === 2 && d.channel === 0x01, { timeoutMs: DEADLINE_MS });
    expect(datagram.decoded).toMatchObject({ progress: expect.any(Number) });
    await client.next((m) => (m.message as { id?: unknown }).id === 2, { timeoutMs: DEADLINE_MS });
  });

  it('judged the whole session without a violation', async () => {
    await client.close();
    await Promise.all(pair.proxy.sessions().map((session) => session.ended));
    expect(pair.proxy.violations().map(formatViolation)).toEqual([]);
    const notes = pair.proxy.record.transcript.entries().map((entry) => entry.note ?? '');
    expect(notes.some((note) => /execution stream 1\/\d+ \(200000 bytes, FIN\)/.test(note))).toBe(true);
    expect(notes.some((note) => note.endsWith(' datagram'))).toBe(true);
  });
});

describe.each([
  ['send-reserved-datagram-channel', 'WT-DGRAM-2'],
  ['nonzero-datagram-flags', 'WT-DGRAM-3'],
])('a server with %s: the datagrams the proxy could not take are reported', (fault, requirement) => {
  it(`cites ${requirement}`, async () => {
    const pair = await startPair('wt', { server: {}, faults: [fault] });
    try {
      const client = await connectWebTransport(pair.proxy.url, { certificateHash: pair.proxy.certificateHash!, timeoutMs: DEADLINE_MS });
      try {
        await initializeSession(client, { timeoutMs: DEADLINE_MS });
        await client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { steps: 3, stepMs: 5 }, _meta: { progressToken: 'p' } } });
        await client.next((m) => (m.message as { id?: unknown }).id === 1, { timeoutMs: DEADLINE_MS });
      } finally {
        await client.close();
      }
      await Promise.all(pair.proxy.sessions().map((session) => session.ended));
      expect(pair.proxy.violations().map((violation) => violation.requirement)).toContain(requirement);
    } finally {
      await pair.close();
    }
  }, 60_000);
});
