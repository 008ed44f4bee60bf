// Property: whatever garbage a client sends (undecodable bodies, empty frames, JSON that is not
// JSON-RPC, requests for unknown methods, stray responses), the server still answers ping, on
// every transport.
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../../../src/peer/server/index.js';
import type { Connection } from '../../../../src/transport/connection.js';
import { connectWebTransport, initializeSession } from '../../../../src/transport/webtransport/index.js';
import { openRaw, DEADLINE, type Message } from './support.js';

/** One piece of garbage: raw bytes or a JSON value that is no valid request of a known method. */
type Garbage = { kind: 'bytes'; bytes: Uint8Array } | { kind: 'message'; value: unknown };

const notJsonRpc = fc.jsonValue({ maxDepth: 3 }).filter((value) => !(typeof value === 'object' && value !== null && 'method' in value));
const junkRequest = fc.record({
  jsonrpc: fc.constantFrom('2.0', '1.0', 2),
  id: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()),
  method: fc.string({ maxLength: 12 }).map((name) => `x/${name}`),
  params: fc.jsonValue({ maxDepth: 2 }),
});
const junkNotification = fc.record({ jsonrpc: fc.constant('2.0'), method: fc.string({ maxLength: 12 }).map((name) => `notifications/x${name}`), params: fc.jsonValue({ maxDepth: 2 }) });
const strayResponse = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer({ min: 500_000, max: 900_000 }), result: fc.jsonValue({ maxDepth: 2 }) });

const garbage: fc.Arbitrary<Garbage> = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({ kind: 'bytes' as const, bytes })),
  fc.oneof(notJsonRpc, junkRequest, junkNotification, strayResponse).map((value) => ({ kind: 'message' as const, value })),
);

/** How each transport carries one piece of garbage. */
type Sender = (connection: Connection, piece: Garbage) => Promise<void>;

function framed(body: Uint8Array): Uint8Array {
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length);
  frame.set(body, 4);
  return frame;
}

const lineSafe = (bytes: Uint8Array) => Uint8Array.from(bytes, (byte) => (byte === 0x0a ? 0x20 : byte));

let pings = 0;
async function pingAnswered(connection: Connection): Promise<void> {
  const id = `ping-${++pings}`;
  await connection.send({ jsonrpc: '2.0', id, method: 'ping' });
  const { message } = await connection.next((r) => (r.message as Message)?.id === id, DEADLINE);
  expect(message).toEqual({ jsonrpc: '2.0', id, result: {} });
}

async function property(connection: Connection, send: Sender): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(garbage, { minLength: 1, maxLength: 8 }), async (pieces) => {
      for (const piece of pieces) await send(connection, piece);
      await pingAnswered(connection);
    }),
    { numRuns: 25 },
  );
  expect(connection.isClosed).toBe(false);
}

describe('garbage, then ping is still answered', () => {
  const servers: RunningMockServer[] = [];
  beforeAll(async () => {
    servers.push(await startMockServer({ transport: 'wt' }));
    servers.push(await startMockServer({ transport: 'http', fastworkflow: false }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('over WebTransport (whole frames with garbage bodies, JSON garbage)', async () => {
    const server = servers[0]!;
    const connection = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    await initializeSession(connection, { encodings: ['json'], timeoutMs: DEADLINE.timeoutMs });
    await property(connection, async (c, piece) => {
      if (piece.kind === 'message') await c.send(piece.value);
      else await c.sendRaw(framed(piece.bytes));
    });
    await connection.close();
  });

  it('over WebTransport, an empty frame is answered -32600 and the session goes on; a frame that loses sync (an oversized prefix) is answered -32600 and ends only that session', async () => {
    const server = servers[0]!;
    const first = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    await initializeSession(first, { encodings: ['json'], timeoutMs: DEADLINE.timeoutMs });
    await first.sendRaw(new Uint8Array(4));
    const empty = await first.next((r) => (r.message as Message)?.error !== undefined, DEADLINE);
    expect(empty.message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    await pingAnswered(first);
    await first.sendRaw(new Uint8Array([0xff, 0xff, 0xff, 0xff]));
    const oversized = await first.next((r) => (r.message as Message)?.error !== undefined, DEADLINE);
    expect(oversized.message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    await first.closed;
    const second = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    await initializeSession(second, { timeoutMs: DEADLINE.timeoutMs });
    await pingAnswered(second);
    await second.close();
  });

  it('over Streamable HTTP (garbage POST bodies, JSON garbage)', async () => {
    const client = await openRaw(servers[1]!);
    await property(client.connection, async (c, piece) => {
      if (piece.kind === 'message') await c.send(piece.value);
      else await c.sendRaw(piece.bytes);
    });
    await client.connection.close();
  });

  it('over stdio (garbage lines, JSON garbage)', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const server = await startMockServer({ transport: 'stdio', stdio: { stdin, stdout } });
    servers.push(server);
    // A client end over the same streams: what the server writes is read back line by line.
    const received: Message[] = [];
    const waiters = new Set<() => void>();
    let buffer = '';
    stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        received.push(JSON.parse(buffer.slice(0, at)) as Message);
        buffer = buffer.slice(at + 1);
      }
      for (const wake of waiters) wake();
    });
    const write = (text: string | Uint8Array) => new Promise<void>((resolve) => stdin.write(text, () => resolve()));
    const call = async (message: Message) => {
      await write(JSON.stringify(message) + '\n');
      while (!received.some((m) => m.id === message.id && !('method' in m))) await new Promise<void>((resolve) => waiters.add(resolve));
      return received.find((m) => m.id === message.id && !('method' in m))!;
    };
    await call({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    await fc.assert(
      fc.asyncProperty(fc.array(garbage, { minLength: 1, maxLength: 8 }), async (pieces) => {
        for (const piece of pieces) {
          if (piece.kind === 'message') await write(JSON.stringify(piece.value) + '\n');
          else await write(Buffer.concat([lineSafe(piece.bytes), Buffer.from('\n')]));
        }
        const id = `ping-${++pings}`;
        expect(await call({ jsonrpc: '2.0', id, method: 'ping' })).toEqual({ jsonrpc: '2.0', id, result: {} });
      }),
      { numRuns: 25 },
    );
    stdin.end();
    await server.done;
  });
});
