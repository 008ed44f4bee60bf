// The official SDK's McpServer as a real peer: a couple of tools, a resource and a prompt, written
// the way the SDK's own documentation shows, served over the WebTransport binding by
// listenSdkServer (src/transport/webtransport/sdk-server-transport.ts) with the binding's rules
// (src/peer/server/binding.ts) attached to each session.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { webTransportBinding } from '../../src/peer/server/binding.js';
import { listenSdkServer, type WebTransportServer } from '../../src/transport/webtransport/index.js';

export const SDK_SERVER_INFO = { name: 'sdk-mcp-server-fixture', version: '1.0.0' } as const;

/** A fresh McpServer with tools `echo`, `add` and `ask-model` (sampling), the resource `sdk://fixture/readme` and the prompt `greet`. */
export function createSdkMcpServer(): McpServer {
  const server = new McpServer(SDK_SERVER_INFO);
  server.registerTool(
    'echo',
    { description: 'Echoes the message back', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  // Asks the client's model (sampling/createMessage) before answering: a request that stays in
  // flight until the client answers, which the cancellation cases need.
  server.registerTool(
    'ask-model',
    { description: 'Asks the client model a question (sampling) and returns its answer', inputSchema: { question: z.string() } },
    async ({ question }, extra) => {
      const answer = await server.server.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 100 },
        { signal: extra.signal },
      );
      return { content: [{ type: 'text', text: answer.content.type === 'text' ? answer.content.text : `(${answer.content.type})` }] };
    },
  );
  server.registerResource(
    'readme',
    'sdk://fixture/readme',
    { description: 'A short text resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'served by the official MCP SDK over WebTransport' }] }),
  );
  server.registerPrompt(
    'greet',
    { description: 'Greets someone by name', argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] }),
  );
  return server;
}

/** listenSdkServer on 127.0.0.1, port 0, serving a fresh createSdkMcpServer() per session. */
export function listenSdkMcpServer(options: { http?: 2 | 3 } = {}): Promise<WebTransportServer> {
  return listenSdkServer({ host: '127.0.0.1', port: 0, ...(options.http ? { http: options.http } : {}), hooks: webTransportBinding().listener.hooks, createServer: () => createSdkMcpServer() });
}
