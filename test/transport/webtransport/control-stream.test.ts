// The control stream over loopback HTTP/2: the 001 §1 state machine, the JSON -> CBOR switch at
// the initialize boundary, and the server's refusals (first message, encoding, frame size, bad bodies).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cborCodec, jsonCodec } from '../../../src/wire/index.js';
import type { WebTransportServer } from '../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { answerTo, connect, connectReady, LIVENESS_MS, respond, startServer } from './helpers.js';

const MAX_MESSAGE_SIZE = 64 * 1024;
let server: WebTransportServer;
const serverSide: WebTransportSessionConnection[] = [];

beforeAll(async () => {
  server = await startServer({
    limits: { maxMessageSize: MAX_MESSAGE_SIZE },
    onConnection: (connection) => {
      serverSide.push(connection);
      respond(connection);
    },
  });
});
afterAll(async () => {
  await server.close();
});

function frame(body: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(4 + body.length);
  new DataView(bytes.buffer).setUint32(0, body.length);
  bytes.set(body, 4);
  return bytes;
}

describe('encoding negotiation (001 §3)', () => {
  it('switches to CBOR right after the initialize result, on both ends, visible in the transcript bytes', async () => {
    const client = await connectReady(server);
    expect(client.webtransport.state).toBe('READY');
    expect(client.webtransport.encoding).toBe('cbor');
    expect(client.webtransport.serverCapabilities).toMatchObject({ encoding: 'cbor', maxMessageSize: MAX_MESSAGE_SIZE });
    await client.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    const pong = await answerTo(client, 7);
    expect(pong.encoding).toBe('cbor');

    const control = client.transcript.entries().filter((entry) => entry.channel.kind === 'control' && entry.hex);
    const bodies = control.map((entry) => ({ direction: entry.direction, body: Buffer.from(entry.hex!, 'hex').subarray(4) }));
    // initialize (sent) and its result (received) are JSON text; everything after is CBOR.
    expect(bodies[0]).toMatchObject({ direction: 'sent' });
    expect(jsonCodec.decode(bodies[0]!.body)).toMatchObject({ method: 'initialize' });
    expect(bodies[1]).toMatchObject({ direction: 'received' });
    expect(jsonCodec.decode(bodies[1]!.body)).toMatchObject({ id: 0, result: { transport: { encoding: 'cbor' } } });
    for (const later of bodies.slice(2)) {
      expect(later.body[0]! & 0xe0).toBe(0xa0); // CBOR major type 5 (map), never '{'
      expect(cborCodec.decode(later.body)).toHaveProperty('jsonrpc', '2.0');
    }
    const server1 = serverSide.at(-1)!;
    expect(server1.webtransport.state).toBe('READY');
    expect(server1.webtransport.encoding).toBe('cbor');
    const notes = server1.transcript.entries().map((entry) => entry.note ?? '');
    expect(notes.some((note) => note.includes('INITIALIZING -> READY'))).toBe(true);
    await client.close();
  });

  it('answers a JSON frame after CBOR was negotiated with -32003 and id null, and keeps serving', async () => {
    const client = await connectReady(server);
    await client.sendRaw(frame(jsonCodec.encode({ jsonrpc: '2.0', id: 8, method: 'ping' })));
    expect((await answerTo(client, null)).message).toMatchObject({ id: null, error: { code: -32003 } });
    await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect((await answerTo(client, 9)).message).toMatchObject({ result: {} });
    await client.close();
  });

  it('stays on JSON when the client offers only JSON', async () => {
    const client = await connect(server);
    const { initializeSession } = await import('../../../src/transport/webtransport/client.js');
    const { transport } = await initializeSession(client, { encodings: ['json'], timeoutMs: LIVENESS_MS });
    expect(transport?.encoding).toBe('json');
    await client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await answerTo(client, 2)).encoding).toBe('json');
    await client.close();
  });
});

describe('the first control message (001 §1)', () => {
  it('refuses a non-initialize first message with -32600 and its id, then still accepts initialize', async () => {
    const client = await connect(server);
    expect(client.webtransport.state).toBe('CONTROL_STREAM_OPENED');
    await client.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    const refusal = await answerTo(client, 5);
    expect(refusal.message).toMatchObject({ id: 5, error: { code: -32600 } });
    const serverConnection = serverSide.at(-1)!;
    expect(serverConnection.faults().map((fault) => fault.code)).toContain('FIRST_MESSAGE_NOT_INITIALIZE');
    expect(serverConnection.webtransport.state).toBe('CONTROL_STREAM_OPENED');
    const { initializeSession } = await import('../../../src/transport/webtransport/client.js');
    await initializeSession(client, { timeoutMs: LIVENESS_MS });
    expect(client.webtransport.state).toBe('READY');
    await client.close();
  });

  it('refuses a CBOR-encoded initialize with -32003', async () => {
    const client = await connect(server);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    await client.sendRaw(frame(cborCodec.encode(initialize)));
    const refusal = await answerTo(client, null);
    expect(refusal.message).toMatchObject({ error: { code: -32003 } });
    await client.close();
  });

  it('never answers a notification sent first (JSON-RPC 2.0 §4.1): initialize is the first thing answered', async () => {
    const client = await connect(server);
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const { initializeSession } = await import('../../../src/transport/webtransport/client.js');
    await initializeSession(client, { timeoutMs: LIVENESS_MS });
    expect(client.transcript.entries().filter((entry) => entry.direction === 'received' && entry.channel.kind === 'control').map((entry) => (entry.decoded as { id?: unknown }).id)).toEqual([0]);
    expect(serverSide.at(-1)!.faults().map((fault) => fault.code)).toContain('FIRST_MESSAGE_NOT_INITIALIZE');
    await client.close();
  });
});

describe('binding rules on requests (WT-CONN-4, WT-INIT-2, WT-ID-3)', () => {
  it('refuses anything sent between initialize and its result', async () => {
    const blocking = await startServer({ onConnection: (connection) => serverSide.push(connection) }); // never answers
    try {
      const client = await connect(blocking);
      await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      await client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      expect((await answerTo(client, 2)).message).toMatchObject({ id: 2, error: { code: -32600 } });
      await client.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      expect((await answerTo(client, 3)).message).toMatchObject({ id: 3, error: { code: -32600 } });
      // A ping while initializing is the client's right (WT-CONN-5); anything else is its fault.
      expect(serverSide.at(-1)!.faults().map((fault) => fault.code)).toEqual(['PING_WHILE_INITIALIZING', 'MESSAGE_BEFORE_READY']);
      await client.close();
    } finally {
      await blocking.close();
    }
  });

  it('refuses an initialize whose transport type is not mcp-flow', async () => {
    const client = await connect(server);
    await client.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' }, transport: { type: 'other' } },
    });
    expect((await answerTo(client, 3)).message).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(client.webtransport.state).toBe('CONTROL_STREAM_OPENED'); // initialize answered with an error
    await client.close();
  });

  it('refuses a request id that does not fit 32 bits, echoing the id it read', async () => {
    const client = await connectReady(server);
    await client.send({ jsonrpc: '2.0', id: 2 ** 32, method: 'ping' });
    expect((await answerTo(client, 2 ** 32)).message).toMatchObject({ id: 2 ** 32, error: { code: -32600 } });
    await client.send({ jsonrpc: '2.0', id: 'text-id', method: 'ping' });
    expect((await answerTo(client, 'text-id')).message).toMatchObject({ result: {} }); // WT-ID-2: served
    await client.close();
  });
});

describe('frames (WT-FRAME)', () => {
  it('answers an undecodable frame with the wire error code and keeps serving', async () => {
    const client = await connectReady(server);
    await client.sendRaw(frame(new Uint8Array([0xff, 0xff, 0xff])));
    const parseError = await answerTo(client, null);
    expect(parseError.message).toMatchObject({ id: null, error: { code: -32700 } });
    await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect((await answerTo(client, 9)).message).toMatchObject({ result: {} });
    await client.close();
  });

  it('keeps the client under the advertised maxMessageSize unless it is in raw mode', async () => {
    const client = await connectReady(server);
    const big = { jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'x'.repeat(MAX_MESSAGE_SIZE) } };
    await expect(client.send(big)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'maxMessageSize' });
    await client.close();
  });

  it('refuses a frame over maxMessageSize from its length prefix alone, then closes the session', async () => {
    const client = await connectReady(server);
    const prefix = new Uint8Array(4);
    new DataView(prefix.buffer).setUint32(0, MAX_MESSAGE_SIZE + 1);
    // Only the 4-byte prefix is ever sent: the answer proves no body was waited for or buffered.
    await client.sendRaw(prefix);
    const refusal = await answerTo(client, null);
    expect(refusal.message).toMatchObject({ id: null, error: { code: -32600, data: { wireCode: 'FRAME_TOO_LARGE' } } });
    const info = await client.closed;
    expect(info.initiator).not.toBe('local');
    const serverConnection = serverSide.at(-1)!;
    expect(serverConnection.faults().map((fault) => fault.code)).toContain('FRAME_TOO_LARGE');
  });
});
