// The Streamable HTTP mock (FastWorkflow on) declares `completions` and lists the FastWorkflow
// prompts: completing an argument of each listed prompt is answered with a completion, not
// "unknown prompt".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../src/index.js';
import { connectHttp, type HttpClientConnection } from '../../src/transport/http/index.js';

type Msg = Record<string, unknown>;

describe('the HTTP mock completes the prompts it lists', () => {
  let server: RunningMockServer;
  let connection: HttpClientConnection;
  let id = 0;
  async function call(method: string, params: Msg): Promise<Msg> {
    const requestId = ++id;
    await connection.send({ jsonrpc: '2.0', id: requestId, method, params });
    return (await connection.next((r) => (r.message as Msg).id === requestId, { timeoutMs: 10_000 })).message as Msg;
  }

  beforeAll(async () => {
    server = await startMockServer({ transport: 'http' });
    connection = await connectHttp(server.url);
    const init = await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    expect((init.result as Msg).capabilities).toMatchObject({ completions: {}, prompts: {} });
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
  afterAll(async () => {
    await connection?.close();
    await server?.close();
  });

  it('every listed prompt argument completes (format-command included)', async () => {
    const listed = (await call('prompts/list', {})).result as { prompts: { name: string; arguments: { name: string }[] }[] };
    expect(listed.prompts.map((p) => p.name)).toContain('format-command');
    for (const prompt of listed.prompts) {
      for (const argument of prompt.arguments) {
        const answer = await call('completion/complete', { ref: { type: 'ref/prompt', name: prompt.name }, argument: { name: argument.name, value: '' } });
        expect(answer.error, `${prompt.name}.${argument.name}`).toBeUndefined();
        expect(answer.result).toEqual({ completion: { values: [], total: 0, hasMore: false } });
      }
    }
  });

  it('an unknown prompt, argument or resource template is -32602', async () => {
    const unknown = await call('completion/complete', { ref: { type: 'ref/prompt', name: 'no-such-prompt' }, argument: { name: 'x', value: '' } });
    expect(unknown.error).toMatchObject({ code: -32602, message: expect.stringContaining('unknown prompt') });
    const badArgument = await call('completion/complete', { ref: { type: 'ref/prompt', name: 'format-command' }, argument: { name: 'colour', value: '' } });
    expect(badArgument.error).toMatchObject({ code: -32602 });
    // FastWorkflow replaces the core's resources (none declared): no template to complete either.
    const resource = await call('completion/complete', { ref: { type: 'ref/resource', uri: 'mock://items/{id}' }, argument: { name: 'id', value: '' } });
    expect(resource.error).toMatchObject({ code: -32602 });
  });
});
