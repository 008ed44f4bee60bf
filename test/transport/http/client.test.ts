// The Streamable HTTP client against answers real servers give that are not messages of the
// session: the GET stream refused with 405 and a JSON-RPC body, SSE priming events (empty data),
// HTTP error statuses with free bodies (Express's HTML 400 page, 413 for a large body).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectHttp, type HttpClientConnection, type HttpClientOptions } from '../../../src/transport/http/client.js';
import { ConnectionError } from '../../../src/transport/errors.js';

type Message = { jsonrpc: '2.0'; id?: string | number | null; method?: string; params?: unknown };
type Answer = (message: Message, req: http.IncomingMessage, res: http.ServerResponse) => void;
const WAIT = { timeoutMs: 20_000 };
const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1.0.0' } };

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A stateless endpoint: GET gets `onGet`, each POST body goes to `onPost` (initialize and notifications answered by default). */
async function scriptedEndpoint(options: { onGet?: (res: http.ServerResponse) => void; onPost?: Answer; raw?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean }) {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      req.resume();
      return (options.onGet ?? ((r) => json(r, 405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null })))(res);
    }
    if (options.raw?.(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Message;
      if (message.method === 'initialize') return json(res, 200, { jsonrpc: '2.0', id: message.id, result: INIT_RESULT });
      if (message.id === undefined) return void res.writeHead(202).end();
      if (options.onPost) return options.onPost(message, req, res);
      json(res, 200, { jsonrpc: '2.0', id: message.id, result: {} });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A connection with its own options to an endpoint that needs no initialize (each POST is answered alike). */
async function connectTo(endpoint: Awaited<ReturnType<typeof scriptedEndpoint>>, options: HttpClientOptions): Promise<HttpClientConnection> {
  cleanup.push(endpoint.close);
  const connection = await connectHttp(endpoint.url, { deleteSessionOnClose: false, ...options });
  cleanup.unshift(() => connection.close());
  return connection;
}

async function open(endpoint: Awaited<ReturnType<typeof scriptedEndpoint>>, eventStream = false): Promise<HttpClientConnection> {
  cleanup.push(endpoint.close);
  const connection = await connectHttp(endpoint.url, { eventStream, deleteSessionOnClose: false });
  cleanup.unshift(() => connection.close());
  await connection.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await connection.next(undefined, WAIT);
  await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return connection;
}

describe('the GET event stream refused', () => {
  it('a 405 with a JSON-RPC error body is not a message: the next answer is the ping result', async () => {
    const connection = await open(await scriptedEndpoint({}), true);
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await connection.next(undefined, WAIT)).message).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(connection.pending()).toEqual([]);
    expect(connection.faults()).toEqual([]);
    expect(connection.transcript.entries().some((e) => e.note?.includes('GET answered 405 without an event stream'))).toBe(true);
  });

  it('openEventStream reports the status, and a later GET may try again', async () => {
    const connection = await open(await scriptedEndpoint({}));
    expect(await connection.http.openEventStream()).toEqual({ status: 405 });
    expect(await connection.http.openEventStream()).toEqual({ status: 405 });
  });
});

describe('SSE events with empty data (MCP 2025-11-25 priming events)', () => {
  const priming: Answer = (message, _req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write('id: stream-1_0\nretry: 1000\ndata: \n\n');
    res.write('id: stream-1_1\ndata:\n\n');
    res.end(`event: message\nid: stream-1_2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} })}\n\n`);
  };

  it('are not messages and not faults: the answer after them is delivered', async () => {
    const connection = await open(await scriptedEndpoint({ onPost: priming }));
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await connection.next(undefined, WAIT)).message).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(connection.faults()).toEqual([]);
    const notes = connection.transcript.entries().map((e) => e.note ?? '');
    expect(notes).toContain('SSE event with empty data (id "stream-1_0", retry 1000 ms): not a message');
    expect(notes).toContain('SSE event with empty data (id "stream-1_1"): not a message');
  });

  it('are kept as events but not as messages of a raw request', async () => {
    const connection = await open(await scriptedEndpoint({ onPost: priming }));
    const response = await connection.http.request(
      { headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }) },
      WAIT,
    );
    expect(response.events.map((e) => e.data)).toEqual(['', '', JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} })]);
    expect(response.messages).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('data that is not JSON is still a fault', async () => {
    const connection = await open(
      await scriptedEndpoint({
        onPost: (_m, _req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          res.end('data: not json\n\n');
        },
      }),
    );
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => connection.faults().length > 0);
    expect(connection.faults().map((f) => f.code)).toEqual(['INVALID_JSON']);
  });
});

describe('HTTP error statuses to a POST', () => {
  const htmlPage = '<!DOCTYPE html>\n<html lang="en"><head><title>Error</title></head><body><pre>Bad Request</pre></body></html>\n';

  it('an HTML 400 page for an unparsable body is a refusal, not an INVALID_JSON fault', async () => {
    const endpoint = await scriptedEndpoint({
      raw: (req, res) => {
        if (req.headers['x-garbage'] === undefined) return false;
        req.resume();
        res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(htmlPage);
        return true;
      },
    });
    cleanup.push(endpoint.close);
    const connection = await connectHttp(endpoint.url, { headers: { 'x-garbage': '1' }, deleteSessionOnClose: false });
    cleanup.unshift(() => connection.close());
    await connection.sendRaw(new TextEncoder().encode('{"jsonrpc": "2.0", "id": 1,'));
    await connection.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await until(() => connection.http.refusals().length === 2);
    expect(connection.faults()).toEqual([]);
    expect(connection.http.refusals()).toMatchObject([
      { status: 400, requestIds: [], contentType: 'text/html', text: htmlPage, carriedMessage: false },
      { status: 400, requestIds: [7], contentType: 'text/html', carriedMessage: false },
    ]);
    expect(connection.pending()).toEqual([]);
  });

  it('413 for a large request is a refusal naming the request', async () => {
    const connection = await open(
      await scriptedEndpoint({
        raw: (req, res) => {
          if (Number(req.headers['content-length']) < 10_000) return false;
          req.resume();
          res.writeHead(413, { 'Content-Type': 'text/html; charset=utf-8', Connection: 'close' });
          res.end('<pre>PayloadTooLargeError: request entity too large</pre>');
          return true;
        },
      }),
    );
    await connection.send({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { payload: 'x'.repeat(20_000) } });
    await until(() => connection.http.refusals().length === 1);
    expect(connection.http.refusals()[0]).toMatchObject({ status: 413, requestIds: ['big'], carriedMessage: false });
    expect(connection.faults()).toEqual([]);
  });

  it('a JSON-RPC error in the body is delivered as well; an error without id is kept as text only', async () => {
    const connection = await open(
      await scriptedEndpoint({
        onPost: (message, _req, res) =>
          message.method === 'ping'
            ? json(res, 400, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null })
            : json(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }),
      }),
    );
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await connection.next(undefined, WAIT)).message).toMatchObject({ id: null, error: { code: -32600 } });
    await connection.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    await until(() => connection.http.refusals().length === 2);
    expect(connection.http.refusals().map((r) => [r.status, r.requestIds, r.carriedMessage])).toEqual([
      [400, [2], true],
      [400, [3], false],
    ]);
    expect(connection.pending()).toEqual([]);
    expect(connection.faults()).toEqual([]);
  });

  it('a 200 JSON body that does not parse is still a fault', async () => {
    const connection = await open(
      await scriptedEndpoint({
        onPost: (_m, _req, res) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end('{"jsonrpc": "2.0",');
        },
      }),
    );
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => connection.faults().length === 1);
    expect(connection.faults()[0]).toMatchObject({ code: 'INVALID_JSON', jsonRpcCode: -32700 });
    expect(connection.http.refusals()).toEqual([]);
  });
});

describe('a hostile server: what it does to a body is a ConnectionError or a fault, and memory stays bounded', () => {
  /** Answers with the head and the first bytes of a body, then drops the connection. */
  const midClose: Answer = (message, _req, res) => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { filler: 'x'.repeat(4096) } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
    res.write(text.slice(0, 100), () => res.socket?.destroy());
  };

  it('a body cut off mid-way rejects a raw request with a ConnectionError (not Node\'s bare "aborted")', async () => {
    const connection = await open(await scriptedEndpoint({ onPost: midClose }));
    const failure = await connection.http
      .request({ headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) }, WAIT)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({ code: 'CONNECTION_CLOSED', message: expect.stringMatching(/the response ended before its body was complete \(after 100 bytes/) });
  });

  it('a message POST whose answer is cut off mid-way is a fault, not a thrown error', async () => {
    const connection = await open(await scriptedEndpoint({ onPost: midClose }));
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => connection.faults().length === 1);
    expect(connection.faults()[0]).toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('a body announced over the limit is refused from its Content-Length, before it is read', async () => {
    const gib = 1024 ** 3;
    let written = 0;
    const endpoint = await scriptedEndpoint({
      onPost: (_message, _req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(gib) });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && written < gib) {
            written += chunk.byteLength;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        pump();
      },
    });
    const connection = await connectTo(endpoint, { maxBodyBytes: 1024 * 1024 });
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => connection.faults().length === 1);
    expect(connection.faults()[0]).toMatchObject({ code: 'BODY_TOO_LARGE', message: expect.stringContaining(`${gib} bytes (Content-Length) exceeds 1048576 bytes`) });
  });

  it('an SSE event that never ends is skipped at the limit as a fault; the stream goes on', async () => {
    const endpoint = await scriptedEndpoint({
      onPost: (message, _req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(`data: ${'x'.repeat(300_000)}`);
        res.end(`\n\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} })}\n\n`);
      },
    });
    const connection = await connectTo(endpoint, { maxEventBytes: 100_000 });
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await connection.next(undefined, WAIT)).message).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(connection.faults()).toEqual([expect.objectContaining({ code: 'SSE_EVENT_TOO_LARGE' })]);
  });

  it('a raw request reads an endless event stream only until it has kept 10000 events', async () => {
    const connection = await open(
      await scriptedEndpoint({
        onPost: (_message, _req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'flood' } })}\n\n`;
          // Never ends: only the runner's own bound (or the deadline, far away) stops the read.
          res.write(note.repeat(12_000));
        },
      }),
    );
    const response = await connection.http.request(
      { headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) },
      { timeoutMs: 600_000 },
    );
    expect(response).toMatchObject({ bodyKind: 'sse', incomplete: true });
    expect(response.events).toHaveLength(10_000);
    expect(connection.transcript.entries().some((entry) => entry.note === 'SSE stream cut at 10000 events: a raw answer keeps no more')).toBe(true);
  });

  it('messages nobody takes are dropped past the queue limit, the oldest first, and said so', async () => {
    const connection = await open(
      await scriptedEndpoint({
        onPost: (message, _req, res) => {
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'flood' } })}\n\n`;
          res.end(`${note.repeat(12_000)}data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} })}\n\n`);
        },
      }),
    );
    await connection.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await until(() => connection.pending().some((received) => (received.message as Message).id === 2));
    expect(connection.pending()).toHaveLength(10_000);
    expect(connection.transcript.entries().some((entry) => entry.note?.startsWith('more messages arrived unread than the queue keeps'))).toBe(true);
  });
});

/** Waits for a condition the connection reaches through its own I/O (bounded; never a timing assertion). */
async function until(condition: () => boolean, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
