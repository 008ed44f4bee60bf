// A server nobody on this team wrote: the official SDK Client through the proxy to
// @modelcontextprotocol/server-everything (spawned on stdio for the session) shows no violation,
// and the record replays against a fresh instance with every answer the same.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { connectUpstream, formatReplayedAnswer, formatViolation, parseRecord, replaySession, startProxy } from '../../../src/peer/proxy/index.js';

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const installed = existsSync(everything);
const CALL = { timeout: 20_000 };

describe.skipIf(!installed)('@modelcontextprotocol/server-everything through the proxy (stdio upstream)', () => {
  it('a clean SDK session: zero violations; replayed against a fresh server: every answer the same', async () => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(everything)} stdio`;
    const proxy = await startProxy({ listen: { transport: 'http', port: 0 }, upstream: { transport: 'stdio', command } });
    try {
      const wire = new StreamableHTTPClientTransport(new URL(proxy.url));
      const client = new Client({ name: 'third-party-through-proxy', version: '1.0.0' });
      await client.connect(wire, CALL);
      const { tools } = await client.listTools(undefined, CALL);
      expect(tools.map((tool) => tool.name)).toContain('echo');
      const { resources } = await client.listResources(undefined, CALL);
      await client.callTool({ name: 'echo', arguments: { message: 'through the proxy' } }, undefined, CALL);
      await client.readResource({ uri: resources[0]!.uri }, CALL);
      const { prompts } = await client.listPrompts(undefined, CALL);
      await client.getPrompt({ name: prompts.find((prompt) => prompt.name === 'simple-prompt')?.name ?? prompts[0]!.name, arguments: {} }, CALL);
      await wire.terminateSession();
      await client.close();
      await proxy.close();
      expect(proxy.violations().map(formatViolation)).toEqual([]);

      const [session] = parseRecord(proxy.record.transcript.toNdjson());
      const connection = await connectUpstream({ transport: 'stdio', command });
      try {
        const answers = await replaySession(session!, connection, { timeoutMs: CALL.timeout });
        expect(answers.filter((answer) => answer.subject.startsWith('answer to')).length).toBeGreaterThanOrEqual(7);
        expect(answers.filter((answer) => answer.differences.length > 0).map(formatReplayedAnswer)).toEqual([]);
      } finally {
        await connection.close();
      }
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
