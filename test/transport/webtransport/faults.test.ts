// The binding fault catalog (faults.ts): every fault cites a server-side MUST of the catalog, and
// every fault has a probe over loopback HTTP/2 whose observation differs between a correct
// listener and one with that fault switched on.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CORE_FAULTS } from '../../../src/peer/server/faults.js';
import { initializeSession } from '../../../src/transport/webtransport/client.js';
import { SessionRefusedError } from '../../../src/transport/webtransport/errors.js';
import { WEBTRANSPORT_FAULTS, type WebTransportFaultName } from '../../../src/transport/webtransport/faults.js';
import type { WebTransportServer, WebTransportServerOptions } from '../../../src/transport/webtransport/server.js';
import type { WebTransportSessionConnection } from '../../../src/transport/webtransport/session.js';
import { InvalidStateError } from '../../../src/transport/errors.js';
import { cborCodec, encodeDatagram, encodeFrame, jsonCodec } from '../../../src/wire/index.js';
import { answerTo, connect, connectReady, HOLD, LIVENESS_MS, respond, startServer } from './helpers.js';

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

async function negotiated(fixture: Fixture, encodings: string[]): Promise<string> {
  const client = fixture.track(await connect(fixture.server));
  const { transport } = await initializeSession(client, { encodings, timeoutMs: LIVENESS_MS });
  return String(transport?.encoding);
}

async function streamLimitProbe(fixture: Fixture): Promise<string> {
  const client = fixture.track(await ready(fixture.server));
  const peer = await fixture.peer();
  await client.send({ jsonrpc: '2.0', id: 7, method: HOLD });
  for (const streamTag of [1, 2]) {
    const stream = await client.webtransport.openExecutionStream({ requestId: 7, streamTag });
    await stream.write(new Uint8Array([streamTag]));
  }
  return Promise.race([
    answerTo(client, null).then((received) => describeReply(received.message)),
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
  'accept-non-initialize-first': {
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      return describeReply((await answerTo(client, 1)).message);
    },
    correct: 'error -32600',
    faulty: 'result',
  },
  'accept-message-while-initializing': {
    respond: false,
    async run(fixture) {
      const client = fixture.track(await connect(fixture.server));
      await client.send(initialize(0));
      await client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const peer = await fixture.peer();
      return Promise.race([
        answerTo(client, 1).then((received) => describeReply(received.message)),
        peer.next((received) => (received.message as Message).id === 1, { timeoutMs: LIVENESS_MS }).then(() => 'delivered to the server'),
      ]);
    },
    correct: 'error -32600',
    faulty: 'delivered to the server',
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
  'truncated-stream-header-unanswered': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      const peer = await fixture.peer();
      const stream = await client.webtransport.openRawStream(new Uint8Array([0, 0, 1]));
      await stream.close();
      await faultSeen(peer, 'EXEC_HEADER_TRUNCATED');
      return repliesBeforePing(client);
    },
    correct: 'error -32600',
    faulty: 'nothing before the ping reply',
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
  'accept-dangling-stream-ref': {
    listener: { limits: { streamReferenceGraceMs: 100 } },
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { content: [{ type: 'ref/stream', streamTag: 9 }] } });
      return describeReply((await answerTo(client, 5)).message);
    },
    correct: 'error -32001',
    faulty: 'result',
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
  'id-out-of-range-accepted': {
    async run(fixture) {
      const client = fixture.track(await ready(fixture.server));
      await client.send({ jsonrpc: '2.0', id: 2 ** 32, method: 'ping' });
      return firstReply(client);
    },
    correct: 'error -32600',
    faulty: 'result',
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
  const catalog = JSON.parse(readFileSync(new URL('../../../suites/requirements.json', import.meta.url), 'utf8')) as unknown;
  const list = (Array.isArray(catalog) ? catalog : ((catalog as { requirements?: unknown[] }).requirements ?? [])) as Array<{
    id: string;
    level: string;
    role: string;
  }>;
  const byId = new Map(list.map((entry) => [entry.id, entry]));

  it('cites, for every fault, a requirement that exists and is a MUST the server side can break', () => {
    expect(WEBTRANSPORT_FAULTS.length).toBeGreaterThan(0);
    for (const fault of WEBTRANSPORT_FAULTS) {
      const requirement = byId.get(fault.requirement);
      expect(requirement, `${fault.name} cites ${fault.requirement}`).toBeDefined();
      expect(requirement?.level, fault.requirement).toBe('MUST');
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
      const probe = PROBES[fault.name];
      const correct = await observe(probe, undefined);
      expect(correct, 'correct listener').toBe(probe.correct);
      const faulty = await observe(probe, fault.name);
      if (typeof probe.faulty === 'string') expect(faulty, 'faulty listener').toBe(probe.faulty);
      else expect(faulty, 'faulty listener').toMatch(probe.faulty);
      expect(faulty).not.toBe(correct);
    });
  }
});
