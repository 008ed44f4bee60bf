// A small server on the SDK v2 (`@modelcontextprotocol/server`), written the way its guides show
// ("Serve over stdio", "Serve on web-standard runtimes"): a factory building an McpServer with a
// tool, a prompt and a resource, served by `serveStdio(factory)` or by `createMcpHandler(factory)`
// behind the documented DNS-rebinding guard (`hostHeaderValidationResponse` ??
// `originValidationResponse` with the localhost lists). Node has no fetch-style server, so over
// HTTP a few lines of node:http hand each request to the handler's `fetch` as a web Request (what
// the SDK's Node adapter package does; that package is not installed here).
//
//   node test/interop/sdk-v2-server.mjs stdio
//   node test/interop/sdk-v2-server.mjs http      # listens on $PORT (default 3000) on 127.0.0.1
import http from 'node:http';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

function buildServer() {
  const server = new McpServer({ name: 'conformance-sdk-v2-fixture', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerPrompt('greet', { description: 'A greeting', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
  }));
  server.registerResource('readme', 'fixture://readme', { mimeType: 'text/plain', description: 'What this server is' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'A fixture on @modelcontextprotocol/server.' }],
  }));
  return server;
}

function serveHttp() {
  const handler = createMcpHandler(buildServer);
  const guarded = {
    async fetch(request) {
      const rejected = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
      return rejected ?? handler.fetch(request);
    },
  };
  const server = http.createServer(async (req, res) => {
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`), {
        method: req.method,
        headers,
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
        signal: aborted.signal,
      });
      const response = await guarded.fetch(request);
      res.writeHead(response.status, [...response.headers].flat());
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(error));
    }
  });
  const port = Number(process.env.PORT ?? 3000);
  server.listen(port, '127.0.0.1', () => console.error(`sdk-v2 fixture listening on port ${server.address().port}`));
  process.on('SIGINT', () => {
    server.close();
    server.closeAllConnections();
  });
}

const mode = process.argv[2];
if (mode === 'stdio') {
  const handle = serveStdio(buildServer);
  process.on('SIGINT', () => void handle.close());
} else if (mode === 'http') {
  serveHttp();
} else {
  console.error('usage: node sdk-v2-server.mjs stdio|http');
  process.exit(2);
}
