// An unmodified SDK Client and SDK Server talking over the MCP Flow WebTransport binding.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectSdkTransport, WebTransportSdkTransport } from '../../../src/transport/webtransport/sdk-transport.js';
import type { WebTransportServer } from '../../../src/transport/webtransport/server.js';
import { LIVENESS_MS, startServer } from './helpers.js';

let server: WebTransportServer;

beforeAll(async () => {
  server = await startServer({
    onConnection: (connection) => {
      const mcp = new Server({ name: 'wt-test-server', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: 'add',
            description: 'Adds two numbers',
            inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
          },
        ],
      }));
      mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
        const { a, b } = request.params.arguments as { a: number; b: number };
        return { content: [{ type: 'text', text: String(a + b) }] };
      });
      void mcp.connect(new WebTransportSdkTransport(connection));
    },
  });
});
afterAll(async () => {
  await server.close();
});

describe('SDK Client <-> SDK Server over WebTransport', () => {
  it('lists and calls tools, with CBOR negotiated underneath', async () => {
    const transport = await connectSdkTransport(server.url, { certificateHash: server.certificateHash, timeoutMs: LIVENESS_MS });
    const client = new Client({ name: 'wt-test-client', version: '1.0.0' });
    await client.connect(transport);
    expect(transport.connection.webtransport.state).toBe('READY');
    expect(transport.connection.webtransport.encoding).toBe('cbor');

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add']);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);

    const received = transport.connection.transcript.entries().filter((entry) => entry.direction === 'received' && entry.channel.kind === 'control');
    expect(received.at(-1)?.note).toBe('cbor');
    await client.close();
  });

  it('offers only JSON when asked, and the SDK still works', async () => {
    const transport = await connectSdkTransport(server.url, { certificateHash: server.certificateHash, encodings: ['json'], timeoutMs: LIVENESS_MS });
    const client = new Client({ name: 'wt-test-client', version: '1.0.0' });
    await client.connect(transport);
    expect(transport.connection.webtransport.encoding).toBe('json');
    const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(result.content).toEqual([{ type: 'text', text: '2' }]);
    await client.close();
  });
});
