// The binding's accepted readings (readings.ts) over loopback HTTP/2: every switch of the
// 'alternate' preset changes what a client observes from the 'recommended' one, and each
// alternate observation is the accepted reading the profile names (docs/profile.md §4, §5).
import { afterEach, describe, expect, it } from 'vitest';
import { bindingReadings, type WtBindingReadings } from '../../../src/transport/webtransport/readings.js';
import type { WebTransportServer, WebTransportServerOptions } from '../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { initializeSession } from '../../../src/transport/webtransport/client.js';
import { probeWebTransportSession } from '../../../src/transport/webtransport/probe.js';
import { cborCodec, encodeDatagram, encodeFrame, jsonCodec } from '../../../src/wire/index.js';
import { answerTo, connect, connectReady, HOLD, LIVENESS_MS, respond, startServer } from './helpers.js';

type Message = { id?: unknown; method?: unknown; result?: unknown; error?: { code?: number; data?: unknown } };

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((item) => item.close()));
});

/** A listener taking `readings` whose sessions are answered by `respond`; the server sides are kept. */
async function listener(readings: Partial<WtBindingReadings> | 'alternate' | 'recommended', options: WebTransportServerOptions = {}) {
  const sides: WebTransportSessionConnection[] = [];
  const preset = typeof readings === 'string' ? bindingReadings(readings) : bindingReadings('recommended', readings);
  const server: WebTransportServer = await startServer({
    ...options,
    readings: preset,
    onConnection: (connection) => {
      sides.push(connection);
      respond(connection);
    },
  });
  opened.push(server);
  return { server, sides };
}

function track<T extends { close(): Promise<void> }>(client: T): T {
  opened.push(client);
  return client;
}

function describeReply(message: unknown): string {
  const reply = message as Message;
  if (reply.error !== undefined) return `error ${reply.error.code} id ${String(reply.id)}`;
  return reply.result !== undefined ? `result id ${String(reply.id)}` : `not a response: ${JSON.stringify(message)}`;
}

/** The first reply, or 'closed' when the session ends first. */
async function firstReplyOrClosed(client: WebTransportSessionConnection): Promise<string> {
  return client.next(undefined, { timeoutMs: LIVENESS_MS }).then(
    (received) => describeReply(received.message),
    () => 'closed',
  );
}

/** Polls `check` until it holds (liveness only). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + LIVENESS_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('liveness deadline passed');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What two listeners, one per preset, show for the same probe. */
async function bothReadings(
  probe: (server: WebTransportServer, sides: readonly WebTransportSessionConnection[]) => Promise<string>,
  options?: WebTransportServerOptions,
): Promise<{ recommended: string; alternate: string }> {
  const first = await listener('recommended', options);
  const recommended = await probe(first.server, first.sides);
  const second = await listener('alternate', options);
  const alternate = await probe(second.server, second.sides);
  return { recommended, alternate };
}

/** Resolves once the server side recorded a fault whose code starts with `prefix`. */
function faultRecorded(sides: readonly WebTransportSessionConnection[], prefix: string): Promise<void> {
  return until(() => sides.some((side) => side.faults().some((fault) => fault.code.startsWith(prefix))));
}

/** Resolves once the server side read a control message with this id. */
function messageRead(sides: readonly WebTransportSessionConnection[], id: unknown): Promise<void> {
  return until(() => sides.some((side) => side.transcript.entries().some((entry) => (entry.decoded as Message | undefined)?.id === id)));
}

/** An initialize request; `transport` null leaves params.transport out. */
function initialize(id: number, transport: Record<string, unknown> | null = { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] }) {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readings-test', version: '1' }, ...(transport ? { transport } : {}) } };
}

describe('WT-CONN-4: before READY', () => {
  it('a request first: -32600 echoing its id (session kept), or -32601 and the session closes', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connect(server));
      await client.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
      const reply = await firstReplyOrClosed(client);
      const closed = await Promise.race([client.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000))]);
      return `${reply}, ${closed ? 'closed' : 'kept open'}`;
    });
    expect(seen).toEqual({ recommended: 'error -32600 id 5, kept open', alternate: 'error -32601 id 5, closed' });
  });

  it('a ping first: refused, or answered with its result', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connect(server));
      await client.send({ jsonrpc: '2.0', id: 6, method: 'ping' });
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'error -32600 id 6', alternate: 'result id 6' });
  });

  it('a notification first: never answered; ignored, or the session closes', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connect(server));
      await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const closed = await Promise.race([client.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_500))]);
      if (closed) return 'closed';
      await client.send(initialize(1));
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'result id 1', alternate: 'closed' });
  });

  it('a request written with initialize: refused, or served once READY after the initialize result', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connect(server));
      await client.sendRaw(new Uint8Array([...encodeFrame(jsonCodec.encode(initialize(1))), ...encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))]));
      const first = await firstReplyOrClosed(client);
      const second = await firstReplyOrClosed(client);
      return `${first}; ${second}`;
    });
    expect(seen).toEqual({ recommended: 'error -32600 id 2; result id 1', alternate: 'result id 1; result id 2' });
  });
});

describe('WT-FRAME-2, -5, -7: frames', () => {
  it('a zero-length frame: -32600 or -32700, id null', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connectReady(server));
      await client.sendRaw(new Uint8Array([0, 0, 0, 0]));
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'error -32600 id null', alternate: 'error -32700 id null' });
  });

  it('the control stream ending inside a frame: -32700, or closing without an answer', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connectReady(server));
      await client.sendRaw(new Uint8Array([0, 0]));
      await client.webtransport.endControlStream();
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'error -32700 id null', alternate: 'closed' });
  });

  it('after an oversized frame: the session closes, or the body is skipped and the next frame served', async () => {
    const seen = await bothReadings(
      async (server) => {
        const client = track(await connectReady(server, { raw: true }));
        const oversized = encodeFrame(cborCodec.encode({ jsonrpc: '2.0', id: 3, method: 'ping', params: { padding: 'x'.repeat(4096) } }));
        await client.sendRaw(new Uint8Array([...oversized, ...encodeFrame(cborCodec.encode({ jsonrpc: '2.0', id: 4, method: 'ping' }))]));
        const first = await firstReplyOrClosed(client);
        const second = await firstReplyOrClosed(client);
        return `${first}; ${second}`;
      },
      { limits: { maxMessageSize: 1024 } },
    );
    expect(seen).toEqual({ recommended: 'error -32600 id null; closed', alternate: 'error -32600 id null; result id 4' });
  });
});

describe('WT-ENC-5, -7 and WT-INIT-5, -6: encodings and transport parameters', () => {
  it('a CBOR initialize: -32003, or -32700 (malformed JSON), id null', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connect(server));
      await client.sendRaw(encodeFrame(cborCodec.encode(initialize(1))));
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'error -32003 id null', alternate: 'error -32700 id null' });
  });

  it('JSON after CBOR was negotiated: -32003 with id null, or echoing the id', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connectReady(server));
      await client.sendRaw(encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', id: 7, method: 'ping' })));
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'error -32003 id null', alternate: 'error -32003 id 7' });
  });

  it('no offered encoding supported: json selected, or initialize refused with -32602', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connect(server));
      await client.send(initialize(1, { type: 'mcp-flow', version: '0.1', encodings: ['x-unknown'] }));
      const reply = (await answerTo(client, 1)).message as Message & { result?: { transport?: { encoding?: string } } };
      return reply.result ? `selected ${reply.result.transport?.encoding}` : describeReply(reply);
    });
    expect(seen).toEqual({ recommended: 'selected json', alternate: 'error -32602 id 1' });
  });

  it('another transport.version: answered, or refused with -32600; no transport: served with defaults, or refused with -32600', async () => {
    const seen = await bothReadings(async (server) => {
      const other = track(await connect(server));
      await other.send(initialize(1, { type: 'mcp-flow', version: '9.9' }));
      const none = track(await connect(server));
      await none.send(initialize(1, null));
      return `${describeReply((await answerTo(other, 1)).message)}; ${describeReply((await answerTo(none, 1)).message)}`;
    });
    expect(seen).toEqual({ recommended: 'result id 1; result id 1', alternate: 'error -32600 id 1; error -32600 id 1' });
  });
});

describe('WT-EXEC-1, -2, -3: client streams', () => {
  it('a stream too short for its header: reported with -32600, or dropped silently', async () => {
    const seen = await bothReadings(async (server, sides) => {
      const client = track(await connectReady(server));
      const stream = await client.webtransport.openRawStream(new Uint8Array([0, 0, 1]));
      await stream.close();
      await faultRecorded(sides, 'EXEC_HEADER_TRUNCATED');
      await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'error -32600 id null', alternate: 'result id 9' });
  });

  it('an injected stream: stopped and reported, or reported while its payload is read and discarded', async () => {
    const seen = await bothReadings(
      async (server) => {
        const client = track(await connectReady(server));
        const stream = await client.webtransport.openExecutionStream({ requestId: 4242, streamTag: 1 });
        await stream.write(new Uint8Array(10));
        const report = describeReply((await answerTo(client, null)).message);
        let stopped = false;
        for (const deadline = Date.now() + 5_000; Date.now() < deadline && !stopped; ) {
          await stream.write(new Uint8Array(1024)).catch(() => (stopped = true));
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        return `${report}, ${stopped ? 'stopped' : 'written on'}`;
      },
      { limits: { streamCorrelationGraceMs: 100 } },
    );
    expect(seen).toEqual({ recommended: 'error -32002 id null, stopped', alternate: 'error -32002 id null, written on' });
  });

  it('a request naming a stream that never comes: -32001, or the item ignored and the request served', async () => {
    const seen = await bothReadings(
      async (server) => {
        const client = track(await connectReady(server));
        await client.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { content: [{ type: 'ref/stream', streamTag: 9 }] } });
        return describeReply((await answerTo(client, 5)).message);
      },
      { limits: { streamReferenceGraceMs: 100 } },
    );
    expect(seen).toEqual({ recommended: 'error -32001 id 5', alternate: 'result id 5' });
  });
});

describe('WT-DGRAM-1..6: datagrams', () => {
  it('a datagram too short: dropped silently, or reported (id null)', async () => {
    const seen = await bothReadings(async (server, sides) => {
      const client = track(await connectReady(server));
      await client.webtransport.sendRawDatagram(new Uint8Array([1, 0, 0]));
      await faultRecorded(sides, 'DATAGRAM_TOO_SHORT');
      await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
      return firstReplyOrClosed(client);
    });
    expect(seen).toEqual({ recommended: 'result id 9', alternate: 'error -32600 id null' });
  });

  it('non-zero flags: dropped, or taken with the flags ignored', async () => {
    for (const readings of ['recommended', 'alternate'] as const) {
      const { server, sides } = await listener(readings);
      const client = track(await connectReady(server));
      await client.send({ jsonrpc: '2.0', id: 42, method: HOLD });
      await messageRead(sides, 42);
      await client.webtransport.sendRawDatagram(encodeDatagram({ channel: 0x01, flags: 0x80, requestId: 42, payload: cborCodec.encode({ progress: 1 }) }));
      const taken = await sides[0]!.webtransport.nextDatagram(undefined, { timeoutMs: 1_000 }).then(
        (datagram) => `taken with flags ${datagram.flags}`,
        () => 'dropped',
      );
      expect(taken, readings).toBe(readings === 'recommended' ? 'dropped' : 'taken with flags 128');
    }
  });

  it('after datagramsSupported: false: -32004 with id null, or answering the request it names', async () => {
    const seen = await bothReadings(
      async (server, sides) => {
        const client = track(await connectReady(server, { raw: true }));
        await client.send({ jsonrpc: '2.0', id: 42, method: HOLD });
        await messageRead(sides, 42);
        await client.webtransport.sendRawDatagram(encodeDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 1 }) }));
        return firstReplyOrClosed(client);
      },
      { datagramsSupported: false },
    );
    expect(seen).toEqual({ recommended: 'error -32004 id null', alternate: 'error -32004 id 42' });
  });

  it('progress payloads: the params, or the whole notification', async () => {
    for (const readings of ['recommended', 'alternate'] as const) {
      const { server, sides } = await listener(readings);
      const client = track(await connectReady(server));
      await client.send({ jsonrpc: '2.0', id: 42, method: HOLD });
      await messageRead(sides, 42);
      await sides[0]!.webtransport.sendDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 1 }) });
      const datagram = await client.webtransport.nextDatagram(undefined, { timeoutMs: LIVENESS_MS });
      expect(datagram.decoded, readings).toEqual(readings === 'recommended' ? { progress: 1 } : { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
    }
  });
});

describe('WT-ID-2, -3: ids the headers cannot carry', () => {
  it('a string id: served, or refused with -32600; an integer above 2^32-1: refused echoing it, or served; a fraction: refused with id null', async () => {
    const seen = await bothReadings(async (server) => {
      const client = track(await connectReady(server));
      const replies: string[] = [];
      for (const id of ['text-id', 2 ** 32, 1.5]) {
        await client.send({ jsonrpc: '2.0', id, method: 'ping' });
        replies.push(describeReply((await client.next(undefined, { timeoutMs: LIVENESS_MS })).message));
      }
      return replies.join('; ');
    });
    expect(seen).toEqual({
      recommended: 'result id text-id; error -32600 id 4294967296; error -32600 id null',
      alternate: 'error -32600 id text-id; result id 4294967296; error -32600 id null',
    });
  });
});

describe('WT-CANCEL-2: the code answering a $/cancelled request', () => {
  it('-32000 as 001 §6 shows, or another code (-32800)', async () => {
    for (const readings of ['recommended', 'alternate'] as const) {
      const { server, sides } = await listener(readings);
      const client = track(await connectReady(server));
      await client.send({ jsonrpc: '2.0', id: 11, method: HOLD });
      await client.send({ jsonrpc: '2.0', method: '$/cancel', params: { requestId: 11 } });
      await sides[0]!.next((r) => (r.message as Message).method === '$/cancel', { timeoutMs: LIVENESS_MS });
      // The layer above answers the cancelled request with -32000 "Cancelled" (as the mock server's core does).
      await sides[0]!.send({ jsonrpc: '2.0', id: 11, error: { code: -32000, message: 'Cancelled' } });
      expect(describeReply((await answerTo(client, 11)).message), readings).toBe(readings === 'recommended' ? 'error -32000 id 11' : 'error -32800 id 11');
    }
  });
});

describe('WT-SEC-1, -5: Origin', () => {
  it('a foreign Origin: 403, or another 4xx; no Origin: accepted, or refused', async () => {
    const seen = await bothReadings(async (server) => {
      const foreign = await probeWebTransportSession(server.url, { origin: 'https://attacker.invalid', certificateHash: server.certificateHash, timeoutMs: LIVENESS_MS });
      const none = await probeWebTransportSession(server.url, { certificateHash: server.certificateHash, timeoutMs: LIVENESS_MS });
      return `${foreign.status}; ${none.status}`;
    });
    expect(seen).toEqual({ recommended: '403; 200', alternate: '400; 400' });
  });
});

describe('initializeSession against the alternate readings', () => {
  it('still initializes (the client offers a supported encoding and sends transport)', async () => {
    const { server } = await listener('alternate');
    const client = track(await connect(server));
    const { transport } = await initializeSession(client, { timeoutMs: LIVENESS_MS });
    expect(transport?.encoding).toBe('cbor');
  });
});
