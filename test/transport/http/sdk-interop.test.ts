// The SDK's own Streamable HTTP transports as the well-behaved reference, and the raw client
// connection talking to the same SDK server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectHttp, type HttpClientConnection } from '../../../src/transport/http/client.js';
import { ConnectFailedError } from '../../../src/transport/errors.js';
import type { ReceivedMessage } from '../../../src/transport/connection.js';
import { hostSdkServerOverHttp, type SdkHttpHost } from '../../fixtures/http-stdio/sdk-http-host.js';

const PROTOCOL_VERSION = '2025-06-18';
const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } },
});
const answerTo = (id: number) => (received: ReceivedMessage) => (received.message as { id?: unknown }).id === id;
const WAIT = { timeoutMs: 20_000 };

describe.each([
  { mode: 'SSE answers', enableJsonResponse: false },
  { mode: 'JSON answers', enableJsonResponse: true },
])('Streamable HTTP against the SDK server ($mode)', ({ enableJsonResponse }) => {
  let host: SdkHttpHost;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    host = await hostSdkServerOverHttp({ enableJsonResponse });
  });
  afterAll(async () => {
    await Promise.allSettled(open.map((item) => item.close()));
    await host?.close();
  });

  it('SDK client lists and calls tools through the SDK server transport', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    open.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
  });

  async function initialized(): Promise<HttpClientConnection> {
    const connection = await connectHttp(host.url);
    open.push(connection);
    await connection.send(initialize(1));
    const answer = await connection.next(answerTo(1), WAIT);
    expect((answer.message as { result: { protocolVersion: string } }).result.protocolVersion).toBe(PROTOCOL_VERSION);
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return connection;
  }

  it('raw connection learns the session id and protocol version, then lists and calls tools', async () => {
    const connection = await initialized();
    expect(connection.http.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(connection.http.protocolVersion).toBe(PROTOCOL_VERSION);

    await connection.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await connection.next(answerTo(2), WAIT);
    expect((list.message as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name)).toEqual([
      'echo',
      'add',
    ]);
    expect(list.channel).toMatchObject({ kind: 'http', method: 'POST', status: 200 });

    await connection.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    const echo = await connection.next(answerTo(3), WAIT);
    expect(echo.message).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'hi' }] } });

    // Every later POST carried the learned headers; the notification was accepted with 202.
    const sent = connection.transcript.entries().filter((entry) => entry.direction === 'sent' && entry.channel.kind === 'http');
    const listPost = sent.find((entry) => (entry.decoded as { id?: number } | undefined)?.id === 2)!;
    expect(listPost.channel).toMatchObject({
      headers: {
        'Mcp-Session-Id': connection.http.sessionId,
        'MCP-Protocol-Version': PROTOCOL_VERSION,
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
      },
    });
    // send() resolves once the POST is written; the notification's 202 is read in the background.
    const accepted = () =>
      connection.transcript.entries().find((entry) => entry.direction === 'received' && entry.channel.kind === 'http' && entry.channel.status === 202);
    await expect.poll(accepted, { timeout: WAIT.timeoutMs }).toBeDefined();
    expect(connection.faults()).toEqual([]);
  });

  it('sendRaw posts bytes as given and queues the parse error the server answers with', async () => {
    const connection = await initialized();
    await connection.sendRaw(new TextEncoder().encode('{"jsonrpc":"2.0","id":'));
    const error = await connection.next((received) => 'error' in (received.message as object), WAIT);
    expect(error.message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(error.channel).toMatchObject({ kind: 'http', status: 400 });
    const sentRaw = connection.transcript.entries().find((entry) => entry.direction === 'sent' && entry.hex === Buffer.from('{"jsonrpc":"2.0","id":').toString('hex'));
    expect(sentRaw).toBeDefined();
  });

  it('http.request returns the raw status and body of requests the server must refuse', async () => {
    const connection = await initialized();
    const sessionId = connection.http.sessionId!;

    const missingSession = await connection.http.request({
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      omitSessionId: true,
    });
    expect(missingSession.status).toBe(400);
    expect(missingSession.bodyKind).toBe('json');
    expect(missingSession.messages).toEqual([expect.objectContaining({ jsonrpc: '2.0', error: expect.objectContaining({ code: -32000 }) })]);
    expect(JSON.parse(missingSession.text)).toEqual(missingSession.messages[0]);

    const unknownSession = await connection.http.request({
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': 'not-a-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }),
    });
    expect(unknownSession.status).toBe(404);

    const notAcceptable = await connection.http.request({
      headers: { 'Content-Type': 'application/json', Accept: 'text/plain' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list' }),
    });
    expect(notAcceptable.status).toBe(406);

    const notJson = await connection.http.request({
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: 'not json at all',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.headers['content-type']).toBe('application/json');
    expect(notJson.text).toBe('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"},"id":null}');

    // Observed SDK 1.x behaviour: a JSON value that is no JSON-RPC message also gets -32700 (JSON-RPC
    // 2.0 would say -32600 with id 5); the mock server's endpoint answers -32600 (see server.test.ts).
    const notMessage = await connection.http.request({
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":5}',
    });
    expect(notMessage.status).toBe(400);
    expect(notMessage.text).toBe('{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON-RPC message"},"id":null}');

    // The known session header went out unless omitted or overridden.
    const sentWithId = (id: number) =>
      connection.transcript.entries().find((entry) => entry.direction === 'sent' && (entry.decoded as { id?: number } | undefined)?.id === id)!;
    const headersOf = (id: number) => (sentWithId(id).channel as { headers?: Record<string, string> }).headers;
    expect(headersOf(9)).not.toHaveProperty('Mcp-Session-Id');
    expect(headersOf(10)).toMatchObject({ 'Mcp-Session-Id': 'not-a-session' });
    expect(headersOf(11)).toMatchObject({ 'Mcp-Session-Id': sessionId });
    // Raw requests add nothing else: no Accept or Content-Type beyond what was given.
    expect(Object.keys(headersOf(11)!).sort()).toEqual(['Accept', 'Content-Type', 'Mcp-Session-Id']);
  });

  it('close() deletes the session, after which the server no longer knows it', async () => {
    const connection = await initialized();
    const sessionId = connection.http.sessionId!;
    await connection.close();
    const deleted = connection.transcript.entries().find((entry) => entry.channel.kind === 'http' && entry.channel.method === 'DELETE' && entry.direction === 'received');
    expect(deleted?.channel).toMatchObject({ status: 200 });
    await expect(connection.next(undefined, WAIT)).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });

    const probe = await connectHttp(host.url, { sessionId, protocolVersion: PROTOCOL_VERSION, deleteSessionOnClose: false });
    open.push(probe);
    const after = await probe.http.request({
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });
});

describe('Streamable HTTP client errors', () => {
  it('rejects what is not an http(s) URL with a typed error', async () => {
    await expect(connectHttp('not a url')).rejects.toBeInstanceOf(ConnectFailedError);
    await expect(connectHttp('ftp://127.0.0.1/mcp')).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('reports an endpoint nobody listens on as CONNECT_FAILED', async () => {
    // Port 1 on loopback: nothing listens there in a test environment.
    const connection = await connectHttp('http://127.0.0.1:1/mcp', { deleteSessionOnClose: false });
    try {
      await expect(connection.send(initialize(1))).rejects.toBeInstanceOf(ConnectFailedError);
      await expect(connection.http.request({ method: 'GET' })).rejects.toBeInstanceOf(ConnectFailedError);
    } finally {
      await connection.close();
    }
  });
});
