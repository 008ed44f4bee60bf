// Cases that met the shapes of the SDK's Express servers with false FAILs: a stateless server
// whose GET is answered 405 with a JSON-RPC error body (taken for a message, it shifted every later
// answer by one), Express's HTML 400 page for a body that is not JSON (the body of an HTTP error is
// free) and its 413 for a body over 100 kB (an HTTP error status is an answer over Streamable HTTP).
// The server is built as the SDK's simpleStatelessStreamableHttp example builds it, in-process.
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CaseRegistry, httpTarget, runConformance } from '../../src/harness/index.js';
import { serverCases } from '../../suites/server/index.js';

const CASES = [
  'mcp-core/notifications-not-answered',
  'mcp-core/unknown-method-error-shape',
  'bad-input/unknown-methods',
  'cancellation/cancel-unknown-request-ignored',
  'bad-input/http-unparsable-bodies',
  'bad-input/huge-and-deep-values',
];

function statelessSdkServer(): Promise<{ url: string; close(): Promise<void> }> {
  const app = createMcpExpressApp();
  app.post('/mcp', async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const server = new McpServer({ name: 'stateless-shape', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
  });
  app.get('/mcp', (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(405).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
  });
  return new Promise((resolve) => {
    const listener: Server = app.listen(0, '127.0.0.1', () => {
      const { port } = listener.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () =>
          new Promise<void>((done) => {
            listener.close(() => done());
            listener.closeAllConnections();
          }),
      });
    });
  });
}

let server: Awaited<ReturnType<typeof statelessSdkServer>>;
beforeAll(async () => {
  server = await statelessSdkServer();
});
afterAll(async () => {
  await server?.close();
});

describe("the SDK's stateless Express server shape over Streamable HTTP", () => {
  it('gets no FAIL, WARN, TIMEOUT or ERROR from the cases its GET 405 body, HTML 400 page and 413 used to mislead', async () => {
    const registry = new CaseRegistry();
    registry.registerAll(serverCases().filter((c) => CASES.includes(c.id)));
    const result = await runConformance({ registry, target: httpTarget(server.url), workers: 2, timeoutScale: 2, seed: 20_261_122 });
    expect(result.cases.map((c) => c.id).sort()).toEqual([...CASES].sort());
    const bad = result.cases.filter((c) => !['PASS', 'INFO'].includes(c.verdict)).map((c) => `${c.id} ${c.verdict}: ${c.reason ?? ''}`);
    expect(bad).toEqual([]);
    // The refusals were met and reported, not avoided.
    const notes = result.cases.flatMap((c) => c.checks.filter((k) => k.verdict === 'INFO').map((k) => k.message));
    expect(notes.some((n) => /text\/html/.test(n))).toBe(true);
    expect(notes.some((n) => /HTTP 413/.test(n))).toBe(true);
  }, 240_000);
});
