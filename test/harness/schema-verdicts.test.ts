// How a schema finding becomes a verdict (docs/profile.md §2, rule 4 and "each violation once"):
// a member the documents do not name is an INFO note, never a FAIL; a missing required member FAILs
// the requirement it breaks in the case that declares it and is only noted in every other case that
// sees it; and the validating proxy, fed the same messages, cites the same requirements.
import { describe, expect, it } from 'vitest';
import { defineCase, type ConformanceCase, type Target } from '../../src/harness/case.js';
import { CaseRegistry } from '../../src/harness/registry.js';
import type { RunResult } from '../../src/harness/result.js';
import { runConformance } from '../../src/harness/runner.js';
import { judgeTranscript } from '../../src/judge/index.js';
import { SessionValidator } from '../../src/peer/proxy/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { SchemaRegistry } from '../../src/schema/registry.js';
import type { MemoryConnection } from '../../src/transport/memory/index.js';
import { Transcript } from '../../src/transport/transcript.js';
import { serverCases } from '../../suites/server/index.js';
import { mockServerTarget, scriptedTarget, tinyServer } from './targets.js';

type Msg = Record<string, unknown>;
const schemas = SchemaRegistry.load();
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'harness-test', version: '1' } };
const GOOD_INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1' } };
/** One bad icon URL: `src` must be a URI (the official schema states format "uri"). */
const BAD_ICON_RESULT = { ...GOOD_INIT_RESULT, serverInfo: { name: 'tiny', version: '1', icons: [{ src: 'not a uri' }] } };
const PROMPT = { type: 'text', message: 'Destination?' };

async function run(cases: ConformanceCase[], target: Target): Promise<RunResult> {
  const registry = new CaseRegistry();
  for (const c of cases) registry.register(c);
  return runConformance({ registry, target, graceMs: 500, workers: 1, discoveryTimeoutMs: 1000 });
}

/** A case that initializes and then (optionally) starts an interaction, checking only what it declares. */
function interactionCase(id: string, declared: string[]): ConformanceCase {
  return defineCase({
    id: `schema-verdicts/${id}`,
    suite: 'schema-verdicts',
    title: `a case declaring ${declared.join(', ')}`,
    requirements: ['CORE-RPC-5', ...declared],
    async run(ctx) {
      await ctx.connection.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT });
      const answer = await ctx.expectAnswer('CORE-RPC-5', 1);
      ctx.check('CORE-RPC-5', answer?.id === 1, { message: 'initialize is answered', actual: answer });
      await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await ctx.connection.send({ jsonrpc: '2.0', id: 2, method: 'interaction.start', params: { toolName: 'booking' } });
      await ctx.expectAnswer('CORE-RPC-5', 2);
      // The server's interaction.prompt follows its answer: wait for it and answer it.
      const prompt = await ctx.next((r) => (r.message as Msg).method === 'interaction.prompt');
      await ctx.connection.send({ jsonrpc: '2.0', id: (prompt.message as Msg).id as number, result: { acknowledged: true } });
    },
  });
}

/** A server answering interaction.start with `startResult`, then sending interaction.prompt with `promptParams`. */
function flowServer(initResult: Msg, startResult: Msg, promptParams: Msg): Target {
  return scriptedTarget(
    tinyServer(initResult, async (m: Msg, server: MemoryConnection) => {
      if (m.method !== 'interaction.start') return;
      await server.send({ jsonrpc: '2.0', id: m.id, result: startResult });
      await server.send({ jsonrpc: '2.0', id: 'p1', method: 'interaction.prompt', params: promptParams });
    }),
  );
}

describe('a schema finding becomes a verdict', () => {
  it('(a) an extra member in a server message is an INFO note naming the member, never a FAIL', async () => {
    const target = flowServer(
      GOOD_INIT_RESULT,
      { sessionId: 's1', state: 'waiting_user', vendorTrace: { id: 7 } },
      // An extra object next to the prompt, and an extension field inside it.
      { sessionId: 's1', prompt: { ...PROMPT, hint: 'a city' }, ui: { theme: 'dark' } },
    );
    const result = await run([interactionCase('owner', ['FLOW-START-2', 'FLOW-PROMPT-1', 'FLOW-PROMPT-3'])], target);
    const [c] = result.cases;
    expect(c!.verdict).toBe('INFO');
    const notes = c!.checks.filter((k) => k.verdict === 'INFO');
    expect(notes.map((k) => k.message).join('\n')).toMatch(/response 2 .*\/result\/vendorTrace/);
    expect(notes.some((k) => /interaction\.prompt .*\/params\/prompt\/hint.*\/params\/ui|interaction\.prompt .*\/params\/ui.*\/params\/prompt\/hint/.test(k.message))).toBe(true);
    expect(c!.checks.filter((k) => k.verdict === 'FAIL' || k.verdict === 'WARN')).toEqual([]);
  });

  it('(b) a missing required member still FAILs the requirement it breaks', async () => {
    const target = flowServer(GOOD_INIT_RESULT, { sessionId: 's1' }, { sessionId: 's1', prompt: { type: 'text' } });
    const result = await run([interactionCase('owner', ['FLOW-START-2', 'FLOW-PROMPT-1', 'FLOW-PROMPT-3'])], target);
    const failed = result.cases[0]!.checks.filter((k) => k.verdict === 'FAIL');
    expect(failed.map((k) => k.requirement).sort()).toEqual(['FLOW-PROMPT-3', 'FLOW-START-2']);
    expect(failed.find((k) => k.requirement === 'FLOW-START-2')!.message).toMatch(/interaction-start\.result\.schema\.json at \/result: must have required property 'state'/);
    expect(result.cases[0]!.verdict).toBe('FAIL');
  });

  it('(c) a broken initialize result FAILs once, in the case that owns CORE-LIFE-3, and is only noted in every other case', async () => {
    const target = flowServer(BAD_ICON_RESULT, { sessionId: 's1', state: 'waiting_user' }, { sessionId: 's1', prompt: PROMPT });
    const owner = interactionCase('lifecycle-owner', ['CORE-LIFE-3']);
    const others = [interactionCase('other-1', ['FLOW-START-2']), interactionCase('other-2', ['FLOW-PROMPT-1']), interactionCase('other-3', [])];
    const result = await run([owner, ...others], target);
    const fails = result.cases.flatMap((c) => c.checks.filter((k) => k.verdict === 'FAIL').map((k) => `${c.id} ${k.requirement}`));
    expect(fails).toEqual(['schema-verdicts/lifecycle-owner CORE-LIFE-3']);
    expect(result.summary.FAIL).toBe(1);
    for (const other of result.cases.filter((c) => c.id !== owner.id)) {
      // The note leaves the verdict of a case that does not declare CORE-LIFE-3 alone.
      expect(other.verdict, other.id).toBe('PASS');
      const note = other.checks.find((k) => k.message.includes('/result/serverInfo/icons/0/src'));
      expect(note?.verdict).toBe('INFO');
      expect(note?.message).toMatch(/seen; judged by the cases that check CORE-LIFE-3/);
    }
  });
});

describe('the server suites against a mock whose initialize result has no serverInfo', () => {
  it(
    'FAIL only the case that owns CORE-LIFE-3; every other case that applies only notes it',
    async () => {
      // Transport-agnostic cases: the in-memory target is no real stdio, WebTransport or HTTP connection.
      const cases = serverCases().filter((c) => c.transports === undefined);
      const registry = new CaseRegistry();
      for (const c of cases) registry.register(c);
      const result = await runConformance({ registry, target: mockServerTarget({ faults: ['initialize-missing-server-info'] }), workers: 2, timeoutScale: 2, seed: 1 });
      const bad = result.cases.filter((c) => ['FAIL', 'WARN', 'TIMEOUT', 'ERROR'].includes(c.verdict)).map((c) => `${c.id} ${c.verdict}`);
      expect(bad).toEqual(['lifecycle/initialize-result-shape FAIL']);
      expect(result.cases.find((c) => c.id === 'lifecycle/initialize-result-shape')!.requirements).toContain('CORE-LIFE-3');
      const noted = result.cases.filter((c) => c.checks.some((k) => k.verdict === 'INFO' && k.message.includes('judged by the cases that check CORE-LIFE-3')));
      expect(noted.length).toBeGreaterThan(20);
    },
    300_000,
  );
});

describe('the proxy and the runner judge the same messages the same way', () => {
  /** One exchange, as the harness (client) sent and received it. */
  const exchange: ['sent' | 'received', Msg][] = [
    ['sent', { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT }],
    ['received', { jsonrpc: '2.0', id: 1, result: BAD_ICON_RESULT }],
    ['sent', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['sent', { jsonrpc: '2.0', id: 2, method: 'interaction.start', params: { toolName: 'booking' } }],
    ['received', { jsonrpc: '2.0', id: 2, result: { sessionId: 's1', state: 'waiting_user', vendorTrace: { id: 7 } } }],
    ['received', { jsonrpc: '2.0', id: 'p1', method: 'interaction.prompt', params: { sessionId: 's1', prompt: { ...PROMPT, hint: 'x' }, ui: {} } }],
    ['sent', { jsonrpc: '2.0', id: 'p1', result: { acknowledged: true } }],
    ['sent', { jsonrpc: '2.0', id: 3, method: 'interaction.getState', params: { sessionId: 's1' } }],
    ['received', { jsonrpc: '2.0', id: 3, result: { sessionId: 's1', state: 'waiting_user', history: [], accumulatedData: {} } }],
    ['received', { jsonrpc: '2.0', id: 'p2', method: 'interaction.prompt', params: { sessionId: 's1', prompt: { type: 'choice', message: 'Class?' } } }],
  ];

  it('(d) the same requirements at the same messages; extra members are no violation for either', () => {
    const transcript = new Transcript();
    for (const [direction, decoded] of exchange) transcript.record({ direction, channel: { kind: 'control' }, decoded });
    const runner = judgeTranscript(schemas, requirements(), transcript.entries());
    const judged = runner
      .filter((f) => f.kind === 'violation' && f.direction === 'received' && f.requirement !== undefined)
      .map((f) => `${f.seq} ${f.requirement}`);

    const validator = new SessionValidator({ session: 1, registry: schemas, requirements: requirements(), downstream: 'http', upstream: 'http' });
    const proxy = exchange.flatMap(([direction, message], seq) =>
      validator
        .observe(direction === 'sent' ? 'client-to-server' : 'server-to-client', message, seq)
        .filter((v) => v.message.startsWith('breaks schema'))
        .map((v) => `${v.seq} ${v.requirement}`),
    );
    // getState: metadata missing (FLOW-STATE-1), and waiting_user without its currentPrompt (FLOW-STATE-3).
    expect(judged.sort()).toEqual(['1 CORE-LIFE-3', '8 FLOW-STATE-1', '8 FLOW-STATE-3', '9 FLOW-PROMPT-4']);
    expect(proxy.sort()).toEqual(judged);
    // The extra members are found by the runner (INFO notes) and are no violation of the proxy.
    expect(runner.filter((f) => f.kind === 'extra-members').map((f) => f.seq)).toEqual([4, 5]);
    expect(validator.violations.filter((v) => v.seq === 4 || v.seq === 5)).toEqual([]);
  });
});
