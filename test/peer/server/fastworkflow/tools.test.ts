import { writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { detectFastWorkflowFailure } from '../../../../src/protocol/fastworkflow-errors.js';
import { FASTWORKFLOW_JSONRPC_CODE } from '../../../../src/peer/server/fastworkflow/errors.js';
import { TRACE_LOGGER } from '../../../../src/peer/server/fastworkflow/tools.js';
import { gate, Harness, issues, registry } from './support.js';

const harnesses: Harness[] = [];
function harness(options: ConstructorParameters<typeof Harness>[0] = {}): Harness {
  const h = new Harness(options);
  harnesses.push(h);
  return h;
}
afterEach(() => {
  for (const h of harnesses.splice(0)) h.cleanup();
});

describe('initialize and discovery', () => {
  it('initialize answers {workflow_info} and binds default_user', async () => {
    const h = harness();
    const out = await h.ok('initialize');
    expect(issues('tool-initialize.output.payload', out)).toEqual([]);
    expect(h.ext.profile.runtime('session-1')?.userId).toBe('default_user');
    await h.ok('initialize', { user_id: 'alice' }, h.ctx({ connectionId: 'session-2' }));
    expect(h.ext.profile.runtime('session-2')?.userId).toBe('alice');
  });

  it('every other tool is a 404 before initialize (FW-SESSION-1)', async () => {
    const h = harness();
    const calls: [string, Record<string, unknown>][] = [
      ['get_workflow_info', {}],
      ['get_commands', {}],
      ['invoke_agent', { user_query: 'list' }],
      ['invoke_assistant', { user_query: 'list' }],
      ['execute_command', { command: 'what_is_current_context' }],
      ['new_conversation', {}],
      ['list_conversations', {}],
      ['activate_conversation', { conversation_id: 'x' }],
      ['post_feedback', { nl_feedback: 'x' }],
    ];
    for (const [name, args] of calls) {
      const failure = await h.fail(name, args);
      expect(failure.status, name).toBe(404);
      expect(issues('http-status.error', failure.response), name).toEqual([]);
      expect((failure.response['error'] as { code: number }).code).toBe(FASTWORKFLOW_JSONRPC_CODE[404]);
    }
  });

  it('initialize rejects invalid parameters with 422 (FW-SESSION-8)', async () => {
    const h = harness();
    for (const args of [{ user_id: 42 }, { user_id: '' }, { conversation_id: 7 }, { workflow_path: '/x' }]) {
      const failure = await h.fail('initialize', args);
      expect(failure.status, JSON.stringify(args)).toBe(422);
      expect((failure.response['error'] as { code: number }).code).toBe(-32602);
    }
  });

  it('get_workflow_info has no current_context; get_commands follows the active context', async () => {
    const h = harness();
    await h.ok('initialize');
    const info = await h.ok('get_workflow_info');
    expect(issues('tool-get-workflow-info.output.payload', info)).toEqual([]);
    expect(info).not.toHaveProperty('current_context');
    expect(info['available_contexts']).toEqual(['TodoList', 'TodoItem']);

    const root = await h.ok('get_commands');
    expect(issues('tool-get-commands.output.payload', root)).toEqual([]);
    const names = (root['commands'] as { name: string }[]).map((c) => c.name);
    expect(names).toContain('what_is_current_context');
    expect(names).toContain('TodoList/add_item');
    expect(names).not.toContain('TodoItem/mark_done');
    expect(root['display_text']).toContain('TodoList/add_item');

    await h.ok('execute_command', { command: 'TodoList/add_item <title>milk</title>' });
    await h.ok('execute_command', { command: 'TodoList/select_item <item_id>1</item_id>' });
    const item = await h.ok('get_commands');
    const itemNames = (item['commands'] as { name: string }[]).map((c) => c.name);
    expect(itemNames).toContain('TodoItem/mark_done');
    expect(itemNames).not.toContain('TodoList/add_item');
  });
});

describe('turns', () => {
  it('invoke_assistant returns a CommandOutput with its traces attached', async () => {
    const h = harness({ now: () => 1_712_345_678_901 });
    await h.ok('initialize');
    const out = await h.ok('invoke_assistant', { user_query: 'add buy milk by 2026-05-01' });
    expect(issues('tool-invoke-assistant.output.payload', out)).toEqual([]);
    expect(out).toMatchObject({
      success: true,
      workflow_name: 'todo_tracker',
      context: 'TodoList',
      command_name: 'TodoList/add_item',
      command_parameters: { title: 'buy milk', due_date: '2026-05-01' },
    });
    const traces = out['traces'] as Record<string, unknown>[];
    expect(traces.map((t) => t['direction'])).toEqual(['agent_to_workflow', 'workflow_to_agent']);
    expect(traces[0]).toMatchObject({ raw_command: 'TodoList/add_item <title>buy milk</title> <due_date>2026-05-01</due_date>', timestamp: 1_712_345_678_901 });
    for (const t of traces) expect(issues('trace-event.payload', t)).toEqual([]);
  });

  it('invoke_assistant does not plan: a query needing two commands says so', async () => {
    const h = harness();
    await h.ok('initialize');
    await h.ok('execute_command', { command: 'TodoList/add_item <title>milk</title>' });
    const out = await h.ok('invoke_assistant', { user_query: 'mark item 1 done' });
    expect(issues('command-output.payload', out)).toEqual([]);
    expect(out['success']).toBe(false);
    expect(out['command_name']).toBeNull();
    const response = (out['command_responses'] as { next_actions: { command_name: string }[] }[])[0]!;
    expect(response.next_actions.map((a) => a.command_name)).toEqual(['TodoList/select_item', 'TodoItem/mark_done']);
  });

  it('invoke_agent plans several steps; without a progress token the traces are attached', async () => {
    const h = harness();
    await h.ok('initialize');
    const out = await h.ok('invoke_agent', { user_query: 'add milk then add eggs; mark item 2 done and then what is the current context?' });
    expect(issues('tool-invoke-agent.output.payload', out)).toEqual([]);
    expect(out).toMatchObject({ success: true, context: 'TodoItem', command_name: 'what_is_current_context' });
    const traces = out['traces'] as { command_name: string; direction: string }[];
    expect(traces.filter((t) => t.direction === 'agent_to_workflow').map((t) => t.command_name)).toEqual([
      'TodoList/add_item',
      'TodoList/add_item',
      'TodoList/select_item',
      'TodoItem/mark_done',
      'what_is_current_context',
    ]);
    expect((out['command_responses'] as unknown[]).length).toBe(5);
  });

  it('invoke_agent streams {type:"trace"} progress notifications and ends with {type:"output"} without traces', async () => {
    const h = harness();
    await h.ok('initialize');
    const ctx = h.ctx({ progressToken: 'p1' });
    const out = await h.ok('invoke_agent', { user_query: '/what_is_current_context' }, ctx);
    expect(issues('ndjson-event.payload', out)).toEqual([]);
    expect(out['type']).toBe('output');
    expect(out['data']).not.toHaveProperty('traces');
    expect(out['data']).toMatchObject({ command_name: 'what_is_current_context', success: true });
    const events = ctx.recorded.progress.map((p) => JSON.parse(p.message!) as Record<string, unknown>);
    expect(events).toHaveLength(2);
    for (const event of events) expect(issues('ndjson-event.payload', event)).toEqual([]);
    expect(events.map((e) => e['type'])).toEqual(['trace', 'trace']);
    expect(ctx.recorded.progress.map((p) => p.progress)).toEqual([1, 2]);
  });

  it('under 2024-11-05 (no progress message) the traces are attached even with a progress token', async () => {
    const h = harness();
    await h.ok('initialize');
    const ctx = h.ctx({ progressToken: 1, protocolVersion: '2024-11-05' });
    const out = await h.ok('invoke_agent', { user_query: 'list' }, ctx);
    expect(out['traces']).toHaveLength(2);
    expect(ctx.recorded.progress).toEqual([]);
  });

  it('traceDelivery notifications/message sends the events as log data', async () => {
    const h = harness({ traceDelivery: 'notifications/message' });
    await h.ok('initialize');
    const ctx = h.ctx();
    const out = await h.ok('invoke_agent', { user_query: 'list open items' }, ctx);
    expect(out).toMatchObject({ type: 'output', data: { command_name: 'TodoList/list_items', command_parameters: { status: 'open' } } });
    expect(ctx.recorded.logs.map((l) => [l.level, l.logger, (l.data as { type: string }).type])).toEqual([
      ['info', TRACE_LOGGER, 'trace'],
      ['info', TRACE_LOGGER, 'trace'],
    ]);
  });

  it('traceDelivery attached never streams', async () => {
    const h = harness({ traceDelivery: 'attached' });
    await h.ok('initialize');
    const ctx = h.ctx({ progressToken: 'p' });
    const out = await h.ok('invoke_agent', { user_query: 'list' }, ctx);
    expect(out['traces']).toHaveLength(2);
    expect(ctx.recorded.progress).toEqual([]);
  });

  it('a query that maps to nothing is an unsuccessful output, not an error', async () => {
    const h = harness();
    await h.ok('initialize');
    const out = await h.ok('invoke_agent', { user_query: 'sing me a song' });
    expect(issues('command-output.payload', out)).toEqual([]);
    expect(out).toMatchObject({ success: false, command_name: null, command_parameters: null, traces: [] });
  });

  it('invalid turn arguments are 422s', async () => {
    const h = harness();
    await h.ok('initialize');
    expect((await h.fail('invoke_agent', { user_query: '/' })).status).toBe(422);
    expect((await h.fail('invoke_agent', { user_query: 'list', timeout_seconds: 0 })).status).toBe(422);
    expect((await h.fail('invoke_assistant', { user_query: 3 })).status).toBe(422);
  });

  it('a turn with no output within timeout_seconds is a 504 and frees the session (FW-SESSION-7)', async () => {
    const slow = gate();
    const h = harness({ slowCommand: slow.slowCommand });
    await h.ok('initialize', { user_id: 'tim' });
    const failure = await h.fail('invoke_agent', { user_query: 'sync', timeout_seconds: 0.001 });
    expect(failure.status).toBe(504);
    expect(failure.response['error']).toMatchObject({ code: FASTWORKFLOW_JSONRPC_CODE[504], data: { httpStatus: 504, user_id: 'tim', timeout_seconds: 0.001 } });
    expect(issues('http-status.error', failure.response)).toEqual([]);
    expect((await h.ok('invoke_assistant', { user_query: 'list' }))['success']).toBe(true);
  });

  it('a second turn while one runs is a 409 (FW-SESSION-5); other sessions are not blocked', async () => {
    const slow = gate();
    const h = harness({ slowCommand: slow.slowCommand });
    await h.ok('initialize', { user_id: 'ann' });
    await h.ok('initialize', { user_id: 'ann' }, h.ctx({ connectionId: 'other' }));
    const first = h.raw('invoke_agent', { user_query: 'sync' });
    await slow.started;
    for (const [name, args] of [
      ['invoke_agent', { user_query: 'list' }],
      ['invoke_assistant', { user_query: 'list' }],
      ['execute_command', { command: 'TodoList/list_items' }],
    ] as const) {
      const failure = await h.fail(name, args);
      expect(failure.status, name).toBe(409);
      expect(failure.response['error']).toMatchObject({ code: -32009, data: { httpStatus: 409, user_id: 'ann' } });
    }
    expect((await h.ok('invoke_assistant', { user_query: 'list' }, h.ctx({ connectionId: 'other' })))['success']).toBe(true);
    slow.release();
    expect((await first).structuredContent).toMatchObject({ success: true, command_name: 'TodoList/sync_with_server' });
  });

  it('a cancelled turn is abandoned and the session takes the next turn', async () => {
    const slow = gate();
    const h = harness({ slowCommand: slow.slowCommand });
    await h.ok('initialize');
    const ctx = h.ctx();
    const first = h.raw('invoke_agent', { user_query: 'sync' }, ctx);
    await slow.started;
    ctx.cancel(new DOMException('cancelled', 'AbortError'));
    await expect(first).rejects.toThrow('cancelled');
    expect((await h.ok('invoke_assistant', { user_query: 'list' }))['success']).toBe(true);
  });
});

describe('execute_command', () => {
  it('runs a command and returns response_text, success and traces', async () => {
    const h = harness();
    await h.ok('initialize');
    const out = await h.ok('execute_command', { command: 'TodoList/add_item <title>file taxes</title>' });
    expect(issues('tool-execute-command.output.payload', out)).toEqual([]);
    expect(out).toMatchObject({ success: true, response_text: 'Added #1 file taxes.' });
    expect(out['traces']).toHaveLength(2);
  });

  it('a command of another context is an unsuccessful answer, not a 422', async () => {
    const h = harness();
    await h.ok('initialize');
    const out = await h.ok('execute_command', { command: 'TodoItem/mark_done' });
    expect(out).toMatchObject({ success: false });
    expect(out['response_text']).toContain('not available in context TodoList');
  });

  it.each([
    ['TodoList/add_item <title>x', { offset: 26 }],
    ['TodoList/add_item title', { offset: 18 }],
    ['TodoList/fly', { reason: 'UNKNOWN_COMMAND' }],
    ['TodoList/add_item <colour>red</colour>', { reason: 'UNKNOWN_PARAMETER', parameter: 'colour' }],
    ['TodoList/add_item', { reason: 'MISSING_PARAMETER', parameter: 'title' }],
    ['TodoList/select_item <item_id>one</item_id>', { reason: 'INVALID_PARAMETER', parameter: 'item_id' }],
    ['TodoList/add_item <title>x</title> <due_date>tomorrow</due_date>', { reason: 'INVALID_PARAMETER', parameter: 'due_date' }],
  ])('a malformed command %j is a 422 naming what is wrong (FW-TOOL-8)', async (command, detail) => {
    const h = harness();
    await h.ok('initialize', { user_id: 'mo' });
    const failure = await h.fail('execute_command', { command });
    expect(failure.status).toBe(422);
    expect(failure.response['error']).toMatchObject({ code: -32602, data: { httpStatus: 422, user_id: 'mo', ...detail } });
  });
});

describe('conversations', () => {
  it('new_conversation rotates; list_conversations shows both, latest first; activate switches back', async () => {
    const h = harness();
    await h.ok('initialize', { user_id: 'zoe' });
    const firstId = h.ext.profile.runtime('session-1')!.conversationId;
    await h.ok('invoke_assistant', { user_query: 'add milk' });
    const rotated = await h.ok('new_conversation');
    expect(issues('tool-new-conversation.output.payload', rotated)).toEqual([]);
    expect(rotated['new_conversation_id']).not.toBe(firstId);

    const listed = await h.ok('list_conversations');
    expect(issues('tool-list-conversations.output.payload', listed)).toEqual([]);
    const conversations = listed['conversations'] as { conversation_id: string; topic: string; summary: string; updated_at: number }[];
    expect(conversations.map((c) => c.conversation_id)).toEqual([rotated['new_conversation_id'], firstId]);
    expect(conversations[1]).toMatchObject({ topic: 'add milk', summary: expect.stringContaining('TodoList/add_item') });
    expect(conversations[0]!.updated_at).toBeGreaterThan(conversations[1]!.updated_at);
    expect((await h.ok('list_conversations', { limit: 1 }))['conversations']).toHaveLength(1);

    const activated = await h.ok('activate_conversation', { conversation_id: firstId });
    expect(issues('tool-activate-conversation.output.payload', activated)).toEqual([]);
    expect(h.ext.profile.runtime('session-1')!.conversationId).toBe(firstId);
  });

  it('activate_conversation is a 404 for an unknown id and for another user\'s conversation (FW-CONV-4, FW-SESSION-6)', async () => {
    const h = harness();
    await h.ok('initialize', { user_id: 'bob' }, h.ctx({ connectionId: 'bob' }));
    const bobs = h.ext.profile.runtime('bob')!.conversationId;
    await h.ok('initialize', { user_id: 'eve' });
    for (const id of ['conv-nope', bobs]) {
      const failure = await h.fail('activate_conversation', { conversation_id: id });
      expect(failure.status).toBe(404);
      expect(failure.response['error']).toMatchObject({ data: { httpStatus: 404, user_id: 'eve', conversation_id: id } });
    }
    const listed = (await h.ok('list_conversations'))['conversations'] as { conversation_id: string }[];
    expect(listed.map((c) => c.conversation_id)).not.toContain(bobs);
  });

  it('list_conversations rejects a bad limit with 422', async () => {
    const h = harness();
    await h.ok('initialize');
    for (const limit of [0, 1.5, '3']) expect((await h.fail('list_conversations', { limit })).status).toBe(422);
  });

  it('persists across a restart: a new server on the same directory restores the last conversation (FW-CONV-1)', async () => {
    const h = harness();
    await h.ok('initialize', { user_id: 'ivy' });
    await h.ok('invoke_assistant', { user_query: 'add bread' });
    const before = h.ext.profile.runtime('session-1')!.conversationId;
    await h.ok('new_conversation');
    await h.ok('activate_conversation', { conversation_id: before });
    await h.ok('invoke_assistant', { user_query: 'list' });

    const restarted = new Harness({ dir: h.dir });
    await restarted.ok('initialize', { user_id: 'ivy' }, restarted.ctx({ connectionId: 'fresh' }));
    expect(restarted.ext.profile.runtime('fresh')!.conversationId).toBe(before);
    const listed = (await restarted.ok('list_conversations', {}, restarted.ctx({ connectionId: 'fresh' })))['conversations'] as unknown[];
    expect(listed).toHaveLength(2);
  });

  it('initialize restores the given conversation, else the last, else starts one (FW-SESSION-4)', async () => {
    const h = harness();
    await h.ok('initialize', { user_id: 'kim' });
    const first = h.ext.profile.runtime('session-1')!.conversationId;
    const second = (await h.ok('new_conversation'))['new_conversation_id'];
    await h.ok('initialize', { user_id: 'kim', conversation_id: first }, h.ctx({ connectionId: 's2' }));
    expect(h.ext.profile.runtime('s2')!.conversationId).toBe(first);
    await h.ok('initialize', { user_id: 'kim', conversation_id: 'conv-unknown' }, h.ctx({ connectionId: 's3' }));
    expect(h.ext.profile.runtime('s3')!.conversationId).toBe(second);
    await h.ok('initialize', { user_id: 'newcomer' }, h.ctx({ connectionId: 's4' }));
    expect(h.ext.profile.runtime('s4')!.conversationId).toMatch(/^conv-/);
  });

  it('a failing summary is a 500 and does not rotate (FW-CONV-7)', async () => {
    const h = harness({
      summarize: () => {
        throw new RangeError('LLM quota exhausted');
      },
    });
    await h.ok('initialize', { user_id: 'lee' });
    const current = h.ext.profile.runtime('session-1')!.conversationId;
    const failure = await h.fail('new_conversation');
    expect(failure.status).toBe(500);
    expect(failure.response['error']).toMatchObject({ code: -32603, data: { httpStatus: 500, user_id: 'lee', conversation_id: current } });
    expect((failure.response['error'] as { message: string }).message).toContain('LLM quota exhausted');
    expect(h.ext.profile.runtime('session-1')!.conversationId).toBe(current);
    expect((await h.ok('list_conversations'))['conversations']).toHaveLength(1);
  });

  it('post_feedback accepts either field and is a 422 when both are null (FW-CONV-5)', async () => {
    const h = harness();
    await h.ok('initialize', { user_id: 'pat' });
    await h.ok('invoke_assistant', { user_query: 'list' });
    for (const args of [{ binary_or_numeric_score: true }, { binary_or_numeric_score: 0.5, nl_feedback: null }, { nl_feedback: 'great' }]) {
      const out = await h.ok('post_feedback', args);
      expect(issues('tool-post-feedback.output.payload', out)).toEqual([]);
    }
    const stored = await h.ext.profile.settings.store.get('pat', h.ext.profile.runtime('session-1')!.conversationId);
    expect(stored?.turns.at(-1)?.feedback).toMatchObject({ binary_or_numeric_score: null, nl_feedback: 'great' });
    for (const args of [{}, { binary_or_numeric_score: null, nl_feedback: null }]) {
      const failure = await h.fail('post_feedback', args);
      expect(failure.status).toBe(422);
    }
    expect((await h.fail('post_feedback', { binary_or_numeric_score: 'yes' })).status).toBe(422);
  });
});

describe('failure styles and unexpected errors', () => {
  it('failureStyle code puts the status in the JSON-RPC code', async () => {
    const h = harness({ failureStyle: 'code' });
    const failure = await h.fail('get_commands');
    expect(failure.response['error']).toMatchObject({ code: 404 });
    expect(issues('http-status.error', failure.response)).toEqual([]);
  });

  it('failureStyle isError returns a tool result with httpStatus', async () => {
    const h = harness({ failureStyle: 'isError' });
    const failure = await h.fail('get_commands');
    const result = failure.response['result'] as { isError: boolean; structuredContent: unknown; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(issues('tool-error.payload', result.structuredContent)).toEqual([]);
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
    expect(failure.status).toBe(404);
  });

  it('a store that cannot be written is a 500, logged with its cause (FW-ERR-5)', async () => {
    const h = harness();
    const blocked = new Harness({ dir: `${h.dir}/file/sub` });
    writeFileSync(`${h.dir}/file`, '');
    const ctx = blocked.ctx();
    const failure = await blocked.fail('initialize', {}, ctx);
    expect(failure.status).toBe(500);
    expect(failure.response['error']).toMatchObject({ code: -32603 });
    expect(ctx.recorded.logs.some((l) => l.level === 'error')).toBe(true);
  });
});

describe('timeouts under fake timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the default timeout is 60 seconds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const slow = gate();
    const h = harness({ slowCommand: slow.slowCommand });
    await h.ok('initialize');
    const pending = h.fail('invoke_agent', { user_query: 'sync' });
    await slow.started;
    await vi.advanceTimersByTimeAsync(59_999);
    expect(h.ext.profile.runtime('session-1')!.turnInProgress).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).status).toBe(504);
  });
});

describe('arguments rejected before the tool runs', () => {
  it('argumentsRejected reports a 422 with user and conversation, in every failure style', async () => {
    for (const failureStyle of ['data.httpStatus', 'code', 'isError', 'text'] as const) {
      const h = harness({ failureStyle });
      await h.ok('initialize', { user_id: 'val' });
      const ctx = h.ctx();
      let response: Record<string, unknown>;
      try {
        response = { jsonrpc: '2.0', id: 1, result: h.ext.tools.find((t) => t.name === 'list_conversations')!.argumentsRejected('/limit must be integer', ctx) };
      } catch (error) {
        response = { jsonrpc: '2.0', id: 1, error: (error as { toJSON(): unknown }).toJSON() };
      }
      expect(detectFastWorkflowFailure(response), failureStyle).toMatchObject({ failed: true, status: 422 });
      expect(JSON.stringify(response)).toContain('/limit must be integer');
      // The text style quotes the body inside the text: the user is there, escaped once more.
      expect(JSON.stringify(response).replace(/\\"/g, '"')).toContain('"user_id":"val"');
    }
  });

  it('every inputSchema accepts the valid examples of its schemas/fastworkflow input schema (FW-TOOL-10)', () => {
    const ajv = new Ajv2020({ strict: false });
    const h = harness();
    const examples = registry.examples();
    for (const tool of h.ext.tools) {
      const slug = `fastworkflow/tool-${tool.name.replace(/_/g, '-')}.input.payload.schema.json`;
      // Examples carrying members the documents do not name are allowed, not owed: a tool's own inputSchema may refuse them.
      const valid = examples.filter((e) => e.file === slug.replace('.schema.json', '.examples.json') && e.valid && e.extraMembers === undefined);
      expect(valid.length, tool.name).toBeGreaterThan(0);
      const validate = ajv.compile(tool.inputSchema);
      for (const example of valid) expect(validate(example.instance), `${tool.name}: ${example.description}`).toBe(true);
    }
  });
});
