// Mock server benchmark over loopback WebTransport (HTTP/2): N concurrent sessions, each holding an
// MCP Flow interaction session, measure the latency of interaction.respond at p50/p99; the
// baseline is the same measure for a bare MCP SDK Server answering an echo tool over the same
// binding (the SDK adapter), with the same N sessions, in the same run. Prints ratios (mock/SDK).
// Run: npx tsx bench/mock-server.ts [--sessions 32] [--requests 100]
import { performance } from 'node:perf_hooks';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { webTransportBinding } from '../src/peer/server/binding.js';
import { startMockServer } from '../src/peer/server/start.js';
import type { ReceivedMessage } from '../src/transport/connection.js';
import { connectWebTransport, initializeSession, listenWebTransport, WebTransportSdkTransport } from '../src/transport/webtransport/index.js';
import type { WebTransportSessionConnection } from '../src/transport/webtransport/index.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    console.error(`--${name} needs a positive integer`);
    process.exit(2);
  }
  return value;
};
const SESSIONS = option('sessions', 32);
const REQUESTS = option('requests', 100);
const WARMUP = 10;
const DEADLINE = { timeoutMs: 30_000 };

type Message = Record<string, any>;
const responseTo = (id: number) => (r: ReceivedMessage) => (r.message as Message)?.id === id && !('method' in (r.message as Message));
const serverRequest = (method: string) => (r: ReceivedMessage) => (r.message as Message)?.method === method && 'id' in (r.message as Message);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function openSessions(url: string, certificateHash: string): Promise<WebTransportSessionConnection[]> {
  return Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const connection = await connectWebTransport(url, { certificateHash });
      await initializeSession(connection, { timeoutMs: DEADLINE.timeoutMs });
      return connection;
    }),
  );
}

/** One session's interaction.respond latencies: registration wizards run over and over, each answer timed. */
async function flowLoad(connection: WebTransportSessionConnection, count: number): Promise<number[]> {
  const answers = ['Eve', 'eve@example.com', 33, 'free', true, null, null];
  const latencies: number[] = [];
  let id = 1;
  while (latencies.length < count + WARMUP) {
    const startId = id++;
    await connection.send({ jsonrpc: '2.0', id: startId, method: 'interaction.start', params: { toolName: 'registration' } });
    const sessionId = ((await connection.next(responseTo(startId), DEADLINE)).message as Message).result.sessionId as string;
    for (const value of answers) {
      const prompt = (await connection.next(serverRequest('interaction.prompt'), DEADLINE)).message as Message;
      await connection.send({ jsonrpc: '2.0', id: prompt.id, result: { acknowledged: true } });
      const respondId = id++;
      const began = performance.now();
      await connection.send({ jsonrpc: '2.0', id: respondId, method: 'interaction.respond', params: { sessionId, response: { value } } });
      const answer = (await connection.next(responseTo(respondId), DEADLINE)).message as Message;
      latencies.push(performance.now() - began);
      if (answer.result?.accepted !== true) throw new Error(`interaction.respond was not accepted: ${JSON.stringify(answer)}`);
    }
    const complete = (await connection.next(serverRequest('interaction.complete'), DEADLINE)).message as Message;
    await connection.send({ jsonrpc: '2.0', id: complete.id, result: { success: true } });
  }
  // Whole wizards overshoot: keep exactly `count` timed answers, as the echo baseline does.
  return latencies.slice(WARMUP, WARMUP + count);
}

/** One session's tools/call echo latencies against the SDK server. */
async function echoLoad(connection: WebTransportSessionConnection, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let id = 1; id <= count + WARMUP; id++) {
    const began = performance.now();
    await connection.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: `call ${id}` } } });
    const answer = (await connection.next(responseTo(id), DEADLINE)).message as Message;
    if (id > WARMUP) latencies.push(performance.now() - began);
    if (answer.error) throw new Error(`echo failed: ${JSON.stringify(answer.error)}`);
  }
  return latencies;
}

async function measure(load: (c: WebTransportSessionConnection, n: number) => Promise<number[]>, connections: WebTransportSessionConnection[]) {
  const all = (await Promise.all(connections.map((c) => load(c, REQUESTS)))).flat().sort((a, b) => a - b);
  return { p50: percentile(all, 50), p99: percentile(all, 99), count: all.length };
}

async function main(): Promise<void> {
  const mock = await startMockServer({
    transport: 'wt',
    encodings: ['cbor', 'json'],
    limits: { maxSessions: SESSIONS + 8 },
    flow: { limits: { requestsPerWindow: 1_000_000, maxPrompts: 1_000_000, maxSessionsPerConnection: 1_000_000 } },
  });
  const sdk = await listenWebTransport({
    maxSessions: SESSIONS + 8,
    // The binding's rules the SDK does not know (admission before READY, result.transport), as the mock has them.
    ...webTransportBinding().listener,
    onConnection: (connection) => {
      const server = new Server({ name: 'bare-sdk-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => ({
        content: [{ type: 'text', text: String(request.params.arguments?.['text'] ?? '') }],
      }));
      void server.connect(new WebTransportSdkTransport(connection));
    },
  });
  try {
    const flowSessions = await openSessions(mock.url, mock.certificateHash!);
    const echoSessions = await openSessions(sdk.url, sdk.certificateHash);
    const flow = await measure(flowLoad, flowSessions);
    const echo = await measure(echoLoad, echoSessions);
    await Promise.all([...flowSessions, ...echoSessions].map((c) => c.close()));
    const ms = (value: number) => `${value.toFixed(3)} ms`;
    console.log(`${SESSIONS} concurrent WebTransport sessions (HTTP/2, loopback), ${REQUESTS} timed requests each`);
    console.log(`mock server interaction.respond: p50 ${ms(flow.p50)}  p99 ${ms(flow.p99)}  (${flow.count} samples)`);
    console.log(`bare SDK Server tools/call echo: p50 ${ms(echo.p50)}  p99 ${ms(echo.p99)}  (${echo.count} samples)`);
    console.log(`ratio mock/SDK: p50 ${(flow.p50 / echo.p50).toFixed(2)}x  p99 ${(flow.p99 / echo.p99).toFixed(2)}x`);
  } finally {
    await Promise.all([mock.close(), sdk.close()]);
  }
}

await main();
