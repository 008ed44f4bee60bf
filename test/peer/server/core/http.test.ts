// The mock server over Streamable HTTP (loopback): one MCP session per Mcp-Session-Id, progress
// on the POST's event stream, and the SDK client talking to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenHttp, type HttpListener } from '../../../../src/transport/http/server.js';
import { connectHttp } from '../../../../src/transport/http/client.js';
import { createMockServer } from '../../../../src/peer/server/server.js';

type Msg = Record<string, unknown>;
const LIVENESS = { timeoutMs: 20_000 };
let listener: HttpListener;
const mock = createMockServer();

beforeAll(async () => {
  listener = await listenHttp({ onSession: (connection) => void mock.serve(connection) });
});
afterAll(async () => {
  await listener.close();
});

describe('mock server over Streamable HTTP', () => {
  it('serves initialize, tools and progress on the request stream', async () => {
    const client = await connectHttp(listener.url);
    try {
      await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      const init = (await client.next((r) => (r.message as Msg)['id'] === 1, LIVENESS)).message as Msg;
      expect(init['result']).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: expect.any(String) } });
      await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await client.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { steps: 2, stepMs: 0 }, _meta: { progressToken: 'p' } } });
      const answer = (await client.next((r) => (r.message as Msg)['id'] === 2, LIVENESS)).message as Msg;
      expect(answer['result']).toEqual({ content: [{ type: 'text', text: 'completed 2 steps' }] });
      const progress = client.pending().filter((r) => (r.message as Msg)['method'] === 'notifications/progress');
      expect(progress.map((r) => ((r.message as Msg)['params'] as Msg)['progress'])).toEqual([1, 2]);
    } finally {
      await client.close();
    }
  });

  it('interoperates with the MCP SDK client', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo');
      expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({ structuredContent: { sum: 3 } });
      const prompt = await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } });
      expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Hi Ada!' });
      const page = await client.listResources();
      expect(page.resources.length).toBe(10);
      expect(typeof page.nextCursor).toBe('string');
    } finally {
      await client.close();
    }
  });
});
