// The readings switches of the FastWorkflow profile (readings.ts): each takes the accepted reading
// it names (docs/profile.md C-13, C-26, C-27, C-33, C-34), and the presets set them all.
import { afterEach, describe, expect, it } from 'vitest';
import { ActiveFaults, type ToolResult } from '../../../../src/peer/server/extension.js';
import { FASTWORKFLOW_FAULTS } from '../../../../src/peer/server/fastworkflow/faults.js';
import { withFastWorkflowHttpFront } from '../../../../src/peer/server/fastworkflow/http-front.js';
import { ALTERNATE_READINGS, RECOMMENDED_READINGS, resolveReadings } from '../../../../src/peer/server/fastworkflow/readings.js';
import { createMockServer } from '../../../../src/peer/server/server.js';
import { listenHttp } from '../../../../src/transport/http/index.js';
import { Harness, issues } from './support.js';

const harnesses: Harness[] = [];
function harness(options: ConstructorParameters<typeof Harness>[0] = {}): Harness {
  const h = new Harness(options);
  harnesses.push(h);
  return h;
}
afterEach(() => {
  for (const h of harnesses.splice(0)) h.cleanup();
});

/** A result sent as JSON text only: its one text item, parsed. */
function textJson(result: ToolResult): Record<string, unknown> {
  expect(result.isError).toBeUndefined();
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
}

describe('presets', () => {
  it('recommended by default, alternate on request, single switches override a preset', () => {
    expect(resolveReadings()).toEqual(RECOMMENDED_READINGS);
    expect(resolveReadings('alternate')).toEqual(ALTERNATE_READINGS);
    expect(resolveReadings('alternate', { listing: 'all', traceDelivery: undefined })).toEqual({ ...ALTERNATE_READINGS, listing: 'all' });
  });

  it('the alternate preset differs from the recommended one at every switch', () => {
    for (const key of Object.keys(RECOMMENDED_READINGS) as (keyof typeof RECOMMENDED_READINGS)[]) {
      expect(ALTERNATE_READINGS[key], key).not.toEqual(RECOMMENDED_READINGS[key]);
    }
  });

  it('the extension takes its readings from the preset', () => {
    expect(harness({ readings: 'alternate' }).ext.readings).toEqual(ALTERNATE_READINGS);
    expect(harness().ext.readings).toEqual(RECOMMENDED_READINGS);
  });
});

describe('failure styles (C-26)', () => {
  it("text: an isError result stating the status as fastapi_mcp does, with FastAPI's body", async () => {
    const h = harness({ failureStyle: 'text' });
    await h.ok('initialize', { user_id: 'ann' });
    const failure = await h.fail('activate_conversation', { conversation_id: 'none' });
    expect(failure.status).toBe(404);
    const result = failure.response['result'] as ToolResult;
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^Error calling activate_conversation\. Status code: 404\. Response: \{/);
    expect(JSON.parse(text.slice(text.indexOf('{')))).toMatchObject({ user_id: 'ann', conversation_id: 'none' });
  });

  it('per status: the alternate preset reports 404 as the code, 422 as isError with httpStatus', async () => {
    const h = harness({ readings: 'alternate' });
    expect((await h.fail('get_commands')).response['error']).toMatchObject({ code: 404 });
    textJson(await h.raw('initialize'));
    const invalid = await h.fail('post_feedback', { binary_or_numeric_score: null, nl_feedback: null });
    expect(invalid.status).toBe(422);
    expect((invalid.response['result'] as ToolResult).structuredContent).toMatchObject({ httpStatus: 422 });
  });
});

describe('results (C-13, C-33, rule 4)', () => {
  it('resultEncoding text: the JSON as one indented text item, no structuredContent', async () => {
    const h = harness({ resultEncoding: 'text' });
    const out = textJson(await h.raw('initialize'));
    expect(issues('tool-initialize.output.payload', out)).toEqual([]);
    expect((await h.raw('get_workflow_info')).content[0]).toMatchObject({ text: expect.stringContaining('\n  "workflow_name"') });
  });

  it("dataContracts canonical: FastWorkflow's CommandOutput (strings, no top-level success, Actions and Recommendations)", async () => {
    const h = harness({ dataContracts: 'canonical' });
    await h.ok('initialize');
    const out = await h.ok('invoke_assistant', { user_query: 'add milk' });
    expect(out).not.toHaveProperty('success');
    expect(out).toMatchObject({ workflow_name: expect.any(String), context: expect.any(String), command_name: 'TodoList/add_item', command_parameters: '<title>milk</title>' });
    const responses = out['command_responses'] as Record<string, unknown>[];
    expect(responses[0]).toMatchObject({ response: expect.any(String), success: true, artifacts: expect.any(Object), next_actions: expect.any(Array), recommendations: expect.any(Array) });
    expect(issues('command-output.payload', out)).not.toEqual([]);
  });

  it('extraMembers: user_id and conversation_id next to workflow_info, turn_key on traces, created_at on listed conversations', async () => {
    const h = harness({ extraMembers: true });
    const init = await h.ok('initialize', { user_id: 'ann' });
    expect(init).toMatchObject({ workflow_info: expect.any(Object), user_id: 'ann', conversation_id: expect.any(String) });
    const run = await h.ok('execute_command', { command: 'what_is_current_context' });
    expect((run['traces'] as Record<string, unknown>[])[0]).toHaveProperty('turn_key');
    const listed = await h.ok('list_conversations');
    expect((listed['conversations'] as Record<string, unknown>[])[0]).toHaveProperty('created_at');
  });
});

describe('conversations (C-34)', () => {
  it('listing stored: the active conversation is listed once new_conversation stored it', async () => {
    const h = harness({ listing: 'stored' });
    const init = await h.ok('initialize', { user_id: 'ann' });
    expect(init).not.toHaveProperty('conversation_id');
    await h.ok('invoke_assistant', { user_query: 'list' });
    expect((await h.ok('list_conversations'))['conversations']).toEqual([]);
    const first = h.ext.profile.runtime('session-1')!.conversationId;
    await h.ok('new_conversation');
    expect(((await h.ok('list_conversations'))['conversations'] as { conversation_id: string }[]).map((c) => c.conversation_id)).toEqual([first]);
  });
});

describe('traces (C-27, FW-STREAM-3)', () => {
  it('ndjson: with a progressToken the result is the NDJSON stream, ending in the output event; traces: null after them', async () => {
    const h = harness({ traceDelivery: 'ndjson', streamedTraces: 'null' });
    await h.ok('initialize');
    const ctx = h.ctx({ progressToken: 'p' });
    const result = await h.raw('invoke_agent', { user_query: 'list' }, ctx);
    expect(result.structuredContent).toBeUndefined();
    const lines = (result.content[0] as { text: string }).text.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    expect(lines.map((l) => l.type)).toEqual(['trace', 'trace', 'output']);
    for (const line of lines.slice(0, -1)) expect(issues('trace-event.payload', line.data)).toEqual([]);
    expect(lines[2]!.data['traces']).toBeNull();
    expect(ctx.recorded.progress).toEqual([]);
  });

  it('ndjson: without a progressToken the traces are attached', async () => {
    const h = harness({ traceDelivery: 'ndjson' });
    await h.ok('initialize');
    expect((await h.ok('invoke_agent', { user_query: 'list' }))['traces']).toHaveLength(2);
  });
});

describe('the HTTP front (FW-TRANSPORT-4)', () => {
  it('unknownSession 400: a never-issued Mcp-Session-Id gets 400, a terminated one still 404', async () => {
    const server = createMockServer();
    const listener = await listenHttp({ onSession: (connection) => void server.serve(connection) });
    const front = await withFastWorkflowHttpFront(listener, new ActiveFaults([], FASTWORKFLOW_FAULTS), { unknownSession: 400 });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    try {
      const never = await fetch(front.url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': 'never-issued' }, body: ping });
      await never.text();
      expect(never.status).toBe(400);
      const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      const opened = await fetch(front.url, { method: 'POST', headers, body: initialize });
      await opened.text();
      const id = opened.headers.get('mcp-session-id')!;
      expect(id).toBeTruthy();
      const deleted = await fetch(front.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': id } });
      await deleted.text();
      expect(deleted.ok).toBe(true);
      const after = await fetch(front.url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': id }, body: ping });
      await after.text();
      expect(after.status).toBe(404);
    } finally {
      await front.close();
    }
  });
});
