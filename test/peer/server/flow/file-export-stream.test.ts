// The shipped file-export wizard run to its end against a started mock server (profile C-32,
// WT-EXEC-10): over WebTransport the completing interaction.respond carries the file on an
// execution stream (header = that request id, tag = the ref/stream item's tag, bytes = the
// wizard's rendered export), interaction.complete names the stream; over HTTP, and for a request
// id no stream header can carry, the file stays inline.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../../../src/peer/server/index.js';
import { loadShippedWizards, renderExport, type Wizard } from '../../../../src/peer/server/flow/index.js';
import { SchemaRegistry } from '../../../../src/schema/index.js';
import type { Connection, ReceivedMessage } from '../../../../src/transport/connection.js';
import { connectHttp } from '../../../../src/transport/http/index.js';
import { connectWebTransport, initializeSession, type WebTransportSessionConnection } from '../../../../src/transport/webtransport/index.js';

type Message = Record<string, any>;
const LIVENESS = { timeoutMs: 20_000 };
const ROWS = 5000; // about 90 KB: more than one 64 KiB write
const FILE_NAME = 'report';

const wizard = loadShippedWizards().find((w) => w.name === 'file-export') as Wizard;
const expected = renderExport(wizard, { rows: ROWS, fileName: FILE_NAME, start: true })!;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const schemas = SchemaRegistry.load();

const isResponseTo = (id: number | string) => (r: ReceivedMessage) => {
  const m = r.message as Message;
  return m !== null && typeof m === 'object' && m.id === id && !('method' in m);
};

/** A raw client: requests with chosen ids, and the server's requests answered as a client would. */
function driver(connection: Connection) {
  let nextId = 10;
  const call = async (method: string, params: unknown, id: number | string = nextId++): Promise<Message> => {
    await connection.send({ jsonrpc: '2.0', id, method, params });
    return (await connection.next(isResponseTo(id), LIVENESS)).message as Message;
  };
  const serverRequest = async (method: string): Promise<Message> =>
    (await connection.next((r) => (r.message as Message)?.method === method && 'id' in (r.message as Message), LIVENESS)).message as Message;
  const acknowledge = (request: Message) => connection.send({ jsonrpc: '2.0', id: request.id, result: { acknowledged: true } });
  return { call, serverRequest, acknowledge };
}

/**
 * Runs file-export up to its last answer (rows, file name, the announced confirmation) and sends
 * that answer with `lastId`; returns the respond answer and the interaction.complete request.
 */
async function runExport(connection: Connection, lastId: number | string): Promise<{ respond: Message; complete: Message }> {
  const { call, serverRequest, acknowledge } = driver(connection);
  const start = await call('interaction.start', { toolName: 'file-export' });
  expect(start.error).toBeUndefined();
  const sessionId = start.result.sessionId as string;
  for (const value of [ROWS, FILE_NAME]) {
    await acknowledge(await serverRequest('interaction.prompt'));
    expect((await call('interaction.respond', { sessionId, response: { value } })).result).toEqual({ accepted: true, validation: { valid: true } });
  }
  await acknowledge(await serverRequest('interaction.continue'));
  await acknowledge(await serverRequest('interaction.prompt'));
  const respond = await call('interaction.respond', { sessionId, response: { value: true } }, lastId);
  const complete = await serverRequest('interaction.complete');
  await connection.send({ jsonrpc: '2.0', id: complete.id, result: { success: true } });
  expect(schemas.validate('flow/interaction-respond.result', respond)).toEqual([]);
  expect(schemas.validate('flow/interaction-complete.request', complete)).toEqual([]);
  return { respond, complete };
}

/** Every byte of an incoming execution stream, up to its FIN. */
async function readAll(readable: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return Buffer.concat(chunks);
    chunks.push(value);
  }
}

const inlineFile = {
  name: `${FILE_NAME}.csv`,
  mimeType: 'text/csv',
  rows: ROWS,
  size: expected.bytes.length,
  content: expected.bytes.toString('utf8'),
};

describe('file-export over WebTransport (C-32)', () => {
  let server: RunningMockServer;
  const clients: WebTransportSessionConnection[] = [];
  beforeAll(async () => {
    server = await startMockServer({ transport: 'wt' });
  });
  afterAll(async () => {
    // The server closes its sessions first (see test/peer/server/core/webtransport.test.ts).
    await server.close();
    await Promise.all(clients.map((c) => c.close()));
  });

  async function ready(encodings: string[]): Promise<WebTransportSessionConnection> {
    const client = await connectWebTransport(server.url, { certificateHash: server.certificateHash!, ...LIVENESS });
    clients.push(client);
    await initializeSession(client, { encodings, protocolVersion: '2025-11-25', ...LIVENESS });
    return client;
  }

  it.each([['cbor'], ['json']])(
    'sends the file on an execution stream of the completing interaction.respond, announced by ref/stream (%s)',
    async (encoding) => {
      const client = await ready([encoding]);
      const streamed = client.webtransport.nextExecutionStream((s) => s.header.requestId === 4242, LIVENESS);
      streamed.catch(() => undefined); // awaited below; this only keeps an early failure of runExport from leaving it unhandled
      const { respond, complete } = await runExport(client, 4242);
      const stream = await streamed;

      expect(respond.result).toEqual({
        accepted: true,
        validation: { valid: true },
        content: [{ type: 'ref/stream', streamTag: stream.header.streamTag, mimeType: 'text/csv' }],
      });
      const bytes = await readAll(stream.readable);
      expect(bytes.length).toBe(expected.bytes.length);
      expect(sha256(bytes)).toBe(sha256(expected.bytes));

      const file = complete.params.result.data.file;
      expect(file).toEqual({
        name: `${FILE_NAME}.csv`,
        mimeType: 'text/csv',
        rows: ROWS,
        size: expected.bytes.length,
        stream: { requestId: 4242, streamTag: stream.header.streamTag },
      });
      expect(complete.params.summary).toBe(`Exported ${ROWS} rows to ${FILE_NAME}.csv`);
    },
  );

  it('keeps the file inline when the completing request has a string id (no stream header can carry it)', async () => {
    const client = await ready(['cbor', 'json']);
    const { respond, complete } = await runExport(client, 'last-answer');
    expect(respond.result).toEqual({ accepted: true, validation: { valid: true } });
    expect(complete.params.result.data.file).toEqual(inlineFile);
  });

  it('keeps the file inline on an integer id too under the export-inline-on-webtransport fault (WT-EXEC-10)', async () => {
    const faulty = await startMockServer({ transport: 'wt', faults: ['export-inline-on-webtransport'] });
    try {
      const client = await connectWebTransport(faulty.url, { certificateHash: faulty.certificateHash!, ...LIVENESS });
      clients.push(client);
      await initializeSession(client, { encodings: ['json'], protocolVersion: '2025-11-25', ...LIVENESS });
      const { respond, complete } = await runExport(client, 4243);
      expect(respond.result).toEqual({ accepted: true, validation: { valid: true } });
      expect(complete.params.result.data.file).toEqual(inlineFile);
    } finally {
      await faulty.close();
    }
  });
});

describe('file-export over Streamable HTTP (C-32 fallback)', () => {
  let server: RunningMockServer;
  let connection: Connection | undefined;
  beforeAll(async () => {
    server = await startMockServer({ transport: 'http' });
  });
  afterAll(async () => {
    await connection?.close();
    await server.close();
  });

  it('keeps the file inline in interaction.complete and adds nothing to the respond result', async () => {
    connection = await connectHttp(server.url, { eventStream: true });
    await connection.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'file-export-test', version: '1' } },
    });
    expect(((await connection.next(isResponseTo(0), LIVENESS)).message as Message).result).toBeDefined();
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const { respond, complete } = await runExport(connection, 4242);
    expect(respond.result).toEqual({ accepted: true, validation: { valid: true } });
    expect(complete.params.result.data.file).toEqual(inlineFile);
  });
});
