// The proxy in front of an SDK server that primes every SSE stream (MCP 2025-11-25: an event with
// an id and an empty data field, sent when the server keeps an event store): a clean SDK session
// shows zero violations. The priming events are stream plumbing, not messages that failed to parse.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { formatViolation, startProxy } from '../../../src/peer/proxy/index.js';
import { connectHttp } from '../../../src/transport/http/index.js';
import { createSdkServer } from '../../fixtures/http-stdio/sdk-server.js';

const CALL = { timeout: 20_000 };

/** The SDK server behind StreamableHTTPServerTransport with an event store (so each SSE stream starts with a priming event). */
async function primingHost(): Promise<{ url: string; close(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (existing) return existing.handleRequest(req, res);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new InMemoryEventStore(),
        onsessioninitialized: (id) => void transports.set(id, transport),
      });
      await createSdkServer().connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

describe('the proxy in front of a server that primes its SSE streams', () => {
  it('a clean SDK session (protocol 2025-11-25) shows zero violations', async () => {
    const host = await primingHost();
    // The host does prime: its answer to initialize starts with an event that has an id and empty data.
    const probe = await connectHttp(host.url);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } };
    const answer = await probe.http.request({ headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) }, { timeoutMs: CALL.timeout });
    await probe.close();
    expect(answer.events[0]).toMatchObject({ data: '', id: expect.any(String) });
    const proxy = await startProxy({ listen: { transport: 'http', port: 0 }, upstream: { transport: 'http', url: host.url } });
    try {
      const wire = new StreamableHTTPClientTransport(new URL(proxy.url));
      const client = new Client({ name: 'priming-through-proxy', version: '1.0.0' });
      await client.connect(wire, CALL);
      const { tools } = await client.listTools(undefined, CALL);
      await client.callTool({ name: tools[0]!.name, arguments: { text: 'primed' } }, undefined, CALL);
      await wire.terminateSession();
      await client.close();
      await proxy.close();
      expect(proxy.violations().map(formatViolation)).toEqual([]);
    } finally {
      await proxy.close();
      await host.close();
    }
  }, 120_000);
});
