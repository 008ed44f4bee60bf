// Session admission and end: Origin (001 §9) before the session opens, the session limit,
// `$/shutdown` (001 §7), and datagrams (001 §2.3) with and without support.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cborCodec, encodeDatagram } from '../../../src/wire/index.js';
import { probeWebTransportSession } from '../../../src/transport/webtransport/probe.js';
import type { WebTransportServer } from '../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { answerTo, connect, connectReady, HOLD, LIVENESS_MS, respond, startServer } from './helpers.js';

const servers: WebTransportServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function server(options: Parameters<typeof startServer>[0] = {}) {
  const sessions: WebTransportSessionConnection[] = [];
  const started = await startServer({
    ...options,
    onConnection: (connection) => {
      sessions.push(connection);
      respond(connection);
    },
  });
  servers.push(started);
  return { server: started, sessions };
}

describe('Origin is checked before the session is accepted', () => {
  let fixture: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    fixture = await server({ origins: { allow: ['https://app.example'], allowMissing: false } });
  });

  it('refuses a foreign Origin with 403 and opens no session', async () => {
    const { status } = await probeWebTransportSession(fixture.server.url, {
      origin: 'https://evil.example',
      certificateHash: fixture.server.certificateHash,
      timeoutMs: LIVENESS_MS,
    });
    expect(status).toBe(403);
    expect(fixture.server.refusals()).toContainEqual(expect.objectContaining({ status: 403, reason: 'origin', origin: 'https://evil.example' }));
    expect(fixture.sessions).toHaveLength(0);
    expect(fixture.server.activeSessions).toBe(0);
  });

  it('refuses a missing Origin when allowMissing is false', async () => {
    const { status } = await probeWebTransportSession(fixture.server.url, { certificateHash: fixture.server.certificateHash, timeoutMs: LIVENESS_MS });
    expect(status).toBe(403);
  });

  it('accepts an allowed Origin', async () => {
    const { status } = await probeWebTransportSession(fixture.server.url, {
      origin: 'https://app.example',
      certificateHash: fixture.server.certificateHash,
      timeoutMs: LIVENESS_MS,
    });
    expect(status).toBe(200);
  });

  it('refuses the library client, whose Origin is its host name, with a typed error', async () => {
    await expect(connect(fixture.server)).rejects.toMatchObject({ name: 'SessionRefusedError' });
  });

  it('answers another path with 404', async () => {
    const { status } = await probeWebTransportSession(fixture.server.url.replace('/mcp', '/other'), {
      origin: 'https://app.example',
      certificateHash: fixture.server.certificateHash,
      timeoutMs: LIVENESS_MS,
    });
    expect(status).toBe(404);
  });
});

describe('an empty Origin (issue 17 item 8)', () => {
  it('is refused with 403 like a foreign one (as over Streamable HTTP), while a missing Origin is accepted', async () => {
    const fixture = await server();
    const empty = await probeWebTransportSession(fixture.server.url, { origin: '', certificateHash: fixture.server.certificateHash, timeoutMs: LIVENESS_MS });
    expect(empty.status).toBe(403);
    expect(fixture.server.refusals()).toContainEqual(expect.objectContaining({ status: 403, reason: 'origin', origin: '' }));
    const missing = await probeWebTransportSession(fixture.server.url, { certificateHash: fixture.server.certificateHash, timeoutMs: LIVENESS_MS });
    expect(missing.status).toBe(200);
  });
});

describe('handshake deadline and idle expiry (issue 17 items 3, 4)', () => {
  it('closes a session that never sends initialize, so idle sessions cannot hold every slot', async () => {
    // The second client must be refused while the first still holds the slot, and the client
    // learns the refusal's status with a second request (the library drops it; client.ts,
    // describeConnectFailure): the deadline leaves room for both on a loaded machine. With 300 ms
    // the full test run once saw the first session closed before that second request, which then
    // got a session (ConnectFailedError instead of a 429).
    const fixture = await server({ maxSessions: 1, limits: { handshakeTimeoutMs: 2_000 } });
    const idle = await connect(fixture.server);
    await expect(connect(fixture.server)).rejects.toMatchObject({ name: 'SessionRefusedError', status: 429 });
    const closed = await idle.closed;
    expect(fixture.sessions[0]!.transcript.entries().some((entry) => entry.note === 'closing: no initialize handshake within 2000 ms')).toBe(true);
    expect(closed.initiator).toBe('remote');
    // The slot is free again: the next client gets a session and completes its handshake.
    const next = await connectReady(fixture.server);
    await next.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect((await answerTo(next, 7)).message).toMatchObject({ id: 7, result: {} });
    await next.close();
  });

  it('leaves a session that completed its handshake open past the handshake deadline', async () => {
    // The deadline leaves the handshake room on a loaded machine: with 100 ms, a full test run once
    // saw the session closed before its initialized notification was read. The wait ends past the
    // deadline counted from before the connect, so the timer has fired by then.
    const deadlineMs = 2_000;
    const fixture = await server({ limits: { handshakeTimeoutMs: deadlineMs } });
    const started = Date.now();
    const client = await connectReady(fixture.server);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + deadlineMs + 300 - Date.now())));
    expect(client.isClosed).toBe(false);
    await client.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    expect((await answerTo(client, 8)).message).toMatchObject({ id: 8, result: {} });
    await client.close();
  });

  it('closes a session nothing crossed for idleTimeoutMs, but not while a request is in flight', async () => {
    const fixture = await server({ limits: { idleTimeoutMs: 200 } });
    const quiet = await connectReady(fixture.server);
    await quiet.closed;
    expect(fixture.sessions[0]!.transcript.entries().some((entry) => entry.note === 'closing: idle for 200 ms')).toBe(true);
    const busy = await connectReady(fixture.server);
    await busy.send({ jsonrpc: '2.0', id: 9, method: HOLD });
    // Several idle periods pass while the request is in flight.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(busy.isClosed).toBe(false);
    await busy.close();
  });
});

describe('global session limit', () => {
  it('refuses sessions beyond maxSessions with 429', async () => {
    const fixture = await server({ maxSessions: 1 });
    const first = await connect(fixture.server);
    await expect(connect(fixture.server)).rejects.toMatchObject({ name: 'SessionRefusedError', status: 429 });
    // (The client asks a second time, with a bare CONNECT, to learn the status the library drops.)
    const reasons = fixture.server.refusals().map((refusal) => refusal.reason);
    expect(reasons.length).toBeGreaterThan(0);
    expect(new Set(reasons)).toEqual(new Set(['session-limit']));
    expect(fixture.server.activeSessions).toBe(1);
    await first.close();
  });
});

describe('$/shutdown (001 §7)', () => {
  it('drains an open execution stream, then closes the session on both ends', async () => {
    // The server's drain deadline outlasts any lag between its $/shutdown and the stream's FIN.
    const fixture = await server({ limits: { drainTimeoutMs: LIVENESS_MS } });
    const client = await connectReady(fixture.server);
    const serverConnection = fixture.sessions.at(-1)!;
    await client.send({ jsonrpc: '2.0', id: 1, method: HOLD });
    // An outgoing server stream for request 1 (in flight: the responder never answers HOLD).
    const outgoing = await serverConnection.webtransport.openExecutionStream({ requestId: 1, streamTag: 1 });
    await outgoing.write(new TextEncoder().encode('tail of a transfer'));
    const incoming = await client.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
    const read = new Response(incoming.readable).text();

    const shutdown = client.webtransport.shutdown({ drainTimeoutMs: LIVENESS_MS });
    const seen = await serverConnection.next((received) => (received.message as { method?: string }).method === '$/shutdown', {
      timeoutMs: LIVENESS_MS,
    });
    expect(seen.message).toEqual({ jsonrpc: '2.0', method: '$/shutdown' });
    // Both sides stop opening streams once shutdown started.
    await expect(serverConnection.webtransport.openExecutionStream({ requestId: 1, streamTag: 2 })).rejects.toMatchObject({
      code: 'INVALID_STATE',
    });
    await expect(client.webtransport.openExecutionStream({ requestId: 1, streamTag: 3 })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(client.isClosed).toBe(false);
    await outgoing.close();
    expect(await read).toBe('tail of a transfer');
    await shutdown;
    expect(client.isClosed).toBe(true);
    await serverConnection.closed;
    const notes = client.transcript.entries().map((entry) => entry.note ?? '');
    expect(notes.indexOf('execution streams drained')).toBeGreaterThan(-1);
    // Closed after the drain: by this side, or by the server that drained in turn (each waits a moment for the other).
    expect(notes.findIndex((note) => note.startsWith('closing: shutdown') || note.startsWith('session closed by remote'))).toBeGreaterThan(
      notes.indexOf('execution streams drained'),
    );
  });

  it('closes the client too when the server sends $/shutdown', async () => {
    const fixture = await server();
    const client = await connectReady(fixture.server);
    const serverConnection = fixture.sessions.at(-1)!;
    await serverConnection.webtransport.shutdown({ drainTimeoutMs: LIVENESS_MS });
    await client.closed;
    expect(client.isClosed).toBe(true);
    expect(serverConnection.isClosed).toBe(true);
    expect(client.transcript.entries().some((entry) => entry.note?.startsWith('$/shutdown received'))).toBe(true);
  });
});

describe('datagrams (001 §2.3)', () => {
  it('delivers a progress datagram with its payload decoded in the negotiated encoding', async () => {
    const fixture = await server();
    const client = await connectReady(fixture.server);
    const serverConnection = fixture.sessions.at(-1)!;
    await client.send({ jsonrpc: '2.0', id: 42, method: HOLD });
    await serverConnection.webtransport.sendDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 0.5 }) });
    const datagram = await client.webtransport.nextDatagram(undefined, { timeoutMs: LIVENESS_MS });
    expect(datagram).toMatchObject({ channel: 1, flags: 0, requestId: 42, decoded: { progress: 0.5 } });
    await client.close();
  });

  it('refuses to send locally, and answers received datagrams with -32004, when datagrams are not supported', async () => {
    const fixture = await server({ datagramsSupported: false });
    const client = await connectReady(fixture.server);
    expect(client.webtransport.serverCapabilities?.datagramsSupported).toBe(false);
    await expect(client.webtransport.sendDatagram({ channel: 1, requestId: 1, payload: new Uint8Array(1) })).rejects.toMatchObject({
      code: 'DATAGRAMS_NOT_SUPPORTED',
    });
    const serverConnection = fixture.sessions.at(-1)!;
    await expect(serverConnection.webtransport.sendDatagram({ channel: 1, requestId: 1, payload: new Uint8Array(1) })).rejects.toMatchObject({
      code: 'DATAGRAMS_NOT_SUPPORTED',
    });
    // The raw path sends anyway (what a harness does to test a server).
    await client.webtransport.sendRawDatagram(encodeDatagram({ channel: 1, requestId: 1, payload: new Uint8Array([0xa0]) }));
    const refusal = await answerTo(client, null);
    expect(refusal.message).toMatchObject({ error: { code: -32004 } });
    await client.close();
  });

  it('drops malformed datagrams, and datagrams for requests not in flight, without answering', async () => {
    const fixture = await server();
    const client = await connectReady(fixture.server);
    const serverConnection = fixture.sessions.at(-1)!;
    await client.webtransport.sendRawDatagram(new Uint8Array([0x00, 0x00, 0, 0, 0, 1])); // reserved channel
    await client.webtransport.sendRawDatagram(new Uint8Array([0x01, 0x00, 0, 0])); // too short
    await client.webtransport.sendRawDatagram(encodeDatagram({ channel: 1, requestId: 77, payload: new Uint8Array([0xa0]) })); // not in flight
    await client.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    const next = await client.next(undefined, { timeoutMs: LIVENESS_MS });
    expect(next.message).toMatchObject({ id: 5, result: {} }); // no error answers came before it
    const codes = () => serverConnection.faults().map((fault) => fault.code);
    // Datagrams are unordered with the control stream: wait (liveness only) until all three were seen.
    await expect
      .poll(() => new Set(codes()), { timeout: LIVENESS_MS })
      .toEqual(new Set(['DATAGRAM_RESERVED_CHANNEL', 'DATAGRAM_TOO_SHORT', 'DATAGRAM_NOT_IN_FLIGHT']));
    expect(serverConnection.pending()).toEqual([]);
    await client.close();
  });
});
