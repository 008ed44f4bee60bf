// Each FastWorkflow fault changes what a client observes: the same scenario runs on a correct
// server and on one with the fault, and the observations differ (and the correct one is right).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CORE_FAULTS } from '../../../../src/peer/server/faults.js';
import { FASTWORKFLOW_FAULTS, FW_FAULT } from '../../../../src/peer/server/fastworkflow/faults.js';
import { fastWorkflowExtension } from '../../../../src/peer/server/fastworkflow/extension.js';
import { withFastWorkflowHttpFront } from '../../../../src/peer/server/fastworkflow/http-front.js';
import { ActiveFaults } from '../../../../src/peer/server/extension.js';
import { createMockServer } from '../../../../src/peer/server/server.js';
import { startMockServer } from '../../../../src/peer/server/start.js';
import { requirements } from '../../../../src/protocol/requirements.js';
import { listenHttp } from '../../../../src/transport/http/index.js';
import { gate, Harness, issues } from './support.js';

type Scenario = (h: Harness) => Promise<unknown>;

/** The status of a call that may fail, 'ok', or 'no status' (one call). */
async function statusOf(h: Harness, name: string, args: Record<string, unknown> = {}, ctx = h.ctx()): Promise<number | 'ok' | 'no status'> {
  const { failed, status } = await h.outcome(name, args, ctx);
  return failed ? (status ?? 'no status') : 'ok';
}

const F = FW_FAULT;

/** Scenarios that need a slow command get a gate in setup; the harness carries it. */
const gates = new WeakMap<Harness, ReturnType<typeof gate>>();
function gateOf(h: Harness): ReturnType<typeof gate> {
  const g = gates.get(h);
  if (!g) throw new TypeError('this scenario needs setup: () => ({ gate: gate() })');
  return g;
}

/**
 * A Streamable HTTP endpoint serving the mock core, behind the FastWorkflow HTTP fault front with
 * the harness's faults: `exchange` POSTs one body (with the given headers) and returns status and
 * content type.
 */
async function httpFront(h: Harness, exchange: (url: string) => Promise<unknown>): Promise<unknown> {
  const server = createMockServer();
  const listener = await listenHttp({ onSession: (connection) => void server.serve(connection) });
  const front = await withFastWorkflowHttpFront(listener, new ActiveFaults(h.faults, FASTWORKFLOW_FAULTS));
  try {
    return await exchange(front.url);
  } finally {
    await front.close();
  }
}

const POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

/** Per fault: the scenario and the observation of a correct server. */
const SCENARIOS: Record<string, { correct: unknown; run: Scenario; setup?: () => Record<string, unknown> }> = {
  [F.answersAsNdjson]: {
    correct: { status: 200, type: 'application/json' },
    run: (h) =>
      httpFront(h, async (url) => {
        const response = await fetch(url, { method: 'POST', headers: POST_HEADERS, body: INITIALIZE });
        await response.text();
        return { status: response.status, type: response.headers.get('content-type')?.split(';')[0] };
      }),
  },
  [F.toolStateShared]: {
    correct: 404,
    run: async (h) => {
      await h.ok('initialize', { user_id: 'ann' });
      return statusOf(h, 'get_workflow_info', {}, h.ctx({ connectionId: 'another-session' }));
    },
  },
  [F.unknownSessionNot404]: {
    correct: 404,
    run: (h) =>
      httpFront(h, async (url) => {
        const response = await fetch(url, { method: 'POST', headers: { ...POST_HEADERS, 'Mcp-Session-Id': 'never-issued' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
        await response.text();
        return response.status;
      }),
  },
  [F.missingSessionNot400]: {
    correct: 400,
    run: (h) =>
      httpFront(h, async (url) => {
        const response = await fetch(url, { method: 'POST', headers: POST_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
        await response.text();
        return response.status;
      }),
  },
  [F.endpointNotAtMcp]: {
    correct: '/mcp',
    run: async (h) => {
      const server = await startMockServer({ transport: 'http', faults: [...h.faults] });
      try {
        return new URL(server.url).pathname;
      } finally {
        await server.close();
      }
    },
  },
  [F.excludedPromptsListed]: {
    correct: ['clarify-params', 'format-command'],
    run: async (h) => ((await h.ext.requests!['prompts/list']!({}, h.ctx())) as { prompts: { name: string }[] }).prompts.map((p) => p.name).sort(),
  },
  [F.inputSchemaTypeWidened]: {
    correct: 'string',
    run: async (h) => (h.ext.tools.find((t) => t.name === 'execute_command')!.inputSchema as { properties: { command: { type: unknown } } }).properties.command.type,
  },
  [F.postFeedbackUnlisted]: { correct: true, run: async (h) => h.ext.tools.some((t) => t.name === 'post_feedback') },
  [F.adminToolExposed]: { correct: [], run: async (h) => h.ext.tools.map((t) => t.name).filter((name) => name.includes('dump')) },
  [F.toolsBeforeInitialize]: { correct: 404, run: (h) => statusOf(h, 'get_commands') },
  [F.defaultUserIgnored]: {
    correct: 'default_user',
    run: async (h) => {
      await h.ok('initialize');
      const failure = await h.fail('list_conversations', { limit: 0 });
      return (failure.response['error'] as { data: { user_id: string } }).data.user_id;
    },
  },
  [F.initializeResultUnwrapped]: { correct: ['workflow_info'], run: async (h) => Object.keys(await h.ok('initialize')) },
  [F.initializeIgnoresConversationId]: {
    correct: 'first',
    run: async (h) => {
      await h.ok('initialize', { user_id: 'u' });
      const first = h.ext.profile.runtime('session-1')!.conversationId;
      await h.ok('new_conversation');
      const other = h.ctx({ connectionId: 'b' });
      await h.ok('initialize', { user_id: 'u', conversation_id: first }, other);
      await h.ok('invoke_assistant', { user_query: 'list' }, other);
      const latest = ((await h.ok('list_conversations', {}, other))['conversations'] as { conversation_id: string }[])[0]!;
      return latest.conversation_id === first ? 'first' : 'second';
    },
  },
  [F.allowConcurrentTurns]: {
    correct: 409,
    setup: () => ({ gate: gate() }),
    run: async (h) => {
      await h.ok('initialize');
      const first = h.raw('invoke_agent', { user_query: 'sync' });
      await gateOf(h).started;
      const status = await statusOf(h, 'invoke_assistant', { user_query: 'list' });
      gateOf(h).release();
      await first;
      return status;
    },
  },
  [F.conversationsVisibleAcrossUsers]: {
    correct: 1,
    run: async (h) => {
      await h.ok('initialize', { user_id: 'bob' }, h.ctx({ connectionId: 'bob' }));
      await h.ok('initialize', { user_id: 'eve' });
      return ((await h.ok('list_conversations'))['conversations'] as unknown[]).length;
    },
  },
  [F.noTimeout]: {
    correct: 504,
    setup: () => ({ gate: gate() }),
    run: async (h) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        await h.ok('initialize');
        const g = gateOf(h);
        const call = statusOf(h, 'invoke_agent', { user_query: 'sync', timeout_seconds: 1 });
        await g.started;
        await vi.advanceTimersByTimeAsync(1000);
        g.release();
        return await call;
      } finally {
        vi.useRealTimers();
      }
    },
  },
  [F.initializeInvalidAccepted]: { correct: 422, run: (h) => statusOf(h, 'initialize', { user_id: 42 }) },
  [F.resultAsProse]: {
    correct: true,
    run: async (h) => {
      await h.raw('initialize');
      const result = await h.raw('get_workflow_info');
      return result.structuredContent !== undefined && JSON.stringify(result.structuredContent) === (result.content[0] as { text: string }).text;
    },
  },
  [F.currentContextInWorkflowInfo]: {
    correct: [],
    run: async (h) => {
      await h.ok('initialize');
      return issues('tool-get-workflow-info.output.payload', await h.ok('get_workflow_info')).length === 0 ? [] : ['invalid'];
    },
  },
  [F.commandsWithoutParameters]: {
    correct: true,
    run: async (h) => {
      await h.ok('initialize');
      return ((await h.ok('get_commands'))['commands'] as Record<string, unknown>[]).every((c) => Array.isArray(c['parameters']));
    },
  },
  [F.leadingSlashKept]: {
    correct: 'what_is_current_context',
    run: async (h) => {
      await h.ok('initialize');
      return (await h.ok('invoke_agent', { user_query: '/what_is_current_context' }))['command_name'];
    },
  },
  [F.assistantReturnsCommandResult]: {
    correct: 0,
    run: async (h) => {
      await h.ok('initialize');
      return issues('tool-invoke-assistant.output.payload', await h.ok('invoke_assistant', { user_query: 'list' })).length;
    },
  },
  [F.malformedCommandAccepted]: {
    correct: 422,
    run: async (h) => {
      await h.ok('initialize');
      return statusOf(h, 'execute_command', { command: 'TodoList/add_item <title>x' });
    },
  },
  [F.commandResponseFieldsOmitted]: {
    correct: 0,
    run: async (h) => {
      await h.ok('initialize');
      return issues('command-output.payload', await h.ok('invoke_assistant', { user_query: 'list' })).length;
    },
  },
  [F.outputEventMissing]: {
    correct: 'output',
    run: async (h) => {
      await h.ok('initialize');
      return (await h.ok('invoke_agent', { user_query: 'list' }, h.ctx({ progressToken: 't' })))['type'];
    },
  },
  [F.tracesInStreamedOutput]: {
    correct: false,
    run: async (h) => {
      await h.ok('initialize');
      const out = await h.ok('invoke_agent', { user_query: 'list' }, h.ctx({ progressToken: 't' }));
      return 'traces' in (out['data'] as object);
    },
  },
  [F.tracesNotAttached]: {
    correct: 2,
    run: async (h) => {
      await h.ok('initialize');
      return ((await h.ok('invoke_agent', { user_query: 'list' }))['traces'] as unknown[] | undefined)?.length;
    },
  },
  [F.traceTimestampInSeconds]: {
    correct: true,
    run: async (h) => {
      await h.ok('initialize');
      const traces = (await h.ok('execute_command', { command: 'reset_context' }))['traces'] as { timestamp: number }[];
      return traces.every((t) => Number.isInteger(t.timestamp) && t.timestamp > 1e12);
    },
  },
  [F.promptArgumentsOptional]: {
    correct: true,
    run: async (h) => {
      const listed = (await h.ext.requests!['prompts/list']!({}, h.ctx()) as { prompts: { arguments: { required: boolean }[] }[] }).prompts;
      return listed.every((p) => p.arguments.every((a) => a.required));
    },
  },
  [F.promptArgumentMissing]: {
    correct: ['error_message', 'metadata'],
    run: async (h) => {
      const listed = (await h.ext.requests!['prompts/list']!({}, h.ctx()) as { prompts: { name: string; arguments: { name: string }[] }[] }).prompts;
      return listed.find((p) => p.name === 'clarify-params')?.arguments.map((a) => a.name);
    },
  },
  [F.promptIgnoresArguments]: {
    correct: true,
    run: async (h) => {
      const got = (await h.ext.requests!['prompts/get']!({ name: 'format-command', arguments: { intent: 'INTENT-1', metadata: 'META-1' } }, h.ctx())) as {
        messages: { content: { text: string } }[];
      };
      return got.messages[0]!.content.text.includes('INTENT-1') && got.messages[0]!.content.text.includes('META-1');
    },
  },
  [F.promptStartsConversation]: {
    correct: 1,
    run: async (h) => {
      await h.ok('initialize');
      await h.ext.requests!['prompts/get']!({ name: 'clarify-params', arguments: { error_message: 'e', metadata: 'm' } }, h.ctx());
      return ((await h.ok('list_conversations'))['conversations'] as unknown[]).length;
    },
  },
  [F.actionLogResource]: {
    correct: 'refused',
    run: async (h) => {
      const declared = 'resources' in h.ext.capabilities!(h.ctx());
      const listed = await h.ext.requests!['resources/list']!({}, h.ctx({ method: 'resources/list' })).then(
        () => 'listed',
        () => 'refused',
      );
      return declared ? `declared+${listed}` : listed;
    },
  },
  [F.failureAsSuccess]: { correct: 404, run: (h) => statusOf(h, 'get_commands') },
  [F.failureWithoutStatus]: { correct: 404, run: (h) => statusOf(h, 'get_commands') },
  [F.failureWithoutContext]: {
    correct: { user_id: 'ann', conversation_id: 'conformance-none' },
    run: async (h) => {
      await h.ok('initialize', { user_id: 'ann' });
      const { response } = await h.fail('activate_conversation', { conversation_id: 'conformance-none' });
      const data = (response.error as { data?: Record<string, unknown> } | undefined)?.data ?? {};
      return { user_id: data.user_id, conversation_id: data.conversation_id };
    },
  },
  [F.wrongStatusMapping]: {
    correct: 422,
    run: async (h) => {
      await h.ok('initialize');
      return statusOf(h, 'list_conversations', { limit: 0 });
    },
  },
  [F.conversationsNotPersisted]: {
    correct: 2,
    run: async (h) => {
      await h.ok('initialize', { user_id: 'u' });
      await h.ok('new_conversation');
      const other = h.ctx({ connectionId: 'later' });
      await h.ok('initialize', { user_id: 'u' }, other);
      return ((await h.ok('list_conversations', {}, other))['conversations'] as unknown[]).length;
    },
  },
  [F.newConversationKeepsId]: {
    correct: true,
    run: async (h) => {
      await h.ok('initialize');
      const before = h.ext.profile.runtime('session-1')!.conversationId;
      return (await h.ok('new_conversation'))['new_conversation_id'] !== before;
    },
  },
  [F.conversationsOldestFirst]: {
    correct: true,
    run: async (h) => {
      await h.ok('initialize');
      await h.ok('new_conversation');
      await h.ok('new_conversation');
      const stamps = ((await h.ok('list_conversations'))['conversations'] as { updated_at: number }[]).map((c) => c.updated_at);
      return stamps.every((s, i) => i === 0 || stamps[i - 1]! > s);
    },
  },
  [F.activateUnknownConversationOk]: {
    correct: 404,
    run: async (h) => {
      await h.ok('initialize');
      return statusOf(h, 'activate_conversation', { conversation_id: 'conv-unknown' });
    },
  },
  [F.feedbackBothNullAccepted]: {
    correct: 422,
    run: async (h) => {
      await h.ok('initialize');
      return statusOf(h, 'post_feedback', { binary_or_numeric_score: null, nl_feedback: null });
    },
  },
  [F.duplicateTopics]: {
    correct: 2,
    run: async (h) => {
      await h.ok('initialize');
      await h.ok('new_conversation');
      const topics = ((await h.ok('list_conversations'))['conversations'] as { topic: string }[]).map((c) => c.topic.toLowerCase());
      return new Set(topics).size;
    },
  },
};

const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.cleanup();
});

function build(faults: string[], setup?: () => Record<string, unknown>): Harness {
  const extra = setup?.() ?? {};
  const g = extra['gate'] as ReturnType<typeof gate> | undefined;
  const h = new Harness({ faults, ...(g ? { slowCommand: g.slowCommand } : {}) });
  if (g) gates.set(h, g);
  harnesses.push(h);
  return h;
}

describe('FastWorkflow fault catalog', () => {
  it('names each fault once, in kebab-case, apart from the core faults, with a catalog requirement of system FW', () => {
    const catalog = requirements();
    const names = FASTWORKFLOW_FAULTS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(Object.values(FW_FAULT).sort());
    const core = new Set(CORE_FAULTS.map((f) => f.name));
    for (const fault of FASTWORKFLOW_FAULTS) {
      expect(fault.name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(core.has(fault.name), fault.name).toBe(false);
      expect(catalog.has(fault.requirement), `${fault.name} -> ${fault.requirement}`).toBe(true);
      expect(catalog.get(fault.requirement).system).toBe('FW');
      expect(catalog.get(fault.requirement).testable, fault.requirement).toBe(true);
      expect(fault.description.length).toBeGreaterThan(10);
    }
  });

  it('has at most one fault per requirement and one for every testable server MUST it can reach', () => {
    const requirementsHit = FASTWORKFLOW_FAULTS.map((f) => f.requirement);
    expect(new Set(requirementsHit).size).toBe(requirementsHit.length);
    const musts = requirements()
      .list({ system: 'FW', level: 'MUST' })
      .filter((r) => r.testable === true && r.role !== 'client')
      .map((r) => r.id);
    expect(musts.filter((id) => !requirementsHit.includes(id))).toEqual([]);
  });

  it('is the extension catalog', () => {
    const dir = new Harness();
    harnesses.push(dir);
    expect(fastWorkflowExtension({ storeDir: dir.dir }).faults).toBe(FASTWORKFLOW_FAULTS);
  });

  it('has a scenario for every fault', () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual(FASTWORKFLOW_FAULTS.map((f) => f.name).sort());
  });
});

describe.each(FASTWORKFLOW_FAULTS.map((f) => [f.name, f.requirement] as const))('fault %s (%s)', (name) => {
  it('changes what a client observes', async () => {
    const scenario = SCENARIOS[name]!;
    const correct = await scenario.run(build([], scenario.setup));
    expect(correct).toEqual(scenario.correct);
    const faulty = await scenario.run(build([name], scenario.setup));
    expect(faulty).not.toEqual(correct);
  });
});
