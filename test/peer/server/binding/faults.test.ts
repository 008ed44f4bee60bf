// The binding fault catalog (binding-faults.ts): every fault cites a server-side MUST of the catalog, and
// every fault has a probe over loopback HTTP/2 whose observation differs between a correct
// listener and one with that fault switched on.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CORE_FAULTS } from '../../../../src/peer/server/faults.js';
import { initializeSession } from '../../../../src/transport/webtransport/client.js';
import { SessionRefusedError } from '../../../../src/transport/webtransport/errors.js';
import { WEBTRANSPORT_FAULTS, type WebTransportFaultName } from '../../../../src/peer/server/binding-faults.js';
import type { WebTransportServer, WebTransportServerOptions } from '../../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../../src/transport/webtransport/session.js';
import { InvalidStateError } from '../../../../src/transport/errors.js';
import { cborCodec, encodeDatagram, encodeFrame, jsonCodec } from '../../../../src/wire/index.js';
import { answerTo, connect, connectReady, HOLD, LIVENESS_MS, respond, startServer } from '../../../transport/webtransport/helpers.js';

/** A listener under test, its server-side sessions, and the clients a probe opened. */
interface Fixture {
  server: WebTransportServer;
  /** The server side of the first session (answered by `respond` unless the probe says otherwise). */
  peer(): Promise<WebTransportSessionConnection>;
  /** Remembers a client so the fixture closes it. */
  track(client: WebTransportSessionConnection): WebTransportSessionConnection;
}

interface Probe {
  /** Listener options on both runs (the faulty run adds `faults`). */
  listener?: WebTransportServerOptions;
  /** Whether the server side answers requests (`respond`). Default true. */
  respond?: boolean;
  run(fixture: Fixture): Promise<string>;
  /** The observation with no fault on. */
  correct: string;
  /** The observation with the fault on. */
  faulty: string | RegExp;
}

type Message = { id?: unknown; method?: unknown; result?: unknown; error?: { code?: number } };

/**
 * For probes whose client streams must be accepted and, after `$/shutdown`, drained: a stream header
 * that overtakes its request on a loaded machine still finds it (the default grace is 1 s), and the
 * drain waits for the probe's last write (the default deadline is 5 s).
 */
const STREAMS_OUTLAST_LAG: WebTransportServerOptions = { limits: { streamCorrelationGraceMs: LIVENESS_MS, drainTimeoutMs: LIVENESS_MS } };

const ready = (server: WebTransportServer) => connectReady(server);

function initialize(id: number, transport: Record<string, unknown> = { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] }) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'faults-test', version: '1' }, transport },
  };
}

/** "result" or "error <code>" for a response. */
function describeReply(message: unknown): string {
  const reply = message as Message;
  if (reply.error !== undefined) return `error ${reply.error.code}`;
  return reply.result !== undefined ? 'result' : `not a response: ${JSON.stringify(message)}`;
}

/** The first message the client receives. */
async function firstReply(client: WebTransportSessionConnection): Promise<string> {
  return describeReply((await client.next(undefined, { timeoutMs: LIVENESS_MS })).message);
}

/**
 * Polls `check` (liveness only: a generous deadline, never a timing assertion). Gives up once
 * `watched` closes, so a poller that lost a race stops with the probe.
 */
async function until<T>(check: () => T | undefined | false, what: string, watched: WebTransportSessionConnection): Promise<T> {
  const deadline = Date.now() + LIVENESS_MS;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (watched.isClosed) throw new Error(`the session closed while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`liveness deadline passed waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves with a fault's code once the connection recorded a new fault whose code starts with `prefix`. */
function faultSeen(connection: WebTransportSessionConnection, prefix: string, after = 0): Promise<string> {
  return until(() => connection.faults().slice(after).find((fault) => fault.code.startsWith(prefix))?.code, `a ${prefix} fault`, connection);
}

function countFaults(connection: WebTransportSessionConnection, code: string): number {
  return connection.faults().filter((fault) => fault.code === code).length;
}

function noted(connection: WebTransportSessionConnection, prefix: string): Promise<true> {
  return until(() => connection.transcript.entries().some((entry) => entry.note?.startsWith(prefix)) || undefined, `note "${prefix}"`, connection);
}

/** A ping's reply: "cbor" or "json" (the encoding it was read in), or "mismatch" when the client refused it. */
async function pingReplyEncoding(client: WebTransportSessionConnection, id: number): Promise<string> {
  const before = countFaults(client, 'ENCODING_MISMATCH');
  await client.send({ jsonrpc: '2.0', id, method: 'ping' });
  return Promise.race([
    answerTo(client, id).then((received) => String(received.encoding)),
    until(() => countFaults(client, 'ENCODING_MISMATCH') > before, 'an encoding mismatch', client).then(() => 'mismatch'),
  ]);
}

/**
 * Sends a ping and lists what arrived before its reply: whatever the server answered an earlier
 * event with (once it has seen that event) went out on the control stream before this reply.
 */
async function repliesBeforePing(client: WebTransportSessionConnection): Promise<string> {
  await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
  const seen: string[] = [];
  for (;;) {
    const received = await client.next(undefined, { timeoutMs: LIVENESS_MS });
    if ((received.message as Message).id === 9) break;
    seen.push(describeReply(received.message));
  }
  return seen.join(', ') || 'nothing before the ping reply';
}

/** Sends initialize and lists what arrived before its reply. */
async function repliesBeforeInitialize(client: WebTransportSessionConnection): Promise<string> {
  await client.send(initialize(1));
  const seen: string[] = [];
  for (;;) {
    const received = await client.next(undefined, { timeoutMs: LIVENESS_MS });
    if ((received.message as Message).id === 1) break;
    seen.push(describeReply(received.message));
  }
  return seen.join(', ') || 'nothing before the initialize reply';
}

/** Sends a request the responder never answers (HOLD) and waits until the server side has read it: it is in flight. */
async function holdRequest(client: WebTransportSessionConnection, peer: WebTransportSessionConnection, id: number): Promise<void> {
  await client.send({ jsonrpc: '2.0', id, method: HOLD });
  await until(() => peer.transcript.entries().some((entry) => (entry.decoded as Message | undefined)?.id === id), 'the held request', peer);
}

/** Whether the client records a datagram for a request not in flight within a second (an absence needs a wait). */
async function notInFlightDatagram(client: WebTransportSessionConnection): Promise<boolean> {
  return Promise.race([
    faultSeen(client, 'DATAGRAM_NOT_IN_FLIGHT').then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000)),
  ]);
}

async function negotiated(fixture: Fixture, encodings: string[]): Promise<string> {
  const client = fixture.track(await connect(fixture.server));
  const { transport } = await initializeSession(client, { encodings, timeoutMs: LIVENESS_MS });
  return String(transport?.encoding);
}

/** The refusal of a stream over a limit of 1, described by `describe` (default: its code), or "accepted 2". */
async function streamLimitProbe(fixture: Fixture, describe: (reply: unknown) => string = describeReply): Promise<string> {
  const client = fixture.track(await ready(fixture.server));
  const peer = await fixture.peer();
  await client.send({ jsonrpc: '2.0', id: 7, method: HOLD });
  for (const streamTag of [1, 2]) {
    const stream = await client.webtransport.openExecutionStream({ requestId: 7, streamTag });
    await stream.write(new Uint8Array([streamTag]));
  }
  return Promise.race([
    answerTo(client, null).then((received) => describe(received.message)),
    (async () => {
      await peer.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      await peer.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      return 'accepted 2';
    })(),
  ]);
}

async function outgoingDatagram(fixture: Fixture): Promise<string> {
  const client = fixture.track(await ready(fixture.server));
  const peer = await fixture.peer();
  await client.send({ jsonrpc: '2.0', id: 42, method: HOLD });
  await peer.webtransport.sendDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 0.5 }) });
  return Promise.race([
    client.webtransport.nextDatagram(undefined, { timeoutMs: LIVENESS_MS }).then((d) => `channel ${d.channel} flags ${d.flags}`),
    faultSeen(client, 'DATAGRAM_'),
  ]);
}

const PROBES: Record<WebTransportFaultName, Probe> = {
  'notification-before-initialize-answered': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return repliesBeforeInitialize(client);
    },
    correct: 'nothing before the initialize reply',
    faulty: 'error -32600',
  },
  'notification-while-initializing-answered': {
    respond: false,
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send(initialize(0));
      await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const peer = await fixture.peer();
      // The responder is off: initialize stays unanswered, so an answer here can only be to the notification.
      await faultSeen(peer, 'MESSAGE_BEFORE_READY');
      return Promise.race([
        answerTo(client, null).then((received) => describeReply(received.message)),
        new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 1_000)),
      ]);
    },
    correct: 'no answer',
    faulty: 'error -32600',
  },
  'accept-unknown-transport-type': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send(initialize(0, { type: 'not-mcp-flow', version: '0.1' }));
      return describeReply((await answerTo(client, 0)).message);
    },
    correct: 'error -32600',
    faulty: 'result',
  },
  'advertise-missing-capabilities': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const transport = client.webtransport.serverCapabilities ?? {};
      return ['encoding', 'maxMessageSize', 'maxConcurrentStreams', 'datagramsSupported'].filter((key) => key in transport).join(' ');
    },
    correct: 'encoding maxMessageSize maxConcurrentStreams datagramsSupported',
    faulty: 'encoding maxMessageSize datagramsSupported',
  },
  'accept-cbor-initialize': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.sendRaw(encodeFrame(cborCodec.encode(initialize(0))));
      return firstReply(client);
    },
    correct: 'error -32003',
    faulty: 'result',
  },
  'accept-encoding-mismatch': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      expect(client.webtransport.encoding).toBe('cbor');
      await client.sendRaw(encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', id: 5, method: 'ping' })));
      return firstReply(client);
    },
    correct: 'error -32003',
    faulty: 'result',
  },
  'initialize-result-in-cbor': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send(initialize(0, { type: 'mcp-flow', version: '0.1', encodings: ['cbor'] }));
      return Promise.race([answerTo(client, 0).then((received) => `read as ${received.encoding}`), faultSeen(client, 'ENCODING_MISMATCH')]);
    },
    correct: 'read as json',
    faulty: 'ENCODING_MISMATCH',
  },
  'reply-json-after-cbor': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      return `${await pingReplyEncoding(client, 1)} ${await pingReplyEncoding(client, 2)}`;
    },
    correct: 'cbor cbor',
    faulty: 'mismatch mismatch',
  },
  'switch-encoding-late': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      return `${await pingReplyEncoding(client, 1)} ${await pingReplyEncoding(client, 2)}`;
    },
    correct: 'cbor cbor',
    faulty: 'mismatch cbor',
  },
  'ignore-encoding-preference': {
    run: (fixture) => negotiated(fixture, ['json', 'cbor']),
    correct: 'json',
    faulty: 'cbor',
  },
  'default-encoding-not-json': {
    run: (fixture) => negotiated(fixture, []),
    correct: 'json',
    faulty: 'cbor',
  },
  'unsupported-encoding-selected': {
    listener: { encodings: ['json'] },
    run: (fixture) => negotiated(fixture, ['cbor']),
    correct: 'json',
    faulty: 'cbor',
  },
  'wrong-frame-length': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send(initialize(0));
      return Promise.race([answerTo(client, 0).then((received) => describeReply(received.message)), faultSeen(client, '')]);
    },
    correct: 'result',
    faulty: 'INVALID_JSON',
  },
  'frame-parse-error-unanswered': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.sendRaw(encodeFrame(new Uint8Array([0xff, 0xff, 0xff]))); // not CBOR, not JSON
      await client.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
      return firstReply(client);
    },
    correct: 'error -32700',
    faulty: 'result',
  },
  'accept-zero-length-frame': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.sendRaw(new Uint8Array([0, 0, 0, 0]));
      await client.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
      return firstReply(client);
    },
    correct: 'error -32600',
    faulty: 'result',
  },
  'accept-oversized-frame': {
    listener: { limits: { maxMessageSize: 1024 } },
    async run(fixture) {
      const client = fixture.track(await connectReady(fixture.server, { raw: true }));
      await client.send({ jsonrpc: '2.0', id: 3, method: 'ping', params: { padding: 'x'.repeat(4096) } });
      return firstReply(client);
    },
    correct: 'error -32600',
    faulty: 'result',
  },
  'wrong-execution-header': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      // Both byte orders of the id are in flight, so the client accepts the stream either way.
      await client.send({ jsonrpc: '2.0', id: 0x01020304, method: HOLD });
      await client.send({ jsonrpc: '2.0', id: 0x04030201, method: HOLD });
      const outgoing = await peer.webtransport.openExecutionStream({ requestId: 0x01020304, streamTag: 1 });
      await outgoing.write(new Uint8Array([1, 2, 3]));
      await outgoing.close();
      const incoming = await client.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      return `request ${incoming.header.requestId.toString(16)}`;
    },
    correct: 'request 1020304',
    faulty: 'request 4030201',
  },
  'truncated-stream-header-closes-session': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      const stream = await client.webtransport.openRawStream(new Uint8Array([0, 0, 1]));
      await stream.close();
      await faultSeen(peer, 'EXEC_HEADER_TRUNCATED');
      return Promise.race([client.closed.then(() => 'closed'), repliesBeforePing(client).catch(() => 'closed')]);
    },
    correct: 'error -32600',
    faulty: 'closed',
  },
  'accept-injected-stream-header': {
    listener: { limits: { streamCorrelationGraceMs: 100 } },
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      const injected = await client.webtransport.openExecutionStream({ requestId: 4242, streamTag: 1 });
      await injected.write(new Uint8Array(10));
      return Promise.race([
        answerTo(client, null).then((received) => describeReply(received.message)),
        peer.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS }).then(() => 'accepted'),
      ]);
    },
    correct: 'error -32002',
    faulty: 'accepted',
  },
  'dangling-stream-ref-unanswered': {
    listener: { limits: { streamReferenceGraceMs: 100 } },
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { content: [{ type: 'ref/stream', streamTag: 9 }] } });
      // Messages are delivered in order: the ping's reply comes after whatever request 5 got.
      return repliesBeforePing(client);
    },
    correct: 'error -32001',
    faulty: 'nothing before the ping reply',
  },
  'no-stream-limit': {
    listener: { limits: { maxConcurrentStreams: 1, streamCorrelationGraceMs: LIVENESS_MS } },
    run: streamLimitProbe,
    correct: 'error -32000',
    faulty: 'accepted 2',
  },
  'wrong-stream-limit-code': {
    listener: { limits: { maxConcurrentStreams: 1, streamCorrelationGraceMs: LIVENESS_MS } },
    run: streamLimitProbe,
    correct: 'error -32000',
    faulty: 'error -32600',
  },
  'skip-origin-check': {
    listener: { origins: { allow: ['https://app.example'] } },
    async run(fixture) {
      try {
        fixture.track(await connect(fixture.server));
        return 'session opened';
      } catch (error) {
        if (error instanceof SessionRefusedError) return `refused ${error.status}`;
        throw error;
      }
    },
    correct: 'refused 403',
    faulty: 'session opened',
  },
  'datagram-when-unsupported-ignored': {
    listener: { datagramsSupported: false },
    async run(fixture) {
      const client = fixture.track(await connectReady(fixture.server, { raw: true }));
      const peer = await fixture.peer();
      await client.webtransport.sendRawDatagram(encodeDatagram({ channel: 0x01, requestId: 1, payload: cborCodec.encode({ progress: 1 }) }));
      await until(() => peer.transcript.entries().some((entry) => entry.channel.kind === 'datagram' && entry.direction === 'received'), 'the datagram', peer);
      return repliesBeforePing(client);
    },
    correct: 'error -32004',
    faulty: 'nothing before the ping reply',
  },
  'send-reserved-datagram-channel': {
    run: outgoingDatagram,
    correct: 'channel 1 flags 0',
    faulty: 'DATAGRAM_RESERVED_CHANNEL',
  },
  'nonzero-datagram-flags': {
    run: outgoingDatagram,
    correct: 'channel 1 flags 0',
    faulty: 'DATAGRAM_RESERVED_FLAGS',
  },
  'id-out-of-range-truncated': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 2 ** 32 + 7, method: 'ping' });
      const reply = (await client.next(undefined, { timeoutMs: LIVENESS_MS })).message as Message;
      return `${describeReply(reply)} id ${String(reply.id)}`;
    },
    correct: 'error -32600 id 4294967303',
    faulty: 'result id 7',
  },
  'stream-after-shutdown': {
    listener: STREAMS_OUTLAST_LAG,
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await client.send({ jsonrpc: '2.0', id: 3, method: HOLD });
      // An open client stream keeps the server draining (not closed) after $/shutdown.
      const upload = await client.webtransport.openExecutionStream({ requestId: 3, streamTag: 1 });
      await upload.write(new Uint8Array([1]));
      await peer.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      await client.send({ jsonrpc: '2.0', method: '$/shutdown' });
      await noted(peer, '$/shutdown received');
      try {
        const stream = await peer.webtransport.openExecutionStream({ requestId: 3, streamTag: 2 });
        await stream.close();
        return 'opened';
      } catch (error) {
        if (error instanceof InvalidStateError) return 'refused';
        throw error;
      } finally {
        await upload.close().catch(() => undefined);
      }
    },
    correct: 'refused',
    faulty: 'opened',
  },
  'never-drain-on-shutdown': {
    listener: STREAMS_OUTLAST_LAG,
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await client.send({ jsonrpc: '2.0', id: 3, method: HOLD });
      const upload = await client.webtransport.openExecutionStream({ requestId: 3, streamTag: 1 });
      await upload.write(new Uint8Array([1, 2, 3]));
      const incoming = await peer.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      const read = new Response(incoming.readable).arrayBuffer().then(
        (bytes) => `${bytes.byteLength} bytes, ended`,
        () => 'cut',
      );
      await client.send({ jsonrpc: '2.0', method: '$/shutdown' });
      await noted(peer, '$/shutdown received');
      await upload.write(new Uint8Array([4, 5, 6])).catch(() => undefined);
      await upload.close().catch(() => undefined);
      return read;
    },
    correct: '6 bytes, ended',
    faulty: /^(cut|[0-5] bytes, ended)$/,
  },
  'shutdown-ignored': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await client.send({ jsonrpc: '2.0', method: '$/shutdown' });
      await noted(peer, '$/shutdown received');
      // A conforming server has started closing by now (nothing to drain); wait one turn for it.
      await new Promise((resolve) => setImmediate(resolve));
      if (peer.transcript.entries().some((entry) => entry.note?.startsWith('closing:'))) {
        const info = await client.closed;
        return `closed by the ${info.initiator === 'remote' ? 'server' : info.initiator}`;
      }
      await client.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
      await answerTo(client, 4);
      return client.isClosed ? 'closed' : 'open';
    },
    correct: 'closed by the server',
    faulty: 'open',
  },
  'control-stream-end-ignored': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await client.webtransport.endControlStream();
      return Promise.race([
        client.closed.then(() => 'closed'),
        // The server closing first ends this wait too: that is the 'closed' observation.
        until(() => peer.transcript.entries().some((entry) => entry.note?.includes('session kept open')), 'the kept-open note', peer).then(
          () => 'kept open',
          () => 'closed',
        ),
      ]);
    },
    correct: 'closed',
    faulty: 'kept open',
  },
  'truncated-frame-at-end-served': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      // The whole ping, under a prefix that declares 3 bytes more: the stream then ends inside the frame.
      const body = cborCodec.encode({ jsonrpc: '2.0', id: 5, method: 'ping' });
      const prefix = new Uint8Array(4);
      new DataView(prefix.buffer).setUint32(0, body.byteLength + 3);
      await client.sendRaw(new Uint8Array([...prefix, ...body]));
      await client.webtransport.endControlStream();
      return client.next(undefined, { timeoutMs: LIVENESS_MS }).then(
        (received) => describeReply(received.message),
        () => 'closed without an answer',
      );
    },
    correct: 'error -32700',
    faulty: 'result',
  },
  'split-frame-dropped': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const frame = encodeFrame(cborCodec.encode({ jsonrpc: '2.0', id: 5, method: 'ping' }));
      await client.sendRaw(frame.subarray(0, 3));
      // Lets the server read the first part on its own (client and server share this event loop).
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.sendRaw(frame.subarray(3));
      // Dropping the first part makes the server read the rest as a frame of its own: garbage.
      const answer = await answerTo(client, 5).catch(() => undefined);
      return answer ? describeReply(answer.message) : 'dropped (the session ended unanswered)';
    },
    correct: 'result',
    faulty: /^(dropped|error)/,
  },
  'oversized-body-read-as-frames': {
    listener: { limits: { maxMessageSize: 1024 } },
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const inner = encodeFrame(cborCodec.encode({ jsonrpc: '2.0', id: 77, method: 'ping' }));
      const oversized = new Uint8Array(4 + 2000);
      new DataView(oversized.buffer).setUint32(0, 2000);
      oversized.set(inner, 4);
      // The rest of the body: frames of 1 byte each (0x00000001 + one byte), not zero-length ones.
      for (let at = 4 + inner.byteLength; at + 5 <= oversized.byteLength; at += 5) oversized.set([0, 0, 0, 1, 0xf6], at);
      await client.sendRaw(oversized);
      return answerTo(client, 77).then(
        () => 'the frame inside the body was served',
        () => 'closed',
      );
    },
    correct: 'closed',
    faulty: 'the frame inside the body was served',
  },
  'json-encoding-refused': {
    run: (fixture) => negotiated(fixture, ['json']).catch((error: Error) => `refused: ${error.message}`),
    correct: 'json',
    faulty: /^refused: .*-32003/,
  },
  'encoding-not-offered-selected': {
    run: (fixture) => negotiated(fixture, ['json']),
    correct: 'json',
    faulty: 'cbor',
  },
  'cbor-id-as-float': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
      const body = (await answerTo(client, 5)).body!;
      const key = [0x62, 0x69, 0x64]; // text string "id"
      for (let i = 0; i + 3 < body.byteLength; i++) {
        if (body[i] === key[0] && body[i + 1] === key[1] && body[i + 2] === key[2]) return body[i + 3] === 0xfb ? 'float64 id' : 'integer id';
      }
      return 'no id';
    },
    correct: 'integer id',
    faulty: 'float64 id',
  },
  'initialize-version-echoed': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      const { result } = await initializeSession(client, { protocolVersion: '1999-01-01', timeoutMs: LIVENESS_MS });
      return String(result['protocolVersion']);
    },
    correct: '2025-06-18',
    faulty: '1999-01-01',
  },
  'ref-stream-tag-mismatch': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 7);
      const stream = await peer.webtransport.openExecutionStream({ requestId: 7, streamTag: 1 });
      await stream.write(new Uint8Array([1]));
      await stream.close();
      await peer.send({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } });
      const result = (await answerTo(client, 7)).message as { result: { content: Array<{ streamTag: number }> } };
      return `streamTag ${result.result.content[0]!.streamTag}`;
    },
    correct: 'streamTag 1',
    faulty: 'streamTag 1001',
  },
  'duplicate-stream-tag': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 7);
      const stream = await peer.webtransport.openExecutionStream({ requestId: 7, streamTag: 1 });
      await stream.close();
      await client.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      const second = await client.webtransport.nextExecutionStream((s) => s.header.requestId === 7, { timeoutMs: 1_000 }).catch(() => undefined);
      return second ? 'two streams (7, 1)' : 'one stream (7, 1)';
    },
    correct: 'one stream (7, 1)',
    faulty: 'two streams (7, 1)',
  },
  'length-prefixed-stream-chunks': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 7);
      const stream = await peer.webtransport.openExecutionStream({ requestId: 7, streamTag: 1 });
      await stream.write(new Uint8Array([1, 2, 3]));
      await stream.close();
      const incoming = await client.webtransport.nextExecutionStream(undefined, { timeoutMs: LIVENESS_MS });
      return Buffer.from(await new Response(incoming.readable).arrayBuffer()).toString('hex');
    },
    correct: '010203',
    faulty: '00000003010203',
  },
  'control-blocked-by-streams': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 7);
      const stream = await peer.webtransport.openExecutionStream({ requestId: 7, streamTag: 1 });
      await stream.write(new Uint8Array([1]));
      let closed = false;
      // The stream is ended after a while either way, so a blocked server answers in the end.
      const timer = setTimeout(() => void stream.close().then(() => (closed = true)), 3_000);
      await client.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
      await answerTo(client, 8);
      clearTimeout(timer);
      return closed ? 'answered after the stream ended' : 'answered while the stream was open';
    },
    correct: 'answered while the stream was open',
    faulty: 'answered after the stream ended',
  },
  'cbor-trailing-byte': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
      return Promise.race([answerTo(client, 4).then((received) => describeReply(received.message)), faultSeen(client, 'CBOR_')]);
    },
    correct: 'result',
    faulty: 'CBOR_TRAILING_BYTES',
  },
  'truncated-datagram-sent': {
    run: outgoingDatagram,
    correct: 'channel 1 flags 0',
    faulty: 'DATAGRAM_TOO_SHORT',
  },
  'short-datagram-closes-session': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await client.webtransport.sendRawDatagram(new Uint8Array([1, 0, 0]));
      await faultSeen(peer, 'DATAGRAM');
      return Promise.race([client.closed.then(() => 'closed'), repliesBeforePing(client).catch(() => 'closed')]);
    },
    correct: 'nothing before the ping reply',
    faulty: 'closed',
  },
  'datagram-payload-json-after-cbor': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 42);
      await peer.webtransport.sendDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 0.5 }) });
      const datagram = await client.webtransport.nextDatagram(undefined, { timeoutMs: LIVENESS_MS });
      return datagram.decoded === undefined ? 'not CBOR' : JSON.stringify(datagram.decoded);
    },
    correct: '{"progress":0.5}',
    faulty: 'not CBOR',
  },
  'datagram-after-result': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 42);
      await peer.webtransport.sendDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 0.5 }) });
      await client.webtransport.nextDatagram(undefined, { timeoutMs: LIVENESS_MS });
      await peer.send({ jsonrpc: '2.0', id: 42, result: {} });
      await answerTo(client, 42);
      // The client drops (and records) a datagram for a request no longer in flight.
      return notInFlightDatagram(client).then((seen) => (seen ? 'a datagram after the response' : 'nothing after the response'));
    },
    correct: 'nothing after the response',
    faulty: 'a datagram after the response',
  },
  'result-only-in-datagram': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 42);
      await peer.webtransport.sendDatagram({ channel: 0x01, requestId: 42, payload: cborCodec.encode({ progress: 0.5 }) });
      await client.webtransport.nextDatagram(undefined, { timeoutMs: LIVENESS_MS });
      await peer.send({ jsonrpc: '2.0', id: 42, result: {} });
      return Promise.race([
        answerTo(client, 42).then(() => 'on the control stream'),
        client.webtransport.nextDatagram((d) => d.requestId === 42, { timeoutMs: LIVENESS_MS }).then(() => 'in a datagram'),
      ]);
    },
    correct: 'on the control stream',
    faulty: 'in a datagram',
  },
  'unknown-datagram-cancels-requests': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 42);
      await client.webtransport.sendDatagram({ channel: 0x01, requestId: 999, payload: cborCodec.encode({ progress: 1 }) });
      await faultSeen(peer, 'DATAGRAM_NOT_IN_FLIGHT');
      return peer.transcript.entries().some((entry) => entry.note === 'synthetic $/cancel (fault)') ? 'request 42 cancelled' : 'request 42 untouched';
    },
    correct: 'request 42 untouched',
    faulty: 'request 42 cancelled',
  },
  'string-ids-for-server-requests': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await peer.send({ jsonrpc: '2.0', id: 3, method: 'roots/list' });
      const request = await client.next((received) => (received.message as Message).method === 'roots/list', { timeoutMs: LIVENESS_MS });
      return typeof (request.message as Message).id;
    },
    correct: 'number',
    faulty: 'string',
  },
  'datagram-for-server-request': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await peer.send({ jsonrpc: '2.0', id: 3, method: 'roots/list' });
      await client.next((received) => (received.message as Message).method === 'roots/list', { timeoutMs: LIVENESS_MS });
      // The client drops (and records) a datagram naming a request it did not send.
      return notInFlightDatagram(client).then((seen) => (seen ? 'a datagram for request 3' : 'no datagram'));
    },
    correct: 'no datagram',
    faulty: 'a datagram for request 3',
  },
  'dollar-cancel-ignored': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await client.send({ jsonrpc: '2.0', id: 42, method: HOLD });
      await client.send({ jsonrpc: '2.0', method: '$/cancel', params: { requestId: 42 } });
      await until(() => peer.transcript.entries().find((e) => (e.decoded as Message | undefined)?.method === '$/cancel'), 'the $/cancel', peer);
      // The binding takes or drops it as it is read (the same turn that recorded it).
      return peer.transcript.entries().some((e) => e.note === '$/cancel ignored (fault)') ? 'ignored' : 'delivered';
    },
    correct: 'delivered',
    faulty: 'ignored',
  },
  'shutdown-sent-with-id': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      void peer.webtransport.shutdown({ drainTimeoutMs: 100 }).catch(() => undefined);
      // Read from the transcript: the client closes on $/shutdown, possibly before the message is taken.
      const entry = await until(
        () => client.transcript.entries().find((e) => e.direction === 'received' && (e.decoded as Message | undefined)?.method === '$/shutdown'),
        'the $/shutdown',
        client,
      );
      return 'id' in (entry.decoded as Message) ? 'a request' : 'a notification';
    },
    correct: 'a notification',
    faulty: 'a request',
  },
  'message-size-only-before-ready': {
    listener: { limits: { maxMessageSize: 1024 } },
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.sendRaw(encodeFrame(cborCodec.encode({ jsonrpc: '2.0', id: 5, method: 'ping', params: { padding: 'x'.repeat(2000) } })));
      return Promise.race([
        answerTo(client, null).then((received) => describeReply(received.message)),
        answerTo(client, 5).then(() => 'served'),
      ]);
    },
    correct: 'error -32600',
    faulty: 'served',
  },
  'tls12-accepted': {
    async run(fixture) {
      const { connect: tlsConnect } = await import('node:tls');
      const url = new URL(fixture.server.url);
      return new Promise<string>((resolve) => {
        const socket = tlsConnect({ host: url.hostname, port: Number(url.port), maxVersion: 'TLSv1.2', rejectUnauthorized: false, ALPNProtocols: ['h2'] });
        socket.once('secureConnect', () => {
          resolve(`connected with ${socket.getProtocol()}`);
          socket.destroy();
        });
        socket.once('error', () => resolve('refused'));
      });
    },
    correct: 'refused',
    faulty: 'connected with TLSv1.2',
  },
  'binding-code-for-unknown-method': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      await holdRequest(client, peer, 7);
      await peer.send({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } });
      return describeReply((await answerTo(client, 7)).message);
    },
    correct: 'error -32601',
    faulty: 'error -32001',
  },
  'injected-stream-unreported': {
    listener: { limits: { streamCorrelationGraceMs: 100 } },
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      const injected = await client.webtransport.openExecutionStream({ requestId: 4242, streamTag: 1 });
      await injected.write(new Uint8Array(10));
      // The report (if any) is queued on the control stream when the refusal is recorded: before the ping's reply.
      await faultSeen(peer, 'STREAM_INJECTION');
      return repliesBeforePing(client);
    },
    correct: 'error -32002',
    faulty: 'nothing before the ping reply',
  },
  'parse-error-ends-reading': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.sendRaw(encodeFrame(new Uint8Array([0xff, 0xff, 0xff]))); // not CBOR, not JSON
      const refusal = await firstReply(client);
      await client.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
      const next = await Promise.race([answerTo(client, 3).then(() => 'ping served'), client.closed.then(() => 'closed')]);
      return `${refusal}, ${next}`;
    },
    correct: 'error -32700, ping served',
    faulty: 'error -32700, closed',
  },
  'stream-limit-message-without-limit': {
    listener: { limits: { maxConcurrentStreams: 1, streamCorrelationGraceMs: LIVENESS_MS } },
    run: (fixture) =>
      streamLimitProbe(fixture, (reply) => {
        const error = (reply as { error?: { code?: number; message?: string } }).error;
        return `error ${error?.code}${/\b1\b/.test(error?.message ?? '') ? ' naming the limit' : ''}`;
      }),
    correct: 'error -32000 naming the limit',
    faulty: 'error -32000',
  },
  'request-after-shutdown': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', method: '$/shutdown' });
      const info = await client.closed;
      const requests = client.transcript
        .entries()
        .filter((e) => e.direction === 'received' && typeof (e.decoded as Message | undefined)?.method === 'string' && 'id' in (e.decoded as Message))
        .map((e) => String((e.decoded as Message).method));
      return `closed by the ${info.initiator === 'remote' ? 'server' : info.initiator}${requests.length > 0 ? ` after ${requests.join(', ')}` : ''}`;
    },
    correct: 'closed by the server',
    faulty: 'closed by the server after ping',
  },
  'binding-error-id-zero': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.sendRaw(encodeFrame(new Uint8Array([0xff, 0xff])));
      const error = (await client.next((received) => (received.message as Message).error !== undefined, { timeoutMs: LIVENESS_MS })).message as Message;
      return `error ${error.error?.code} id ${JSON.stringify(error.id)}`;
    },
    correct: 'error -32700 id null',
    faulty: 'error -32700 id 0',
  },
};

const opened: WebTransportServer[] = [];
afterAll(async () => {
  await Promise.all(opened.map((server) => server.close()));
});

/** Starts a listener (with `faults` when given), runs the probe, closes everything it opened. */
async function observe(probe: Probe, fault: string | undefined): Promise<string> {
  const server = await startServer({ ...probe.listener, ...(fault ? { faults: new Set([fault]) } : {}) });
  opened.push(server);
  const clients: WebTransportSessionConnection[] = [];
  let peer: Promise<WebTransportSessionConnection> | undefined;
  const fixture: Fixture = {
    server,
    peer() {
      peer ??= server.nextConnection({ timeoutMs: LIVENESS_MS }).then((connection) => {
        if (probe.respond ?? true) respond(connection);
        return connection;
      });
      return peer;
    },
    track(client) {
      clients.push(client);
      return client;
    },
  };
  // The session's server side is answered from the start (the probe may never ask for it).
  if (probe.respond ?? true) void fixture.peer().catch(() => undefined);
  try {
    return await probe.run(fixture);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await server.close();
  }
}

describe('the WebTransport fault catalog', () => {
  const catalog = JSON.parse(readFileSync(new URL('../../../../suites/requirements.json', import.meta.url), 'utf8')) as unknown;
  const list = (Array.isArray(catalog) ? catalog : ((catalog as { requirements?: unknown[] }).requirements ?? [])) as Array<{
    id: string;
    level: string;
    role: string;
  }>;
  const byId = new Map(list.map((entry) => [entry.id, entry]));

  it('cites, for every fault, a requirement that exists and is a MUST (or SHOULD) the server side can break', () => {
    expect(WEBTRANSPORT_FAULTS.length).toBeGreaterThan(0);
    for (const fault of WEBTRANSPORT_FAULTS) {
      const requirement = byId.get(fault.requirement);
      expect(requirement, `${fault.name} cites ${fault.requirement}`).toBeDefined();
      expect(['MUST', 'SHOULD'], fault.requirement).toContain(requirement?.level);
      expect(['server', 'both'], fault.requirement).toContain(requirement?.role);
      expect(fault.requirement.startsWith('WT-'), fault.name).toBe(true);
    }
  });

  it('has unique kebab-case names that do not collide with the server core faults, and a probe for each', () => {
    const names = WEBTRANSPORT_FAULTS.map((fault) => fault.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    const core = new Set(CORE_FAULTS.map((fault) => fault.name));
    expect(names.filter((name) => core.has(name))).toEqual([]);
    expect(Object.keys(PROBES).sort()).toEqual([...names].sort());
  });
});

describe('each fault changes what a client observes over loopback HTTP/2', () => {
  for (const fault of WEBTRANSPORT_FAULTS) {
    it(`${fault.name} (${fault.requirement})`, async () => {
      const probe = PROBES[fault.name as WebTransportFaultName];
      const correct = await observe(probe, undefined);
      expect(correct, 'correct listener').toBe(probe.correct);
      const faulty = await observe(probe, fault.name);
      if (typeof probe.faulty === 'string') expect(faulty, 'faulty listener').toBe(probe.faulty);
      else expect(faulty, 'faulty listener').toMatch(probe.faulty);
      expect(faulty).not.toBe(correct);
    });
  }
});
