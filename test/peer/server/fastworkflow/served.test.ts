// The extension served by the real mock-server core over an in-memory connection: what a client
// sees on the wire (capabilities, tools/list, tools/call results, prompts, progress).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastWorkflowExtension } from '../../../../src/peer/server/fastworkflow/extension.js';
import { FastWorkflowOptionsError } from '../../../../src/peer/server/fastworkflow/errors.js';
import { startRaw, type RawSession } from '../core/harness.js';
import { issues, registry } from './support.js';

const TOOLS = [
  'initialize',
  'get_workflow_info',
  'get_commands',
  'invoke_agent',
  'invoke_assistant',
  'execute_command',
  'new_conversation',
  'list_conversations',
  'activate_conversation',
  'post_feedback',
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fw-served-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function call(session: RawSession, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<Record<string, unknown>> {
  return session.request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });
}

describe('served by the mock-server core', () => {
  let session: RawSession;
  beforeAll(async () => {
    session = startRaw({ core: false, extensions: [fastWorkflowExtension({ storeDir: dir, traceDelivery: 'notifications/progress' })] });
    await session.initialize('2025-06-18');
  });
  afterAll(async () => {
    await session.close();
  });

  it('declares tools and prompts, and no resources', async () => {
    const other = startRaw({ core: false, extensions: [fastWorkflowExtension({ storeDir: dir })] });
    const answer = await other.initialize('2025-06-18');
    const capabilities = (answer['result'] as { capabilities: Record<string, unknown> }).capabilities;
    expect(capabilities).toHaveProperty('tools');
    expect(capabilities).toHaveProperty('prompts');
    expect(capabilities).not.toHaveProperty('resources');
    await other.close();
  });

  it('lists exactly the ten tools (FW-TOOL-1, FW-TOOL-2)', async () => {
    const answer = await session.request('tools/list');
    expect(registry.validate('core/2025-06-18/tools-list.result', answer)).toEqual([]);
    const tools = (answer['result'] as { tools: { name: string; inputSchema: { type: string } }[] }).tools;
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
  });

  it('answers tools/call with structuredContent and the same JSON as text (FW-TOOL-3)', async () => {
    const answer = await call(session, 'initialize', { user_id: 'wire' });
    expect(registry.validate('core/2025-06-18/tools-call.result', answer)).toEqual([]);
    const result = answer['result'] as { structuredContent: unknown; content: { text: string }[] };
    expect(issues('tool-initialize.output.payload', result.structuredContent)).toEqual([]);
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  });

  it('sends failures as JSON-RPC errors with data.httpStatus', async () => {
    const answer = await call(session, 'activate_conversation', { conversation_id: 'conv-missing' });
    expect(issues('http-status.error', answer)).toEqual([]);
    expect(answer['error']).toMatchObject({ code: -32004, data: { httpStatus: 404, user_id: 'wire' } });
  });

  it('answers arguments that break a tool inputSchema as a 422, not a bare -32602 (FW-SESSION-8, FW-ERR-2)', async () => {
    const answer = await call(session, 'initialize', { user_id: 42 });
    expect(issues('http-status.error', answer)).toEqual([]);
    expect(answer['error']).toMatchObject({ data: { httpStatus: 422 } });
  });

  it('streams trace events as progress notifications before the output event', async () => {
    const answer = await call(session, 'invoke_agent', { user_query: 'add milk' }, { progressToken: 'tok-1' });
    const output = (answer['result'] as { structuredContent: Record<string, unknown> }).structuredContent;
    expect(issues('ndjson-event.payload', output)).toEqual([]);
    expect(output['type']).toBe('output');
    const progress = session.pending().filter((m) => m['method'] === 'notifications/progress');
    expect(progress.length).toBe(2);
    for (const p of progress) {
      const params = p['params'] as { progressToken: string; message: string };
      expect(params.progressToken).toBe('tok-1');
      expect(issues('ndjson-event.payload', JSON.parse(params.message))).toEqual([]);
    }
  });

  it('serves prompts/list and prompts/get', async () => {
    const listed = await session.request('prompts/list');
    expect(registry.validate('core/2025-06-18/prompts-list.result', listed)).toEqual([]);
    const got = await session.request('prompts/get', { name: 'format-command', arguments: { intent: 'buy milk', metadata: 'add_item(title)' } });
    expect(registry.validate('core/2025-06-18/prompts-get.result', got)).toEqual([]);
    expect(JSON.stringify(got)).toContain('buy milk');
  });

  it('refuses resources/list: the capability is not declared (FW-PROMPT-5)', async () => {
    const answer = await session.request('resources/list');
    expect(answer['error']).toMatchObject({ code: -32601 });
  });
});

describe('options', () => {
  it.each([
    [{}, 'storeDir'],
    [{ storeDir: 'not-created', traceDelivery: 'sse' }, 'traceDelivery'],
    [{ storeDir: 'not-created', failureStyle: { 418: 'code' } }, 'failureStyle'],
    [{ storeDir: 'not-created', readings: 'lenient' }, 'readings'],
    [{ storeDir: 'not-created', listing: 'some' }, 'listing'],
    [{ storeDir: 'not-created', failureStyle: 'http' }, 'failureStyle'],
    [{ storeDir: 'not-created', slowCommandMs: -1 }, 'slowCommandMs'],
  ])('%j is refused naming %s', (options, option) => {
    let caught: unknown;
    try {
      fastWorkflowExtension(options as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FastWorkflowOptionsError);
    expect((caught as FastWorkflowOptionsError).option).toBe(option);
    expect((caught as FastWorkflowOptionsError).code).toBe('FASTWORKFLOW_OPTIONS_INVALID');
  });
});
