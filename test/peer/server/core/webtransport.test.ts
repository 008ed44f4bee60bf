// The mock server over a real WebTransport session (HTTP/2, loopback): negotiation, CBOR,
// execution streams for large results, $/cancel resetting streams, $/streamError, progress
// datagrams, and the probes of the WebTransport faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenWebTransport, type WebTransportServer } from '../../../../src/transport/webtransport/server.js';
import { connectWebTransport, initializeSession } from '../../../../src/transport/webtransport/client.js';
import type { WebTransportSessionConnection } from '../../../../src/transport/webtransport/session.js';
import { generateSelfSignedCertificate } from '../../../../src/transport/webtransport/tls.js';
import { webTransportBinding } from '../../../../src/peer/server/binding.js';
import { createMockServer, type MockServer } from '../../../../src/peer/server/server.js';
import { CORE_FAULT } from '../../../../src/peer/server/faults.js';
import { downloadByte } from '../../../../src/peer/server/core/tools.js';

const LIVENESS = { timeoutMs: 20_000 };
type Msg = Record<string, unknown>;

let wt: WebTransportServer;
// The WebTransport binding: attached to the listener's sessions, and the server's extension (result.transport).
const binding = webTransportBinding();
let current: MockServer = createMockServer({ extensions: [binding] });
const clients: WebTransportSessionConnection[] = [];

beforeAll(async () => {
  wt = await listenWebTransport({ tls: await generateSelfSignedCertificate(), ...binding.listener, onConnection: (connection) => void current.serve(connection) });
});
afterAll(async () => {
  // The server closes its sessions first: closing clients first can leave the library's HTTP/2
  // RTT ping timer firing on a destroyed session (an uncaught ERR_HTTP2_INVALID_SESSION).
  await wt.close();
  await Promise.all(clients.map((c) => c.close()));
});

async function open(faults: string[] = [], encodings?: string[]): Promise<WebTransportSessionConnection> {
  current = createMockServer({ faults, extensions: [binding] });
  const client = await connectWebTransport(wt.url, { certificateHash: wt.certificateHash, ...LIVENESS });
  clients.push(client);
  return client;
}

async function ready(faults: string[] = [], encodings: string[] = ['cbor', 'json']) {
  const client = await open(faults);
  const { result } = await initializeSession(client, { encodings, protocolVersion: '2025-11-25', ...LIVENESS });
  return { client, result };
}

async function call(client: WebTransportSessionConnection, id: number, name: string, args: Msg, meta?: Msg) {
  await client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });
}

const answerTo = async (client: WebTransportSessionConnection, id: unknown) =>
  (await client.next((r) => (r.message as Msg)['id'] === id && !('method' in (r.message as Msg)), LIVENESS)).message as Msg;

/** Reads a stream to its end: the byte count, or the error that ended it. */
async function drain(readable: ReadableStream<Uint8Array>): Promise<{ bytes: number; ok: boolean; patternOk: boolean }> {
  const reader = readable.getReader();
  let bytes = 0;
  let patternOk = true;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { bytes, ok: true, patternOk };
      for (let i = 0; i < value.length; i += 997) if (value[i] !== downloadByte(bytes + i)) patternOk = false;
      bytes += value.length;
    }
  } catch {
    return { bytes, ok: false, patternOk };
  }
}

describe('mock server over WebTransport', () => {
  it('negotiates CBOR, advertises transport capabilities and serves tools (WT-INIT-3, WT-ENC-6)', async () => {
    const { client, result } = await ready();
    expect(result['transport']).toMatchObject({ type: 'mcp-flow', encoding: 'cbor', datagramsSupported: true });
    expect(client.webtransport.encoding).toBe('cbor');
    await call(client, 1, 'echo', { text: 'over cbor' });
    expect((await answerTo(client, 1))['result']).toEqual({ content: [{ type: 'text', text: 'over cbor' }] });
  });

  it('returns a large file as a ref/stream on an execution stream (WT-EXEC-4, WT-EXEC-6)', async () => {
    const { client } = await ready();
    await call(client, 2, 'download', { bytes: 300_000 });
    const stream = await client.webtransport.nextExecutionStream((s) => s.header.requestId === 2, LIVENESS);
    expect(stream.header.streamTag).toBe(1);
    expect(await drain(stream.readable)).toEqual({ bytes: 300_000, ok: true, patternOk: true });
    expect((await answerTo(client, 2))['result']).toEqual({ content: [{ type: 'ref/stream', streamTag: 1, mimeType: 'application/octet-stream' }] });
  });

  it('sends progress as datagrams when datagrams are supported (WT-DGRAM-6)', async () => {
    const { client } = await ready();
    await call(client, 3, 'slow', { steps: 2, stepMs: 0 }, { progressToken: 'p' });
    await answerTo(client, 3);
    const datagram = await client.webtransport.nextDatagram((d) => d.requestId === 3, LIVENESS);
    expect(datagram.channel).toBe(1);
    expect(datagram.decoded).toMatchObject({ progressToken: 'p', progress: expect.any(Number) });
  });

  it('refuses a non-mcp-flow transport type with -32600 (WT-INIT-2, enforced by the session)', async () => {
    const client = await open();
    await client.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' }, transport: { type: 'other' } },
    });
    expect((await answerTo(client, 0))['error']).toMatchObject({ code: -32600 });
  });
});

/** Observations of the WebTransport faults: each differs between the correct and the faulty server. */
const PROBES: Record<string, (faults: string[]) => Promise<unknown>> = {
  [CORE_FAULT.wtTransportMissing]: async (faults) => 'transport' in (await ready(faults)).result,
  [CORE_FAULT.wtCancelKeepsStream]: async (faults) => {
    const { client } = await ready(faults);
    await call(client, 5, 'download', { bytes: 8 * 1024 * 1024 });
    const stream = await client.webtransport.nextExecutionStream((s) => s.header.requestId === 5, LIVENESS);
    await client.send({ jsonrpc: '2.0', method: '$/cancel', params: { requestId: 5 } });
    expect((await answerTo(client, 5))['error']).toMatchObject({ code: -32000 });
    return (await drain(stream.readable)).ok;
  },
  [CORE_FAULT.wtStreamErrorWithFin]: async (faults) => {
    const { client } = await ready(faults);
    await call(client, 6, 'download', { bytes: 300_000, failAfterBytes: 100_000 });
    const stream = await client.webtransport.nextExecutionStream((s) => s.header.requestId === 6, LIVENESS);
    return (await drain(stream.readable)).ok;
  },
  [CORE_FAULT.wtNoStreamErrorNotification]: async (faults) => {
    const { client } = await ready(faults);
    await call(client, 7, 'download', { bytes: 300_000, failAfterBytes: 100_000 });
    const stream = await client.webtransport.nextExecutionStream((s) => s.header.requestId === 7, LIVENESS);
    await drain(stream.readable);
    expect((await answerTo(client, 7))['result']).toMatchObject({ isError: true });
    return client.pending().map((r) => (r.message as Msg)['method']).filter((m) => m === '$/streamError').length;
  },
  [CORE_FAULT.wtCancelledAnswered]: async (faults) => {
    const { client } = await ready(faults);
    await call(client, 8, 'slow', { steps: 1000, stepMs: 50 });
    await client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } });
    // Everything sent before the ping's answer has been handled.
    await client.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    await answerTo(client, 9);
    return client.pending().some((r) => (r.message as Msg)['id'] === 8);
  },
  [CORE_FAULT.wtTransportTypeNotEchoed]: async (faults) => {
    const transport = (await ready(faults)).result['transport'] as Msg;
    return [transport['type'], transport['version']];
  },
  [CORE_FAULT.wtUnboundedMessageSize]: async (faults) => ((await ready(faults)).result['transport'] as Msg)['maxMessageSize'],
  [CORE_FAULT.wtUnknownEncodingRefused]: async (faults) => {
    const client = await open(faults);
    await client.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' }, transport: { type: 'mcp-flow', version: '0.1', encodings: ['x-unknown', 'json'] } },
    });
    return 'result' in (await answerTo(client, 0));
  },
};

describe('each WebTransport fault changes observable behaviour', () => {
  it.each(Object.entries(PROBES))('%s', async (name, probe) => {
    const correct = await probe([]);
    const faulty = await probe([name]);
    expect(faulty).not.toEqual(correct);
  });
});

describe('the correct server over WebTransport', () => {
  it('reports a mid-transfer failure with $/streamError and a reset (WT-STREAMERR-1, WT-STREAMERR-2)', async () => {
    expect(await PROBES[CORE_FAULT.wtStreamErrorWithFin]!([])).toBe(false);
    expect(await PROBES[CORE_FAULT.wtNoStreamErrorNotification]!([])).toBe(1);
  });

  it('resets the execution stream of a request cancelled with $/cancel (WT-CANCEL-3)', async () => {
    expect(await PROBES[CORE_FAULT.wtCancelKeepsStream]!([])).toBe(false);
  });
});
