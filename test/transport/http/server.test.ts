// The mock server's Streamable HTTP endpoint, driven by the SDK client, by the raw client connection
// and by hand-made requests that a conforming endpoint must refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectHttp, type HttpClientConnection } from '../../../src/transport/http/client.js';
import { listenHttp, type HttpListener, type HttpServerConnection, type HttpServerOptions } from '../../../src/transport/http/server.js';
import type { RawHttpRequest, ReceivedMessage } from '../../../src/transport/connection.js';
import { FIXTURE_TOOLS } from '../../fixtures/http-stdio/sdk-server.js';
import { httpFaultOptions } from '../../../src/peer/server/binding-http.js';

type Message = { jsonrpc: '2.0'; id?: string | number | null; method?: string; params?: Record<string, any> };
const WAIT = { timeoutMs: 20_000 };
const POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const idIs = (id: unknown) => (received: ReceivedMessage) => (received.message as { id?: unknown }).id === id;

/** A minimal MCP server behind the endpoint: initialize, tools/list, tools/call (`progress` streams). */
function serveSession(connection: HttpServerConnection): void {
  void (async () => {
    for (;;) {
      let received: ReceivedMessage;
      try {
        received = await connection.next();
      } catch {
        return;
      }
      const message = received.message as Message;
      if (message.id === undefined || message.method === undefined) continue;
      const id = message.id;
      const answer = (result: unknown) => connection.send({ jsonrpc: '2.0', id, result });
      switch (message.method) {
        case 'initialize':
          await answer({
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'endpoint-test', version: '1.0.0' },
          });
          break;
        case 'tools/list':
          await answer({ tools: [...FIXTURE_TOOLS, { name: 'progress', inputSchema: { type: 'object' } }] });
          break;
        case 'tools/call': {
          const token = message.params?._meta?.progressToken;
          if (message.params?.name === 'progress') {
            await connection.send({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: token ?? 'none', progress: 1, total: 2 },
            });
          }
          await answer({ content: [{ type: 'text', text: JSON.stringify(message.params?.arguments ?? {}) }] });
          break;
        }
        case 'test/raw-answer':
          await connection.sendRaw(new TextEncoder().encode('this is not json'));
          break;
        default:
          await connection.send({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${message.method}` } });
      }
    }
  })();
}

async function startEndpoint(options: Partial<HttpServerOptions> = {}) {
  const sessions: HttpServerConnection[] = [];
  const listener = await listenHttp({
    ...options,
    onSession: (connection) => {
      sessions.push(connection);
      serveSession(connection);
    },
  });
  return { listener, sessions };
}

const initialize = (id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('listenHttp: a Streamable HTTP endpoint', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    endpoint = await startEndpoint({ maxBodyBytes: 4096 });
  });
  afterAll(async () => {
    await Promise.allSettled(open.map((item) => item.close()));
    await endpoint?.listener.close();
  });

  async function session(): Promise<HttpClientConnection> {
    const connection = await connectHttp(endpoint.listener.url);
    open.push(connection);
    await connection.send(initialize());
    await connection.next(idIs(1), WAIT);
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return connection;
  }

  const serverSide = (client: HttpClientConnection) => endpoint.sessions.find((s) => s.sessionId === client.http.sessionId)!;
  const request = (client: HttpClientConnection, raw: RawHttpRequest) => client.http.request(raw, WAIT);

  it('listens on 127.0.0.1 at /mcp', () => {
    expect(endpoint.listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('serves the SDK client: initialize, tools/list, tools/call with progress on the POST stream', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    open.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.listener.url)));
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'progress']);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'progress', arguments: { n: 1 } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
    expect(result.content).toEqual([{ type: 'text', text: '{"n":1}' }]);
    expect(progress).toEqual([1]);
  });

  it('assigns each session its own random id and queues the notification it accepted with 202', async () => {
    const a = await session();
    const b = await session();
    expect(a.http.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.http.sessionId).not.toBe(b.http.sessionId);
    // send() resolves once the POST is written; its 202 is read in the background.
    const accepted = () => a.transcript.entries().find((entry) => entry.channel.kind === 'http' && entry.channel.status === 202);
    await expect.poll(accepted, { timeout: WAIT.timeoutMs }).toBeDefined();
    const server = serverSide(a);
    expect(server.transcript.entries().some((entry) => (entry.decoded as Message | undefined)?.method === 'notifications/initialized')).toBe(true);
  });

  it('streams a notification and then the answer on one SSE response, in order', async () => {
    const client = await session();
    await client.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'progress', arguments: {}, _meta: { progressToken: 't7' } } });
    const first = await client.next(undefined, WAIT);
    const second = await client.next(undefined, WAIT);
    expect(first.message).toMatchObject({ method: 'notifications/progress', params: { progressToken: 't7' } });
    expect(second.message).toMatchObject({ id: 7, result: {} });
    expect(second.channel).toMatchObject({ kind: 'http', method: 'POST', status: 200, headers: { 'content-type': 'text/event-stream' } });
  });

  it('answers a batch of requests with one JSON array', async () => {
    const client = await session();
    await client.send([
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b', method: 'no/such/method' },
    ]);
    const a = await client.next(idIs('a'), WAIT);
    const b = await client.next(idIs('b'), WAIT);
    expect(b.message).toMatchObject({ error: { code: -32601 } });
    expect(a.channel).toMatchObject({ headers: { 'content-type': 'application/json' } });
    const body = client.transcript.entries().find((entry) => entry.direction === 'received' && Array.isArray(entry.decoded));
    expect((body!.decoded as Message[]).map((item) => item.id)).toEqual(['a', 'b']);
  });

  it('refuses requests without a session header (400) and with an unknown one (404)', async () => {
    const client = await session();
    const missing = await request(client, { headers: POST_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), omitSessionId: true });
    expect(missing.status).toBe(400);
    expect(missing.messages).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } }]);
    const unknown = await request(client, { headers: { ...POST_HEADERS, 'Mcp-Session-Id': 'f'.repeat(32) }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(unknown.status).toBe(404);
    expect(unknown.messages[0]).toMatchObject({ error: { code: -32001 } });
  });

  it('refuses foreign origins (403) and accepts loopback ones', async () => {
    const client = await session();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    const foreign = await request(client, { headers: { ...POST_HEADERS, Origin: 'http://evil.example' }, body });
    expect(foreign.status).toBe(403);
    const local = await request(client, { headers: { ...POST_HEADERS, Origin: 'http://localhost:3000' }, body });
    expect(local.status).toBe(200);
    expect(local.messages[0]).toMatchObject({ id: 3, result: { tools: expect.any(Array) } });
  });

  it('refuses a body over the limit (413), a wrong Accept (406), a wrong Content-Type (415) and PUT (405)', async () => {
    const client = await session();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(5000) } } });
    expect((await request(client, { headers: POST_HEADERS, body: big })).status).toBe(413);
    const small = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect((await request(client, { headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: small })).status).toBe(406);
    expect((await request(client, { headers: { 'Content-Type': 'text/plain', Accept: POST_HEADERS.Accept }, body: small })).status).toBe(415);
    const put = await request(client, { method: 'PUT', headers: POST_HEADERS, body: small });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
    expect(serverSide(client).faults().map((fault) => fault.code)).toEqual(['BODY_TOO_LARGE', 'NOT_ACCEPTABLE', 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('answers malformed JSON with -32700 and a non-message with -32600, recording faults', async () => {
    const client = await session();
    const garbage = await request(client, { headers: POST_HEADERS, body: '{"jsonrpc":' });
    expect(garbage.status).toBe(400);
    expect(garbage.messages[0]).toMatchObject({ id: null, error: { code: -32700 } });
    const invalid = await request(client, { headers: POST_HEADERS, body: '{"jsonrpc":"2.0","id":5}' });
    expect(invalid.status).toBe(400);
    expect(invalid.messages[0]).toMatchObject({ id: 5, error: { code: -32600 } });
    const emptyBatch = await request(client, { headers: POST_HEADERS, body: '[]' });
    expect(emptyBatch.status).toBe(400);
    expect(emptyBatch.messages[0]).toMatchObject({ error: { code: -32600 } });
    expect(serverSide(client).faults().map((fault) => [fault.code, fault.jsonRpcCode])).toEqual([
      ['INVALID_JSON', -32700],
      ['INVALID_MESSAGE', -32600],
      ['INVALID_BATCH', -32600],
    ]);
  });

  it('refuses an unsupported MCP-Protocol-Version header (400)', async () => {
    const client = await session();
    const answer = await request(client, {
      headers: { ...POST_HEADERS, 'MCP-Protocol-Version': '1999-01-01' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }),
    });
    expect(answer.status).toBe(400);
  });

  it('delivers server messages sent with no open POST on the GET stream, one stream per session', async () => {
    const client = await session();
    const server = serverSide(client);
    await server.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(await client.http.openEventStream()).toEqual({ status: 200 });
    const pushed = await client.next(undefined, WAIT);
    expect(pushed.message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(pushed.channel).toMatchObject({ method: 'GET', status: 200 });
    const second = await request(client, { method: 'GET', headers: { Accept: 'text/event-stream' } });
    expect(second.status).toBe(409);
  });

  it('http.request returns what an endless GET stream sent once the deadline passes', async () => {
    const client = await session();
    const server = serverSide(client);
    await server.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
    // The deadline is what ends this request: long enough for a loaded machine to answer and flush.
    const stream = await client.http.request({ method: 'GET', headers: { Accept: 'text/event-stream' } }, { timeoutMs: 3_000 });
    expect(stream.status).toBe(200);
    expect(stream.bodyKind).toBe('sse');
    expect(stream.incomplete).toBe(true);
    expect(stream.events).toEqual([{ event: 'message', data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } }) }]);
    expect(stream.text).toBe(`event: message\ndata: ${stream.events[0]!.data}\n\n`);
  });

  it('ends the session on DELETE; the id is then unknown', async () => {
    const client = await session();
    const server = serverSide(client);
    const deleted = await request(client, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await server.closed).toMatchObject({ initiator: 'remote' });
    const after = await request(client, { headers: POST_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }) });
    expect(after.status).toBe(404);
  });

  it('sendRaw writes the bytes as the POST body exactly, and the client reports them as a fault', async () => {
    const client = await session();
    await client.send({ jsonrpc: '2.0', id: 'raw', method: 'test/raw-answer' });
    await expect.poll(() => client.faults().map((fault) => fault.code), { timeout: 20_000 }).toContain('INVALID_JSON');
    const body = client.transcript.entries().find((entry) => entry.direction === 'received' && entry.error?.code === 'INVALID_JSON');
    expect(Buffer.from(body!.hex!, 'hex').toString()).toBe('this is not json');
    expect(client.pending()).toEqual([]);
    const sent = serverSide(client).transcript.entries().find((entry) => entry.direction === 'sent' && entry.hex === body!.hex);
    expect(sent).toBeDefined();
  });

  it('sends configured headers on every request and opens the GET stream after initialized when asked', async () => {
    const client = await connectHttp(endpoint.listener.url, { headers: { Authorization: 'Bearer token-1' }, eventStream: true });
    open.push(client);
    await client.send(initialize());
    await client.next(idIs(1), WAIT);
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const server = serverSide(client);
    expect(server.hasEventStream).toBe(true);
    await server.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    const pushed = await client.next(undefined, WAIT);
    expect(pushed.message).toMatchObject({ method: 'notifications/resources/list_changed' });
    expect(pushed.channel).toMatchObject({ method: 'GET' });
    const requests = server.transcript.entries().filter((entry) => entry.direction === 'received' && entry.channel.kind === 'http');
    expect(requests.map((entry) => (entry.channel as { method?: string }).method)).toEqual(['POST', 'POST', 'GET']);
    for (const entry of requests) expect(entry.channel).toMatchObject({ headers: { authorization: 'Bearer token-1' } });
  });

  it('uses an overridden session id and protocol version on later sends', async () => {
    const client = await session();
    const realId = client.http.sessionId;
    client.http.setSessionId('no-such-session');
    await client.send({ jsonrpc: '2.0', id: 20, method: 'tools/list' });
    const unknown = await client.next(undefined, WAIT);
    expect(unknown.message).toMatchObject({ error: { code: -32001 } });
    expect(unknown.channel).toMatchObject({ status: 404 });
    client.http.setSessionId(realId);
    client.http.setProtocolVersion('1999-01-01');
    await client.send({ jsonrpc: '2.0', id: 21, method: 'tools/list' });
    expect((await client.next(undefined, WAIT)).channel).toMatchObject({ status: 400 });
    client.http.setProtocolVersion(undefined);
    await client.send({ jsonrpc: '2.0', id: 22, method: 'tools/list' });
    expect((await client.next(undefined, WAIT)).message).toMatchObject({ id: 22, result: {} });
    const last = client.transcript.entries().filter((entry) => entry.direction === 'sent').at(-1)!;
    expect(last.channel).not.toHaveProperty(['headers', 'MCP-Protocol-Version']);
  });

  it('closing the listener ends every session', async () => {
    const own = await startEndpoint();
    const client = await connectHttp(own.listener.url, { deleteSessionOnClose: false });
    open.push(client);
    await client.send(initialize());
    await client.next(idIs(1), WAIT);
    await own.listener.close();
    expect(await own.sessions[0]!.closed).toMatchObject({ initiator: 'local' });
  });
});

describe('listenHttp response modes', () => {
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  let client: HttpClientConnection;

  beforeAll(async () => {
    endpoint = await startEndpoint({ responseMode: 'json', allowedOrigins: ['https://app.example'] });
    client = await connectHttp(endpoint.listener.url);
  });
  afterAll(async () => {
    await client?.close();
    await endpoint?.listener.close();
  });

  it("'json' answers with one JSON body and sends other messages on the GET stream", async () => {
    await client.send(initialize());
    await client.next(idIs(1), WAIT);
    await client.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'progress', arguments: {} } });
    const answer = await client.next(idIs(2), WAIT);
    expect(answer.channel).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(client.pending()).toEqual([]);
    await client.http.openEventStream();
    const progress = await client.next(undefined, WAIT);
    expect(progress.message).toMatchObject({ method: 'notifications/progress' });
    expect(progress.channel).toMatchObject({ method: 'GET' });
  });

  it('an explicit origin list allows exactly those origins', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect((await client.http.request({ headers: { ...POST_HEADERS, Origin: 'https://app.example' }, body }, WAIT)).status).toBe(200);
    expect((await client.http.request({ headers: { ...POST_HEADERS, Origin: 'http://localhost' }, body }, WAIT)).status).toBe(403);
  });
});

describe('the Streamable HTTP faults, as the listener options they change (src/peer/server/binding-http.ts)', () => {
  it('origin-not-validated serves a foreign Origin (CORE-HTTP-1) that the healthy listener refuses with 403', async () => {
    const statusFor = async (faults: string[]) => {
      const endpoint = await startEndpoint(httpFaultOptions({ has: (name) => faults.includes(name) }));
      const client = await connectHttp(endpoint.listener.url);
      try {
        const body = JSON.stringify(initialize());
        const response = await client.http.request({ headers: { ...POST_HEADERS, Origin: 'https://conformance-attacker.invalid' }, body }, WAIT);
        return response.status;
      } finally {
        await client.close();
        await endpoint.listener.close();
      }
    };
    expect(await statusFor([])).toBe(403);
    expect(await statusFor(['origin-not-validated'])).toBe(200);
  });
});

describe('every POST gets its answer: request ids no answer could name', () => {
  it('answers a request whose id is a fraction, or an integer past 2^53, on its own POST with -32600 and id null (the POST used to hang)', async () => {
    const endpoint = await startEndpoint();
    const client = await connectHttp(endpoint.listener.url);
    try {
      await client.send(initialize());
      await client.next(idIs(1), WAIT);
      for (const id of ['0.5', '1e308', '9007199254740993']) {
        const answer = await client.http.request({ headers: POST_HEADERS, body: `{"jsonrpc":"2.0","id":${id},"method":"ping"}` }, { timeoutMs: 5_000 });
        expect(answer.status, id).toBe(400);
        expect(answer.messages, id).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('Invalid Request') } }]);
      }
      // In a batch, the other requests are still served on the same POST.
      const batch = await client.http.request({ headers: POST_HEADERS, body: '[{"jsonrpc":"2.0","id":0.5,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"tools/list"}]' }, { timeoutMs: 5_000 });
      expect(batch.status).toBe(200);
      expect(batch.messages.flat()).toEqual(expect.arrayContaining([expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }), expect.objectContaining({ id: 7 })]));
    } finally {
      await client.close();
      await endpoint.listener.close();
    }
  });
});

describe('session hygiene: a cap and idle expiry', () => {
  it('refuses an initialize beyond maxSessions with 429, and admits one again once a session ended', async () => {
    const endpoint = await startEndpoint({ maxSessions: 2 });
    const clients = [await connectHttp(endpoint.listener.url), await connectHttp(endpoint.listener.url), await connectHttp(endpoint.listener.url)];
    try {
      for (const client of clients.slice(0, 2)) {
        await client.send(initialize());
        await client.next(idIs(1), WAIT);
      }
      const refused = await clients[2]!.http.request({ headers: POST_HEADERS, body: JSON.stringify(initialize()) }, WAIT);
      expect(refused.status).toBe(429);
      expect(refused.messages[0]).toMatchObject({ id: null, error: { code: -32000 } });
      await clients[0]!.close();
      await clients[2]!.send(initialize());
      await clients[2]!.next(idIs(1), WAIT);
      expect(endpoint.listener.sessions()).toHaveLength(2);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await endpoint.listener.close();
    }
  });

  it('ends a session nothing crossed for sessionIdleTimeoutMs; its id then gets 404', async () => {
    const endpoint = await startEndpoint({ sessionIdleTimeoutMs: 200 });
    const client = await connectHttp(endpoint.listener.url);
    try {
      await client.send(initialize());
      await client.next(idIs(1), WAIT);
      const session = endpoint.sessions[0]!;
      const ended = await session.closed;
      expect(ended.reason).toBe('idle for 200 ms');
      expect(endpoint.listener.sessions()).toEqual([]);
      const later = await client.http.request({ headers: POST_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) }, WAIT);
      expect(later.status).toBe(404);
    } finally {
      await client.close();
      await endpoint.listener.close();
    }
  });

  it('keeps a session whose POST is still owed an answer, however long it takes', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    const sessions: HttpServerConnection[] = [];
    // Idle periods long enough that the slow request reaches the server within the first, however
    // loaded the machine (before it arrives the session is idle indeed).
    const idleMs = 400;
    const listener = await listenHttp({
      sessionIdleTimeoutMs: idleMs,
      onSession: (connection) => {
        sessions.push(connection);
        void (async () => {
          for (;;) {
            const received = await connection.next().catch(() => undefined);
            if (!received) return;
            const message = received.message as Message;
            if (message.id === undefined) continue;
            if (message.method === 'test/slow') {
              arrived();
              await held;
            }
            await connection.send({ jsonrpc: '2.0', id: message.id, result: message.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } : {} });
          }
        })();
      },
    });
    const client = await connectHttp(listener.url);
    try {
      await client.send(initialize());
      await client.next(idIs(1), WAIT);
      const answered = client.send({ jsonrpc: '2.0', id: 2, method: 'test/slow' });
      await slowArrived;
      // Several idle periods pass while the answer is owed.
      await new Promise((resolve) => setTimeout(resolve, 3 * idleMs));
      expect(sessions[0]!.isClosed).toBe(false);
      release();
      await answered;
      expect((await client.next(idIs(2), WAIT)).message).toMatchObject({ id: 2, result: {} });
    } finally {
      release();
      await client.close();
      await listener.close();
    }
  });
});
