// startMockServer on each listening transport: the official SDK Client lists tools and calls echo,
// and a wizard runs end to end through raw messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMockServer, type RunningMockServer } from '../../../../src/peer/server/index.js';
import { connectSdkTransport } from '../../../../src/transport/webtransport/index.js';
import { openRaw, runRegistration } from './support.js';

describe.each(['wt', 'http'] as const)('startMockServer --transport %s', (transport) => {
  let server: RunningMockServer;
  let started: RunningMockServer | undefined;
  beforeAll(async () => {
    server = started = await startMockServer({ transport, port: 0 });
  });
  afterAll(async () => {
    await started?.close();
  });

  it('reports where it listens and what it serves', () => {
    expect(server.url).toMatch(transport === 'wt' ? /^https:\/\/127\.0\.0\.1:\d+\/mcp$/ : /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    if (transport === 'wt') expect(server.certificateHash).toMatch(/^[0-9a-f]{64}$/);
    else expect(server.certificateHash).toBeUndefined();
    expect(server.wizards).toEqual(['booking', 'file-export', 'registration']);
    expect(server.tools).toEqual(expect.arrayContaining(['echo', 'registration']));
    expect(server.tools.includes('invoke_agent')).toBe(transport === 'http');
  });

  it('serves the official SDK Client: tools/list and tools/call echo', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    const sdkTransport =
      transport === 'wt'
        ? await connectSdkTransport(server.url, { certificateHash: server.certificateHash! })
        : new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(sdkTransport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'add', 'registration', 'booking']));
      const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hello over ' + transport } });
      expect(echoed.isError ?? false).toBe(false);
      expect(JSON.stringify(echoed.content)).toContain('hello over ' + transport);
    } finally {
      await client.close();
    }
  });

  it('runs a wizard end to end: interaction.start -> prompts -> respond -> complete', async () => {
    const client = await openRaw(server);
    try {
      expect(client.initializeResult.capabilities.experimental.interactive).toMatchObject({ interactive: true });
      const result = await runRegistration(client);
      expect(result.data.user).toMatchObject({ name: 'Eve', email: 'eve@example.com' });
    } finally {
      await client.connection.close();
    }
  });

  it('answers interaction.start on a plain core tool with -32007', async () => {
    const client = await openRaw(server);
    try {
      const answer = await client.call('interaction.start', { toolName: 'echo' });
      expect(answer.error?.code).toBe(-32007);
    } finally {
      await client.connection.close();
    }
  });
});
