// The reference driver (docs/client-scenarios.md) runs its three scenarios against the mock server
// (a plausible server; the client suites are the real judge), and its exit code says whether
// every step succeeded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario, scenarioFromEnvironment, ScenarioError, SCENARIO_EXIT } from '../../../src/peer/client/index.js';
import { DEADLINE, mockServerTarget } from './support.js';

describe('scenarioFromEnvironment', () => {
  it('takes the URL from the last argument and the scenario from MCP_FLOW_*', () => {
    const env = scenarioFromEnvironment(['--driver', 'https://127.0.0.1:4433/mcp'], {
      MCP_FLOW_SCENARIO: 'tools-call',
      MCP_FLOW_CONTEXT: '{"tool":"echo","arguments":{"text":"hi"}}',
      MCP_FLOW_CERT_HASH: 'ab'.repeat(32),
    });
    expect(env).toEqual({ url: 'https://127.0.0.1:4433/mcp', scenario: 'tools-call', context: { tool: 'echo', arguments: { text: 'hi' } }, certificateHash: 'ab'.repeat(32) });
    expect(scenarioFromEnvironment(['http://x/mcp'], { MCP_FLOW_SCENARIO: 'initialize' }).context).toEqual({});
  });

  it('refuses a missing scenario, a context that is not JSON, and no URL', () => {
    expect(() => scenarioFromEnvironment(['http://x/mcp'], {})).toThrow(ScenarioError);
    expect(() => scenarioFromEnvironment(['http://x/mcp'], { MCP_FLOW_SCENARIO: 'initialize', MCP_FLOW_CONTEXT: '{' })).toThrow(/MCP_FLOW_CONTEXT is not JSON/);
    expect(() => scenarioFromEnvironment([], { MCP_FLOW_SCENARIO: 'initialize' })).toThrow(/last argument/);
  });
});

describe.each(['wt', 'http'] as const)('runScenario against the mock server over %s', (transport) => {
  let target: Awaited<ReturnType<typeof mockServerTarget>>;
  let url: string;
  let certificateHash: string | undefined;

  beforeAll(async () => {
    target = await mockServerTarget(transport);
    url = target.server!.url;
    certificateHash = target.server!.certificateHash;
  });
  afterAll(() => target?.close());

  const run = (scenario: string, context: unknown, log?: string[]) =>
    runScenario(
      { url, scenario, context, ...(certificateHash ? { certificateHash } : {}) },
      { requestTimeoutMs: DEADLINE.timeoutMs, ...(log ? { log: (line: string) => void log.push(line) } : {}) },
    );

  it('initialize: initialize, notifications/initialized, tools/list; exit 0', async () => {
    const log: string[] = [];
    const outcome = await run('initialize', {}, log);
    expect(outcome.steps.filter((step) => !step.ok)).toEqual([]);
    expect(outcome.exitCode).toBe(SCENARIO_EXIT.ok);
    expect(outcome.initialize?.encoding).toBe(transport === 'wt' ? 'cbor' : 'json');
    const sent = log.filter((line) => / -> /.test(line));
    expect(sent.findIndex((line) => line.includes('request initialize'))).toBeLessThan(sent.findIndex((line) => line.includes('notification notifications/initialized')));
    expect(sent.some((line) => line.includes('request tools/list'))).toBe(true);
  });

  it('tools-call: count calls, each stream read; exit 0', async () => {
    const outcome = await run('tools-call', { tool: 'download', arguments: { bytes: 50_000 }, count: 2 });
    expect(outcome.steps.filter((step) => !step.ok)).toEqual([]);
    expect(outcome.steps.map((step) => step.name)).toEqual(['initialize', 'tools/call 1', 'tools/call 2']);
    if (transport === 'wt') expect(outcome.steps[1]?.detail).toBe('stream 1: 50000 bytes');
    expect(outcome.exitCode).toBe(0);
  });

  it('tools-call: a result with isError fails the step; exit 1', async () => {
    const outcome = await run('tools-call', { tool: 'fail', arguments: {} });
    expect(outcome.exitCode).toBe(SCENARIO_EXIT.failed);
    expect(outcome.steps.at(-1)).toMatchObject({ name: 'tools/call 1', ok: false, detail: expect.stringContaining('isError') });
  });

  it('tools-call: abortAfterMs cancels the unanswered call and fails the step', async () => {
    const log: string[] = [];
    const outcome = await run('tools-call', { tool: 'slow', arguments: { steps: 10_000, stepMs: 50 }, abortAfterMs: 100 }, log);
    expect(outcome.exitCode).toBe(SCENARIO_EXIT.failed);
    const cancel = transport === 'wt' ? 'notification $/cancel' : 'notification notifications/cancelled';
    expect(log.some((line) => / -> /.test(line) && line.includes(cancel))).toBe(true);
  });

  it('interaction: every answer in order, the re-prompt after a rejection answered; exit 0', async () => {
    const outcome = await run('interaction', { tool: 'booking', answers: ['Lisbon', '2030-02-30', '2030-05-17', 2, 'economy', true] });
    expect(outcome.steps.filter((step) => !step.ok)).toEqual([]);
    expect(outcome.steps.at(-1)).toMatchObject({ name: 'interaction', ok: true, detail: expect.stringContaining('1 rejected') });
    expect(outcome.exitCode).toBe(0);
  });

  it('interaction: answers running out is a failure; exit 1', async () => {
    const outcome = await run('interaction', { tool: 'booking', answers: ['Lisbon'] });
    expect(outcome.exitCode).toBe(SCENARIO_EXIT.failed);
    expect(outcome.steps.at(-1)?.detail).toMatch(/no answer left/);
  });

  it('an unknown scenario or a bad context is a usage error; exit 2', async () => {
    expect((await run('dance', {})).exitCode).toBe(SCENARIO_EXIT.usage);
    expect((await run('tools-call', { arguments: {} })).exitCode).toBe(SCENARIO_EXIT.usage);
  });
});
