// Probes of the mock client's WebTransport binding faults (issue 16): control frames, encodings,
// execution streams, datagrams and shutdown, against a WebTransport listener driven by hand.
import { MOCK_CLIENT_FAULT as F } from '../../../../src/peer/client/index.js';
import { codecFor, encodeFrame, jsonCodec } from '../../../../src/wire/index.js';
import { DEADLINE, isRequest, type Message, type ScriptedPeer } from '../support.js';
import { closedWithin, initialized, method, nextWithin, type Probe } from './support.js';
import { cborShapeIssues } from '../../../../suites/support/cbor-items.js';

const FILE = new Uint8Array(1000).fill(0x41);

/** Resolves true once `condition` holds (checked every 20 ms), false after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** A control frame holding `message` in the encoding in force on the server's side. */
function frame(peer: ScriptedPeer, message: Message): Uint8Array {
  return encodeFrame(codecFor(peer.server.webtransport!.encoding).encode(message));
}

/** The first message the client sends after the initialize exchange, or 'nothing readable'. */
async function firstReadable(peer: ScriptedPeer): Promise<string> {
  await initialized(peer);
  return nextWithin(peer.server, () => true, 3000, 'nothing readable');
}

/** Sends a stream of 3 bytes (then FIN) and returns the id-null error the client answers with, or 'none'. */
async function truncatedStream(peer: ScriptedPeer): Promise<string> {
  await initialized(peer);
  const stream = await peer.server.webtransport!.openRawStream(new Uint8Array([0, 0, 0]));
  await stream.close();
  return nextWithin(peer.server, (m) => m.id === null && 'error' in m);
}

/** Injects a stream naming request 4242 and returns the client's report of it (an error naming it in data), or 'none'. */
async function injectionReport(peer: ScriptedPeer): Promise<string> {
  await initialized(peer);
  const stream = await peer.server.webtransport!.openExecutionStream({ requestId: 4242, streamTag: 1 });
  await stream.write(FILE).catch(() => undefined);
  // The client waits its correlation grace (1 s) before it refuses the stream.
  const report = await nextWithin(peer.server, (m) => 'error' in m && m.error?.data?.requestId === 4242, 6000);
  await stream.abort('probe done').catch(() => undefined);
  return report;
}

/** Sends a datagram of `bytes` and returns an error response with id 0 the client sends about it, or 'none'. */
async function datagramReport(peer: ScriptedPeer, bytes: number[]): Promise<string> {
  await initialized(peer);
  await peer.server.webtransport!.sendRawDatagram(new Uint8Array(bytes));
  return nextWithin(peer.server, (m) => 'error' in m && m.id === 0, 2000);
}

/** A datagram header (channel, flags, request id 1) and a one-byte payload. */
const datagram = (channel: number, flags: number) => [channel, flags, 0, 0, 0, 1, 0xa0];

/** The client's call of `tool`, taken by the server (not answered yet). */
async function callTaken(peer: ScriptedPeer, tool: string): Promise<{ outcome: Promise<boolean>; id: number }> {
  await initialized(peer);
  const outcome = peer.client.callTool(tool, {}).then((o) => o.ok, () => false);
  const { message } = await peer.server.next(isRequest('tools/call'), DEADLINE);
  return { outcome, id: (message as Message).id as number };
}

export const WEBTRANSPORT_PROBES: Record<string, Probe> = {
  [F.requestBeforeInitializeResult]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // What the client sent before the initialize result reached it, from its own transcript.
      const entries = peer!.client.connection.transcript.entries();
      const resultAt = entries.find((e) => e.direction === 'received' && e.decoded !== undefined)?.seq ?? Infinity;
      return entries.filter((e) => e.direction === 'sent' && e.decoded !== undefined && e.seq < resultAt).map((e) => method(e.decoded as Message));
    },
    expected: (c, f) => c.join() === 'initialize' && f.join() === 'initialize,tools/list',
  },
  [F.secondBidirectionalStream]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await until(() => peer!.server.faults().length > 0, 2000);
      return peer!.server.faults().map((fault) => fault.code);
    },
    expected: (c, f) => c.length === 0 && f.includes('UNEXPECTED_BIDIRECTIONAL_STREAM'),
  },
  [F.notificationBeforeInitialize]: {
    transport: 'wt',
    async run(peer) {
      const init = peer!.client.initialize();
      await peer!.answerInitialize();
      await init;
      const first = peer!.server.transcript.entries().find((e) => e.direction === 'received' && e.channel.kind === 'control' && e.decoded !== undefined);
      return method(first!.decoded as Message);
    },
    expected: (c, f) => c === 'initialize' && f === 'notifications/initialized',
  },
  [F.controlStreamEndIgnored]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.webtransport!.endControlStream();
      return closedWithin(peer!.server);
    },
    expected: (c, f) => c === 'closed' && f === 'open',
  },
  [F.frameLengthOffByOne]: {
    transport: 'wt',
    run: (peer) => firstReadable(peer!),
    expected: (c, f) => c === 'notifications/initialized' && f === 'nothing readable',
  },
  [F.zeroLengthFrameUnanswered]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.sendRaw(new Uint8Array(4));
      return nextWithin(peer!.server, (m) => m.id === null && 'error' in m);
    },
    expected: (c, f) => c === 'error -32600 id null' && f === 'none',
  },
  [F.partialFrameServed]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // A whole ping whose length prefix claims 3 bytes more, then the end of the control stream.
      const body = frame(peer!, { jsonrpc: '2.0', id: 'pp', method: 'ping' }).subarray(4);
      const cut = new Uint8Array(4 + body.byteLength);
      new DataView(cut.buffer).setUint32(0, body.byteLength + 3);
      cut.set(body, 4);
      await peer!.server.sendRaw(cut);
      await peer!.server.webtransport!.endControlStream();
      return nextWithin(peer!.server, (m) => !('method' in m));
    },
    expected: (c, f) => c === 'error -32700 id null' && f === 'result id "pp"',
  },
  [F.splitFrameDropped]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      const whole = frame(peer!, { jsonrpc: '2.0', id: 'sp', method: 'ping' });
      for (const [from, to] of [[0, 2], [2, 7], [7, whole.byteLength]] as const) {
        await peer!.server.sendRaw(whole.subarray(from, to));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return nextWithin(peer!.server, (m) => m.id === 'sp', 3000, 'no answer');
    },
    expected: (c, f) => c === 'result id "sp"' && f === 'no answer',
  },
  [F.encodingLapses]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // The request is recorded as sent before anything is awaited; its answer does not matter here.
      void peer!.client.listTools().catch(() => undefined);
      const sent = peer!.client.connection.transcript.entries().filter((e) => e.direction === 'sent' && e.channel.kind === 'control');
      return sent.slice(1).map((e) => (e.hex?.slice(8, 10) === '7b' ? 'json' : 'cbor'));
    },
    expected: (c, f) => c.join() === 'cbor,cbor' && f.join() === 'cbor,json',
  },
  [F.encodingMismatchUnanswered]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // CBOR was negotiated: a JSON frame is in the other encoding.
      await peer!.server.sendRaw(encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', id: 'jm', method: 'ping' })));
      return nextWithin(peer!.server, (m) => !('method' in m));
    },
    expected: (c, f) => c === 'error -32003 id null' && f === 'none',
  },
  [F.jsonNotSpoken]: {
    transport: 'wt',
    async run(peer) {
      const init = peer!.client.initialize();
      const request = await peer!.answerInitialize();
      await init;
      return request.params.transport.encodings;
    },
    expected: (c, f) => c.join() === 'cbor,json' && f.join() === 'cbor',
  },
  [F.cborTrailingByte]: {
    transport: 'wt',
    run: (peer) => firstReadable(peer!),
    expected: (c, f) => c === 'notifications/initialized' && f === 'nothing readable',
  },
  [F.cborIdAsFloat]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      const listing = peer!.client.listTools();
      const received = await peer!.server.next(isRequest('tools/list'), DEADLINE);
      await peer!.server.send({ jsonrpc: '2.0', id: (received.message as Message).id, result: { tools: [] } });
      await listing;
      // The session decodes a float64 2.0 to the number 2: only the body's bytes tell.
      return received.body === undefined ? 'no body' : cborShapeIssues(received.body).map((issue) => issue.requirement).join() || 'integer id';
    },
    expected: (c, f) => c === 'integer id' && f === 'WT-ENC-13',
  },
  [F.stringRequestIds]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      const listing = peer!.client.listTools();
      const { message } = await peer!.server.next(isRequest('tools/list'), DEADLINE);
      await peer!.server.send({ jsonrpc: '2.0', id: (message as Message).id, result: { tools: [] } });
      await listing;
      return typeof (message as Message).id;
    },
    expected: (c, f) => c === 'number' && f === 'string',
  },
  [F.truncatedHeaderWrongCode]: {
    transport: 'wt',
    run: (peer) => truncatedStream(peer!),
    expected: (c, f) => c === 'error -32600 id null' && f === 'error -32602 id null',
  },
  [F.streamBeforeResultDropped]: {
    transport: 'wt',
    async run(peer) {
      const { outcome, id } = await callTaken(peer!, 'download');
      try {
        const stream = await peer!.server.webtransport!.openExecutionStream({ requestId: id, streamTag: 1 });
        await stream.write(FILE);
        await stream.close();
      } catch {
        // stopped by the client
      }
      await peer!.server.send({ jsonrpc: '2.0', id, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } });
      return outcome;
    },
    expected: (c, f) => c === true && f === false,
  },
  [F.controlBlockedByStreams]: {
    transport: 'wt',
    async run(peer) {
      const { outcome, id } = await callTaken(peer!, 'download');
      const stream = await peer!.server.webtransport!.openExecutionStream({ requestId: id, streamTag: 1 });
      await stream.write(FILE);
      await peer!.server.send({ jsonrpc: '2.0', id: 'w1', method: 'ping' });
      const answer = await nextWithin(peer!.server, (m) => m.id === 'w1', 2000, 'no answer');
      await stream.close();
      await peer!.server.send({ jsonrpc: '2.0', id, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } });
      await outcome;
      return answer;
    },
    expected: (c, f) => c === 'result id "w1"' && f === 'no answer',
  },
  [F.truncatedHeaderClosesSession]: {
    transport: 'wt',
    async run(peer) {
      await truncatedStream(peer!);
      await peer!.server.send({ jsonrpc: '2.0', id: 'tc', method: 'ping' }).catch(() => undefined);
      return nextWithin(peer!.server, (m) => m.id === 'tc', 3000, 'no answer');
    },
    expected: (c, f) => c === 'result id "tc"' && f === 'no answer',
  },
  [F.injectionReportedAsInvalidReference]: {
    transport: 'wt',
    run: (peer) => injectionReport(peer!),
    expected: (c, f) => c === 'error -32002 id null' && f === 'error -32001 id null',
  },
  [F.bindingErrorIdZero]: {
    transport: 'wt',
    run: (peer) => injectionReport(peer!),
    expected: (c, f) => c === 'error -32002 id null' && f === 'error -32002 id 0',
  },
  [F.shortDatagramReportedWithId]: {
    transport: 'wt',
    run: (peer) => datagramReport(peer!, [0x01, 0x00, 0x00]),
    expected: (c, f) => c === 'none' && f === 'error -32600 id 0',
  },
  [F.reservedChannelDatagramReportedWithId]: {
    transport: 'wt',
    run: (peer) => datagramReport(peer!, datagram(0x00, 0x00)),
    expected: (c, f) => c === 'none' && f === 'error -32600 id 0',
  },
  [F.flaggedDatagramReportedWithId]: {
    transport: 'wt',
    run: (peer) => datagramReport(peer!, datagram(0x01, 0x01)),
    expected: (c, f) => c === 'none' && f === 'error -32600 id 0',
  },
  [F.unknownDatagramFailsCalls]: {
    transport: 'wt',
    async run(peer) {
      const { outcome, id } = await callTaken(peer!, 'echo');
      // A progress datagram naming request 4000000000, which is not in flight.
      await peer!.server.webtransport!.sendRawDatagram(new Uint8Array([0x01, 0x00, 0xee, 0x6b, 0x28, 0x00, 0xa0]));
      await until(() => peer!.client.connection.faults().some((fault) => fault.code === 'DATAGRAM_NOT_IN_FLIGHT'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await peer!.server.send({ jsonrpc: '2.0', id, result: { content: [] } });
      return outcome;
    },
    expected: (c, f) => c === true && f === false,
  },
  [F.droppedDatagramClosesSession]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      await peer!.server.webtransport!.sendRawDatagram(new Uint8Array([0x01, 0x00, 0x00]));
      return closedWithin(peer!.server);
    },
    expected: (c, f) => c === 'open' && f === 'closed',
  },
  [F.streamAfterShutdown]: {
    transport: 'wt',
    async run(peer) {
      const { outcome, id } = await callTaken(peer!, 'echo');
      await peer!.server.send({ jsonrpc: '2.0', method: '$/shutdown' });
      const opened = () => peer!.server.transcript.entries().some((e) => e.direction === 'received' && e.channel.kind === 'stream' && e.channel.header !== undefined);
      const seen = await until(opened);
      await peer!.server.send({ jsonrpc: '2.0', id, result: { content: [] } }).catch(() => undefined);
      await outcome;
      return seen;
    },
    expected: (c, f) => c === false && f === true,
  },
  [F.closeOnShutdown]: {
    transport: 'wt',
    async run(peer) {
      const { outcome, id } = await callTaken(peer!, 'download');
      const stream = await peer!.server.webtransport!.openExecutionStream({ requestId: id, streamTag: 1 });
      await stream.write(FILE);
      await peer!.server.send({ jsonrpc: '2.0', method: '$/shutdown' });
      const state = await closedWithin(peer!.server, 1500);
      await stream.close().catch(() => undefined);
      await peer!.server.send({ jsonrpc: '2.0', id, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } }).catch(() => undefined);
      await outcome;
      return state;
    },
    expected: (c, f) => c === 'open' && f === 'closed',
  },
  [F.resetInsteadOfClose]: {
    transport: 'wt',
    async run(peer) {
      await initialized(peer!);
      // Nothing in flight: the client drains at once and ends the session.
      await peer!.server.send({ jsonrpc: '2.0', method: '$/shutdown' });
      return (await peer!.server.closed).initiator;
    },
    expected: (c, f) => c === 'remote' && f === 'error',
  },
};
