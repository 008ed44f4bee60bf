// Execution streams (001 §2.2, §5, §9): correlation with in-flight requests, the stream limit,
// ref/stream references, and a large stream that does not block the control stream.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebTransportServer } from '../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { answerTo, connectReady, HOLD, LIVENESS_MS, respond, startServer } from './helpers.js';

const MAX_STREAMS = 3;
/** Streams and references that do arrive get a liveness-sized grace (a loaded machine may lag). */
let server: WebTransportServer;
/** Short graces, for the refusals of streams and references that never arrive. */
let strict: WebTransportServer;
const serverSide: WebTransportSessionConnection[] = [];

function startFixture(graceMs: number): Promise<WebTransportServer> {
  return startServer({
    limits: { maxConcurrentStreams: MAX_STREAMS, streamCorrelationGraceMs: graceMs, streamReferenceGraceMs: graceMs },
    onConnection: (connection) => {
      serverSide.push(connection);
      respond(connection); // HOLD requests (uploads here) stay in flight
    },
  });
}

beforeAll(async () => {
  [server, strict] = await Promise.all([startFixture(LIVENESS_MS), startFixture(200)]);
});
afterAll(async () => {
  await Promise.all([server?.close(), strict?.close()]);
});

describe('stream correlation (Stream Injection, -32002)', () => {
  it('refuses a stream whose header names a request that is not in flight', async () => {
    const client = await connectReady(strict);
    const injected = await client.webtransport.openExecutionStream({ requestId: 4242, streamTag: 1 });
    await injected.write(new Uint8Array(100));
    const refusal = await answerTo(client, null);
    expect(refusal.message).toMatchObject({ error: { code: -32002, data: { requestId: 4242, streamTag: 1 } } });
    const serverConnection = serverSide.at(-1)!;
    expect(serverConnection.faults().map((fault) => fault.code)).toContain('STREAM_INJECTION');
    await expect(serverConnection.webtransport.nextExecutionStream(undefined, { timeoutMs: 50 })).rejects.toMatchObject({ code: 'CONNECTION_TIMEOUT' });
    await client.close();
  });

  it('accepts a stream for a request in flight and delivers its payload after the header', async () => {
    const client = await connectReady(server);
    await client.send({ jsonrpc: '2.0', id: 11, method: HOLD });
    const stream = await client.webtransport.openExecutionStream({ requestId: 11, streamTag: 2 });
    await stream.write(new TextEncoder().encode('hello, '));
    await stream.write(new TextEncoder().encode('stream'));
    await stream.close();
    const serverConnection = serverSide.at(-1)!;
    const incoming = await serverConnection.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
    expect(incoming.header).toEqual({ requestId: 11, streamTag: 2 });
    const text = await new Response(incoming.readable).text();
    expect(text).toBe('hello, stream');
    expect(serverConnection.faults()).toEqual([]);
    await client.close();
  });

  it('refuses a stream whose header is cut short (fewer than 8 bytes)', async () => {
    const client = await connectReady(server);
    const raw = await client.webtransport.openRawStream(new Uint8Array([0, 0, 0]));
    await raw.close();
    const refusal = await answerTo(client, null);
    expect(refusal.message).toMatchObject({ error: { code: -32600, data: { wireCode: 'EXEC_HEADER_TRUNCATED' } } });
    await client.close();
  });
});

describe('maxConcurrentStreams (Stream Limit Exceeded, -32000)', () => {
  it('refuses the stream one over the limit', async () => {
    const client = await connectReady(server);
    await client.send({ jsonrpc: '2.0', id: 20, method: HOLD });
    const open = [];
    for (let tag = 1; tag <= MAX_STREAMS; tag++) {
      const stream = await client.webtransport.openExecutionStream({ requestId: 20, streamTag: tag });
      open.push(stream);
    }
    const serverConnection = serverSide.at(-1)!;
    for (let i = 0; i < MAX_STREAMS; i++) await serverConnection.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
    const extra = await client.webtransport.openExecutionStream({ requestId: 20, streamTag: MAX_STREAMS + 1 });
    await extra.write(new Uint8Array(10));
    const refusal = await answerTo(client, null);
    expect(refusal.message).toMatchObject({ error: { code: -32000, data: { requestId: 20, streamTag: MAX_STREAMS + 1 } } });
    expect(serverConnection.faults().map((fault) => fault.code)).toEqual(['STREAM_LIMIT_EXCEEDED']);
    await client.close();
  });
});

describe('ref/stream references (Invalid Stream Reference, -32001)', () => {
  it('answers a request referencing a stream tag that was never opened', async () => {
    const client = await connectReady(strict);
    await client.send({
      jsonrpc: '2.0',
      id: 30,
      method: 'tools/call',
      params: { name: 'store', arguments: { data: { type: 'ref/stream', streamTag: 9 } } },
    });
    const refusal = await answerTo(client, 30);
    expect(refusal.message).toMatchObject({ id: 30, error: { code: -32001 } });
    await client.close();
  });
});

describe('a large execution stream does not block the control stream (001 §5)', () => {
  it('moves 200 MB, hashed on both ends, while pings keep being answered', async () => {
    const TOTAL = 200 * 1024 * 1024;
    const CHUNK = 256 * 1024;
    const client = await connectReady(server);
    await client.send({ jsonrpc: '2.0', id: 100, method: HOLD });
    const outgoing = await client.webtransport.openExecutionStream({ requestId: 100, streamTag: 1 });
    const serverConnection = serverSide.at(-1)!;
    const incoming = await serverConnection.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });

    const receivedHash = (async () => {
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of incoming.readable) {
        hash.update(chunk);
        bytes += chunk.byteLength;
      }
      return { digest: hash.digest('hex'), bytes };
    })();

    let sending = true;
    const sent = (async () => {
      const hash = createHash('sha256');
      const chunk = new Uint8Array(CHUNK);
      for (let offset = 0, n = 0; offset < TOTAL; offset += CHUNK, n++) {
        // Generated content: a different byte pattern per chunk, never the whole payload in memory.
        chunk.fill(n & 0xff);
        chunk[0] = (n >> 8) & 0xff;
        hash.update(chunk);
        await outgoing.write(chunk.slice());
      }
      await outgoing.close();
      sending = false;
      return hash.digest('hex');
    })();

    let pingsAnsweredDuringTransfer = 0;
    for (let id = 1000; sending; id++) {
      await client.send({ jsonrpc: '2.0', id, method: 'ping' });
      await answerTo(client, id);
      if (sending) pingsAnsweredDuringTransfer++;
    }
    const [sentDigest, received] = await Promise.all([sent, receivedHash]);
    expect(received.bytes).toBe(TOTAL);
    expect(received.digest).toBe(sentDigest);
    expect(pingsAnsweredDuringTransfer).toBeGreaterThan(0);
    const payloadEntry = serverConnection.transcript.entries().find((entry) => entry.note?.startsWith('payload') && entry.channel.kind === 'stream');
    expect(payloadEntry?.byteLength).toBe(TOTAL);
    await client.close();
  }, 180_000);
});
