// The official SDK Client (@modelcontextprotocol/sdk) against the mock server on every transport:
// WebTransport through the project's client adapter (HTTP/2, and HTTP/3 where the addon is
// installed), Streamable HTTP through StreamableHTTPClientTransport, stdio through
// StdioClientTransport. Each step of an ordinary session is recorded as "ok" or what went wrong;
// docs/interop.md holds the same table.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { connectSdkTransport, isHttp3Available, type WebTransportSdkTransport } from '../../src/transport/webtransport/index.js';
import { cliArgs } from '../support/cli.js';

const http3 = await isHttp3Available();

/** The steps of an ordinary session, in order. */
const STEPS = ['initialize', 'tools/list', 'prompts/list', 'resources/list', 'tools/call', 'resources/read', 'prompts/get'] as const;
type Step = (typeof STEPS)[number];
type Outcome = Record<Step, string>;

const EVERY_STEP_OK: Outcome = Object.fromEntries(STEPS.map((step) => [step, 'ok'])) as Outcome;

/**
 * Runs each step once and records "ok" or the error. Later steps use what earlier ones listed:
 * the echo tool, the first listed resource, the first listed prompt with every required argument.
 */
async function exercise(transport: Transport): Promise<Outcome> {
  const outcome = {} as Outcome;
  const client = new Client({ name: 'sdk-interop-client', version: '1.0.0' });
  const step = async <T>(name: Step, run: () => Promise<T>): Promise<T | undefined> => {
    // A client asks only for what the server declared (the SDK Client itself does not check).
    const feature = name === 'initialize' ? undefined : name.slice(0, name.indexOf('/'));
    if (feature !== undefined && client.getServerCapabilities()?.[feature as 'tools'] === undefined) {
      outcome[name] = `skipped: the server did not declare ${feature}`;
      return undefined;
    }
    try {
      const value = await run();
      outcome[name] = 'ok';
      return value;
    } catch (error) {
      outcome[name] = `failed: ${(error as Error).message}`;
      return undefined;
    }
  };
  try {
    await step('initialize', async () => {
      await client.connect(transport);
      if (client.getServerVersion()?.name === undefined) throw new TypeError('the initialize result named no serverInfo');
    });
    const tools = await step('tools/list', async () => (await client.listTools()).tools);
    const prompts = await step('prompts/list', async () => (await client.listPrompts()).prompts);
    const resources = await step('resources/list', async () => (await client.listResources()).resources);
    await step('tools/call', async () => {
      if (!tools?.some((tool) => tool.name === 'echo')) throw new TypeError('no echo tool listed');
      const result = await client.callTool({ name: 'echo', arguments: { text: 'from the official SDK client' } });
      if (!JSON.stringify(result.content).includes('from the official SDK client')) throw new TypeError(`echo answered ${JSON.stringify(result)}`);
    });
    await step('resources/read', async () => {
      const first = resources?.[0];
      if (first === undefined) throw new TypeError('no resource listed');
      const { contents } = await client.readResource({ uri: first.uri });
      if (contents.length === 0 || contents[0]!.uri === undefined) throw new TypeError(`reading ${first.uri} gave no contents`);
    });
    await step('prompts/get', async () => {
      const first = prompts?.[0];
      if (first === undefined) throw new TypeError('no prompt listed');
      const args = Object.fromEntries((first.arguments ?? []).filter((a) => a.required).map((a) => [a.name, 'conformance']));
      const { messages } = await client.getPrompt({ name: first.name, arguments: args });
      if (messages.length === 0) throw new TypeError(`prompt ${first.name} rendered no messages`);
    });
  } finally {
    await client.close();
  }
  return outcome;
}

async function withMock<T>(transport: 'wt' | 'http', options: { http?: 2 | 3; fastworkflow?: boolean }, run: (server: RunningMockServer) => Promise<T>): Promise<T> {
  const server = await startMockServer({ transport, port: 0, ...options });
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

describe('the official SDK Client against the mock server', () => {
  it('over WebTransport (HTTP/2, the project adapter): every step works, CBOR negotiated underneath', async () => {
    await withMock('wt', { http: 2 }, async (server) => {
      let adapter: WebTransportSdkTransport | undefined;
      const outcome = await exercise((adapter = await connectSdkTransport(server.url, { certificateHash: server.certificateHash! })));
      expect(outcome).toEqual(EVERY_STEP_OK);
      expect(adapter.connection.webtransport.encoding).toBe('cbor');
    });
  });

  it.skipIf(!http3)('over WebTransport (HTTP/3) (skipped: @fails-components/webtransport-transport-http3-quiche is not installed)', async () => {
    await withMock('wt', { http: 3 }, async (server) => {
      const outcome = await exercise(await connectSdkTransport(server.url, { certificateHash: server.certificateHash!, http: 3 }));
      expect(outcome).toEqual(EVERY_STEP_OK);
    });
  });

  it('over Streamable HTTP (StreamableHTTPClientTransport), FastWorkflow off: every step works', async () => {
    await withMock('http', { fastworkflow: false }, async (server) => {
      expect(await exercise(new StreamableHTTPClientTransport(new URL(server.url)))).toEqual(EVERY_STEP_OK);
    });
  });

  it('over Streamable HTTP with the default FastWorkflow profile: every step works except resources, which it does not declare', async () => {
    await withMock('http', {}, async (server) => {
      expect(await exercise(new StreamableHTTPClientTransport(new URL(server.url)))).toEqual({
        ...EVERY_STEP_OK,
        'resources/list': 'skipped: the server did not declare resources',
        'resources/read': 'skipped: the server did not declare resources',
      });
    });
  });

  it('over stdio (StdioClientTransport spawning mock-server --transport stdio): every step works', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: cliArgs('mock-server', '--transport', 'stdio'), stderr: 'ignore' });
    expect(await exercise(transport)).toEqual(EVERY_STEP_OK);
  });
});
