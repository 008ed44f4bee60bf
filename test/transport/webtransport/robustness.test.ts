// What a peer cannot do to the process or to the harness: wrong certificates, resets observed,
// buffering bounded, HTTP/3 asked for without the addon.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSignedCertificate } from '../../../src/transport/webtransport/tls.js';
import { connectWebTransport, initializeSession } from '../../../src/transport/webtransport/client.js';
import { isHttp3Available } from '../../../src/transport/webtransport/library.js';
import { listenWebTransport, type WebTransportServer } from '../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { answerTo, connectReady, HOLD, LIVENESS_MS, respond, startServer } from './helpers.js';

const http3Available = await isHttp3Available();
let server: WebTransportServer;
const serverSide: WebTransportSessionConnection[] = [];

beforeAll(async () => {
  server = await startServer({
    onConnection: (connection) => {
      serverSide.push(connection);
      respond(connection);
    },
  });
});
afterAll(async () => {
  await server.close();
});

describe('certificate pinning', () => {
  it('refuses a server whose certificate does not match the pinned hash', async () => {
    await expect(connectWebTransport(server.url, { certificateHash: '00'.repeat(32), timeoutMs: LIVENESS_MS })).rejects.toMatchObject({
      name: 'TlsConfigError',
    });
  });

  it('verifies the server against a CA file, and refuses one signed by another', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wt-ca-'));
    try {
      await writeFile(join(dir, 'right.pem'), server.tls.certPem);
      await writeFile(join(dir, 'wrong.pem'), (await generateSelfSignedCertificate()).certPem);
      const client = await connectWebTransport(server.url, { caFile: join(dir, 'right.pem'), timeoutMs: LIVENESS_MS });
      try {
        expect(client.webtransport.state).toBe('CONTROL_STREAM_OPENED');
      } finally {
        await client.close();
      }
      await expect(connectWebTransport(server.url, { caFile: join(dir, 'wrong.pem'), timeoutMs: LIVENESS_MS })).rejects.toMatchObject({
        name: 'TlsConfigError',
        message: expect.stringContaining('does not verify against the given CA'),
      });
      await expect(connectWebTransport(server.url, { caFile: join(dir, 'absent.pem') })).rejects.toMatchObject({ name: 'TlsConfigError' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a URL that is not https', async () => {
    await expect(connectWebTransport(server.url.replace('https:', 'http:'))).rejects.toMatchObject({ code: 'INVALID_URL' });
  });
});

describe('execution stream resets', () => {
  it('errors the receiver with StreamResetError when the sender aborts mid-transfer', async () => {
    const client = await connectReady(server);
    await client.send({ jsonrpc: '2.0', id: 5, method: HOLD });
    const serverConnection = serverSide.at(-1)!;
    const outgoing = await serverConnection.webtransport.openExecutionStream({ requestId: 5, streamTag: 1 });
    await outgoing.write(new Uint8Array(1000));
    const incoming = await client.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
    await outgoing.abort('disk went away');
    const reader = incoming.readable.getReader();
    let failure: unknown;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'STREAM_RESET', requestId: 5, streamTag: 1 });
    await client.close();
  });
});

describe('bounded buffering', () => {
  it('stops reading the control stream while untaken messages exceed maxPendingBytes, and resumes', async () => {
    const small = await startServer({ tls: server.tls, limits: { maxPendingBytes: 2048 } });
    try {
      const client = await connectWebTransport(small.url, { certificateHash: small.certificateHash, timeoutMs: LIVENESS_MS });
      const serverConnection = await small.nextConnection({ timeoutMs: LIVENESS_MS });
      respondOnce(serverConnection);
      await initializeSession(client, { sendInitialized: false, timeoutMs: LIVENESS_MS });
      const padding = 'x'.repeat(8000);
      for (let id = 1; id <= 20; id++) await client.send({ jsonrpc: '2.0', id, method: 'note', params: { padding } });
      const framesRead = () =>
        serverConnection.transcript.entries().filter((entry) => entry.direction === 'received' && entry.channel.kind === 'control').length;
      // Give the server every chance to read on (bounded); it must stay paused well short of 21 frames.
      for (let i = 0; i < 50 && framesRead() < 21; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(framesRead()).toBeLessThan(10);
      for (let id = 1; id <= 20; id++) {
        const received = await serverConnection.next(undefined, { timeoutMs: LIVENESS_MS });
        expect((received.message as { id: number }).id).toBe(id);
      }
      expect(framesRead()).toBe(21);
      await client.close();
    } finally {
      await small.close();
    }
  });
});

/** Answers the initialize request, then leaves every later message queued. */
function respondOnce(connection: WebTransportSessionConnection): void {
  void connection.next(undefined, { timeoutMs: LIVENESS_MS }).then((received) =>
    connection.send({ jsonrpc: '2.0', id: (received.message as { id: number }).id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 't', version: '1' }, transport: connection.negotiate() } }),
  );
}

describe('HTTP/3', () => {
  it.skipIf(http3Available)('without the native addon, asking for HTTP/3 fails with Http3UnavailableError saying how to get it', async () => {
    await expect(listenWebTransport({ http: 3 })).rejects.toMatchObject({
      code: 'HTTP3_UNAVAILABLE',
      message: expect.stringContaining('@fails-components/webtransport-transport-http3-quiche'),
    });
    await expect(connectWebTransport('https://127.0.0.1:1/mcp', { http: 3 })).rejects.toMatchObject({ code: 'HTTP3_UNAVAILABLE' });
  });

  describe.skipIf(!http3Available)('over HTTP/3 (skipped: @fails-components/webtransport-transport-http3-quiche is not installed)', () => {
    it('initializes, switches to CBOR and answers a ping', async () => {
      const h3 = await startServer({ http: 3, tls: server.tls, onConnection: respond });
      try {
        const client = await connectWebTransport(h3.url, { http: 3, certificateHash: h3.certificateHash, timeoutMs: LIVENESS_MS });
        const { initializeSession } = await import('../../../src/transport/webtransport/client.js');
        await initializeSession(client, { timeoutMs: LIVENESS_MS });
        expect(client.webtransport.httpVersion).toBe(3);
        expect(client.webtransport.encoding).toBe('cbor');
        await client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
        expect((await answerTo(client, 1)).encoding).toBe('cbor');
        await client.close();
      } finally {
        await h3.close();
      }
    });
  });
});
