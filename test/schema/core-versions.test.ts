// What each MCP protocol version contains, checked on schemas/core without the official files:
// the messages of each version, the annotations, and a matrix of instances whose verdict changes
// between versions (audio, resource links, titles, _meta, structured tool output, tasks...).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';

const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
type Version = (typeof VERSIONS)[number];

const registry = SchemaRegistry.load();
const core = registry.find({ family: 'core' });

const BASE_REQUESTS = [
  'initialize',
  'ping',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'completion/complete',
  'sampling/createMessage',
  'roots/list',
];
const BASE_NOTIFICATIONS = [
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/prompts/list_changed',
  'notifications/tools/list_changed',
  'notifications/roots/list_changed',
];
/** Requests and notifications per version: what 2024-11-05 had, plus what each later version added. */
const EXPECTED: Record<Version, { requests: string[]; notifications: string[] }> = {
  '2024-11-05': { requests: BASE_REQUESTS, notifications: BASE_NOTIFICATIONS },
  '2025-03-26': { requests: BASE_REQUESTS, notifications: BASE_NOTIFICATIONS },
  '2025-06-18': { requests: [...BASE_REQUESTS, 'elicitation/create'], notifications: BASE_NOTIFICATIONS },
  '2025-11-25': {
    requests: [...BASE_REQUESTS, 'elicitation/create', 'tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'],
    notifications: [...BASE_NOTIFICATIONS, 'notifications/tasks/status', 'notifications/elicitation/complete'],
  },
};

const methodsOf = (v: Version, kind: string): string[] =>
  core
    .filter((s) => s.meta.protocolVersion === v && s.meta.kind === kind)
    .map((s) => s.meta.method ?? '')
    .sort();

describe.each(VERSIONS.map((v) => [v] as const))('schemas/core/%s', (v) => {
  it('has a request and a result schema for exactly the requests of this version', () => {
    expect(methodsOf(v, 'request')).toEqual([...EXPECTED[v].requests].sort());
    // 2025-11-25: a task-augmented request may be answered with CreateTaskResult (its own schema).
    const taskCreated = v === '2025-11-25' ? ['tools/call', 'sampling/createMessage', 'elicitation/create'] : [];
    expect(methodsOf(v, 'result')).toEqual([...EXPECTED[v].requests, ...taskCreated].sort());
    const createTask = core.filter((s) => s.meta.protocolVersion === v && s.meta.official === 'CreateTaskResult');
    expect(createTask.map((s) => s.meta.method).sort()).toEqual([...taskCreated].sort());
  });

  it('has a schema for exactly the notifications of this version', () => {
    expect(methodsOf(v, 'notification')).toEqual([...EXPECTED[v].notifications].sort());
  });

  it('has one defs file and the generic JSON-RPC error responses (with an id, and with id null)', () => {
    expect(core.filter((s) => s.meta.protocolVersion === v && s.meta.kind === 'definition').map((s) => s.file)).toEqual([`core/${v}/defs.definition.schema.json`]);
    expect(registry.get(`core/${v}/jsonrpc-error.error.schema.json`).meta).toMatchObject({ family: 'core', kind: 'error', protocolVersion: v });
    expect(registry.get(`core/${v}/jsonrpc-error-null-id.error.schema.json`).meta).toMatchObject({ family: 'core', kind: 'error', protocolVersion: v });
  });

  it('annotates every message schema with its direction and the official definition name', () => {
    for (const schema of core.filter((s) => s.meta.protocolVersion === v && s.meta.kind !== 'definition')) {
      // JSON-RPC's id-null error response has no counterpart in the official MCP schema.
      if (!schema.file.endsWith('/jsonrpc-error-null-id.error.schema.json')) expect(schema.meta.official, schema.file).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(schema.meta.direction, schema.file).toBeDefined();
      if (schema.meta.kind === 'result') {
        const request = core.find((s) => s.meta.protocolVersion === v && s.meta.kind === 'request' && s.meta.method === schema.meta.method)!;
        const opposite = { 'client-to-server': 'server-to-client', 'server-to-client': 'client-to-server', both: 'both' } as const;
        expect(schema.meta.direction, schema.file).toBe(opposite[request.meta.direction!]);
      }
    }
  });
});

describe('requirement IDs cited by schemas/core', () => {
  it('are all defined in suites/requirements.json', () => {
    const catalog = JSON.parse(readFileSync(new URL('../../suites/requirements.json', import.meta.url), 'utf8')) as { requirements: Array<{ id: string }> };
    const known = new Set(catalog.requirements.map((r) => r.id));
    const cited = core.flatMap((s) => (s.meta.requirements ?? []).map((id) => `${s.file}: ${id}`));
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter((entry) => !known.has(entry.split(': ')[1]!))).toEqual([]);
  });
});

const text = { type: 'text', text: 'hi' };
const audio = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
const link = { type: 'resource_link', uri: 'file:///a.pdf', name: 'a.pdf' };
const ok = (result: unknown) => ({ jsonrpc: '2.0', id: 1, result });
const rq = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
const nt = (method: string, params: unknown) => ({ jsonrpc: '2.0', method, params });
const tool = { name: 't', inputSchema: { type: 'object' } };

/** [what, schema slug, instance, verdict per version in VERSIONS order (null: no such schema)] */
const MATRIX: Array<[string, string, unknown, Array<boolean | null>]> = [
  ['audio content in a tool result', 'tools-call.result', ok({ content: [audio] }), [false, true, true, true]],
  ['audio content in a prompt message', 'prompts-get.result', ok({ messages: [{ role: 'user', content: audio }] }), [false, true, true, true]],
  ['audio content in a sampling answer', 'sampling-createMessage.result', ok({ role: 'assistant', content: audio, model: 'm' }), [false, true, true, true]],
  ['a resource link in a tool result', 'tools-call.result', ok({ content: [link] }), [false, false, true, true]],
  ['a resource link in a prompt message', 'prompts-get.result', ok({ messages: [{ role: 'user', content: link }] }), [false, false, true, true]],
  ['a tool_use block in a sampling answer', 'sampling-createMessage.result', ok({ role: 'assistant', content: { type: 'tool_use', id: 'u', name: 't', input: {} }, model: 'm' }), [false, false, false, true]],
  ['structuredContent that is not an object', 'tools-call.result', ok({ content: [text], structuredContent: 'x' }), [true, true, false, false]],
  ['a tool outputSchema of type "array"', 'tools-list.result', ok({ tools: [{ ...tool, outputSchema: { type: 'array' } }] }), [true, true, false, false]],
  ['a numeric tool title', 'tools-list.result', ok({ tools: [{ ...tool, title: 5 }] }), [true, true, false, false]],
  ['tool annotations that are not an object', 'tools-list.result', ok({ tools: [{ ...tool, annotations: 'read-only' }] }), [true, false, false, false]],
  ['a tool execution.taskSupport of "always"', 'tools-list.result', ok({ tools: [{ ...tool, execution: { taskSupport: 'always' } }] }), [true, true, true, false]],
  ['_meta that is not an object on a content block', 'tools-call.result', ok({ content: [{ ...text, _meta: 'x' }] }), [true, true, false, false]],
  ['a numeric annotations.lastModified', 'resources-list.result', ok({ resources: [{ uri: 'file:///a', name: 'a', annotations: { lastModified: 5 } }] }), [true, true, false, false]],
  ['a numeric serverInfo.title', 'initialize.result', ok({ protocolVersion: 'x', capabilities: {}, serverInfo: { name: 's', version: '1', title: 5 } }), [true, true, false, false]],
  ['serverInfo.websiteUrl that is not a URI', 'initialize.result', ok({ protocolVersion: 'x', capabilities: {}, serverInfo: { name: 's', version: '1', websiteUrl: 'not a uri' } }), [true, true, true, false]],
  ['completions capability that is not an object', 'initialize.result', ok({ protocolVersion: 'x', capabilities: { completions: true }, serverInfo: { name: 's', version: '1' } }), [true, false, false, false]],
  ['elicitation capability that is not an object', 'initialize.request', rq('initialize', { protocolVersion: 'x', capabilities: { elicitation: true }, clientInfo: { name: 'c', version: '1' } }), [true, true, false, false]],
  ['a numeric progress message', 'notifications-progress.notification', nt('notifications/progress', { progressToken: 1, progress: 1, message: 5 }), [true, false, false, false]],
  ['a cancellation without requestId', 'notifications-cancelled.notification', nt('notifications/cancelled', { reason: 'x' }), [false, false, false, true]],
  ['an error response without id', 'jsonrpc-error.error', { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }, [false, false, false, true]],
  ['completion context with a numeric argument', 'completion-complete.request', rq('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' }, context: { arguments: { b: 1 } } }), [true, true, false, false]],
  ['a tools/call task with a string ttl', 'tools-call.request', rq('tools/call', { name: 't', task: { ttl: '1m' } }), [true, true, true, false]],
  ['an elicitation answer with an array value', 'elicitation-create.result', ok({ action: 'accept', content: { tags: ['a'] } }), [null, null, false, true]],
  ['a URL-mode elicitation', 'elicitation-create.request', rq('elicitation/create', { mode: 'url', message: 'Sign in', elicitationId: 'e', url: 'https://a.example/' }), [null, null, false, true]],
  ['a task status poll', 'tasks-get.request', rq('tasks/get', { taskId: 't' }), [null, null, null, true]],
  ['a tools/call answered with a created task', 'tools-call-task.result', ok({ task: { taskId: 't', status: 'working', createdAt: 'a', lastUpdatedAt: 'b', ttl: null } }), [null, null, null, true]],
];

describe('verdicts that change between protocol versions', () => {
  it.each(MATRIX)('%s (%s)', (_what, slug, instance, verdicts) => {
    VERSIONS.forEach((v, i) => {
      const present = core.some((s) => s.file === `core/${v}/${slug}.schema.json`);
      if (verdicts[i] === null) {
        expect(present, `${v}: ${slug} should not exist`).toBe(false);
        return;
      }
      const issues = registry.validate(`core/${v}/${slug}.schema.json`, instance);
      expect(issues.length === 0, `${v}: ${JSON.stringify(issues.map((x) => `${x.instancePath} ${x.keyword}`))}`).toBe(verdicts[i]);
    });
  });
});
