// The runner against the real mock server core and scripted misbehaving peers, all over in-memory
// connections: every verdict, --strict, time limits that hold when the target never answers, a
// target that closes mid-case, cases that throw, parallel isolation, filters, baseline and events.
import { describe, expect, it } from 'vitest';
import { defineCase, requiresCapability, type CaseContext, type ConformanceCase, type Target } from '../../src/harness/case.js';
import { HarnessError, NoCasesSelectedError, TargetPreconditionError, TargetUnreachableError } from '../../src/harness/errors.js';
import { CaseRegistry } from '../../src/harness/registry.js';
import type { CaseResult, Verdict } from '../../src/harness/result.js';
import { runConformance, type RunEvent, type RunOptions } from '../../src/harness/runner.js';
import { connectionTarget } from '../../src/harness/target.js';
import { stdioTarget } from '../../src/harness/transport-targets.js';
import { renderJson } from '../../src/report/json.js';
import { ConnectFailedError, TlsConfigError } from '../../src/transport/errors.js';
import { mockServerTarget, scriptedTarget, tinyServer, type TrackedTarget } from './targets.js';

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'harness-test', version: '1' } };
type Msg = Record<string, unknown>;

async function initialize(ctx: CaseContext, requirement: string): Promise<Msg | undefined> {
  const answer = await ctx.request(requirement, 'initialize', INIT);
  if (answer && 'result' in answer) await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return answer;
}

const serverInfoCase = defineCase({
  id: 'lifecycle/initialize-server-info',
  suite: 'lifecycle',
  title: 'the initialize result names the server',
  requirements: ['CORE-LIFE-3'],
  async run(ctx) {
    const answer = await initialize(ctx, 'CORE-LIFE-3');
    if (!answer) return;
    const result = answer.result as Msg | undefined;
    ctx.check('CORE-LIFE-3', typeof result?.serverInfo === 'object' && result.serverInfo !== null, {
      message: 'the initialize result carries serverInfo',
      expected: 'an object with name and version',
      actual: result?.serverInfo,
    });
  },
});

const secondInitializeCase = defineCase({
  id: 'lifecycle/second-initialize',
  suite: 'lifecycle',
  title: 'a second initialize is refused',
  requirements: ['CORE-LIFE-8'],
  async run(ctx) {
    await initialize(ctx, 'CORE-LIFE-8');
    const second = await ctx.request('CORE-LIFE-8', 'initialize', INIT);
    if (!second) return;
    ctx.check('CORE-LIFE-8', 'error' in second, { message: 'a second initialize is answered with an error', expected: 'an error response', actual: second });
  },
});

function registryOf(cases: ConformanceCase[]): CaseRegistry {
  const registry = new CaseRegistry();
  registry.registerAll(cases);
  return registry;
}

async function run(cases: ConformanceCase[], target: Target, options: Partial<RunOptions> = {}) {
  const result = await runConformance({ registry: registryOf(cases), target, workers: 4, graceMs: 500, ...options });
  const byId = new Map(result.cases.map((c) => [c.id, c]));
  return { result, get: (id: string) => byId.get(id) as CaseResult };
}

const verdicts = (cases: CaseResult[]): Record<string, Verdict> => Object.fromEntries(cases.map((c) => [c.id, c.verdict]));

describe('verdicts against the mock server core', () => {
  it('PASS on a conforming server, FAIL when its MUST fault is on (with text, excerpt and rerun)', async () => {
    const good = await run([serverInfoCase], mockServerTarget());
    expect(good.get(serverInfoCase.id)).toMatchObject({ verdict: 'PASS', level: 'MUST' });
    expect(good.result.exitCode).toBe(0);
    expect(good.result.target.serverInfo).toMatchObject({ name: 'mcp-flow-conformance-mock-server' });

    const bad = await run([serverInfoCase], mockServerTarget({ faults: ['initialize-missing-server-info'] }));
    const failed = bad.get(serverInfoCase.id);
    expect(failed.verdict).toBe('FAIL');
    expect(failed.reason).toMatch(/serverInfo/);
    expect(failed.requirementText).toMatch(/serverInfo/);
    const check = failed.checks.find((c) => c.requirement === 'CORE-LIFE-3' && c.verdict === 'FAIL' && c.message.includes('carries serverInfo'));
    expect(check).toMatchObject({ expected: 'an object with name and version', actual: undefined });
    expect(failed.transcript?.some((e) => (e.decoded as Msg | undefined)?.method === 'initialize')).toBe(true);
    expect(failed.rerun).toBe('mcp-flow-conformance server --url memory://test --case lifecycle/initialize-server-info');
    expect(bad.result.exitCode).toBe(1);
  });

  it('a precondition the target broke fails the named requirement (or the case\'s first), not the harness', async () => {
    const needsSession = defineCase({
      id: 'lifecycle/needs-a-session',
      suite: 'lifecycle',
      title: 'a case that cannot start without a session',
      requirements: ['CORE-LIFE-12'],
      async run() {
        throw new TargetPreconditionError('initialize was answered with an error', { requirement: 'CORE-LIFE-3', actual: { code: -32603 } });
      },
    });
    const unnamed = defineCase({ ...needsSession, id: 'lifecycle/needs-something', run: async () => { throw new TargetPreconditionError('no tool to call'); } });
    const { get } = await run([needsSession, unnamed], mockServerTarget());
    expect(get(needsSession.id)).toMatchObject({ verdict: 'FAIL', reason: 'precondition failed: initialize was answered with an error: got error -32603' });
    expect(get(needsSession.id).checks[0]).toMatchObject({ requirement: 'CORE-LIFE-3', actual: { code: -32603 } });
    expect(get(unnamed.id).checks[0]).toMatchObject({ requirement: 'CORE-LIFE-12', verdict: 'FAIL' });
  });

  it('a broken SHOULD is WARN (exit 0), and FAIL under --strict (exit 1)', async () => {
    const faults = ['second-initialize-accepted'];
    expect((await run([secondInitializeCase], mockServerTarget())).get(secondInitializeCase.id).verdict).toBe('PASS');
    const lenient = await run([secondInitializeCase], mockServerTarget({ faults }));
    expect(lenient.get(secondInitializeCase.id)).toMatchObject({ verdict: 'WARN', level: 'SHOULD' });
    expect(lenient.result.exitCode).toBe(0);
    const strict = await run([secondInitializeCase], mockServerTarget({ faults }), { strict: true });
    expect(strict.get(secondInitializeCase.id).verdict).toBe('FAIL');
    expect(strict.get(secondInitializeCase.id).reason).toMatch(/--strict/);
    expect(strict.get(secondInitializeCase.id).rerun).toMatch(/--strict$/);
    expect(strict.result.exitCode).toBe(1);
  });

  it('INFO records the reading a target chose; NOT_APPLICABLE says why; a case the filters leave out is only counted', async () => {
    const infoCase = defineCase({
      id: 'lifecycle/reading',
      suite: 'lifecycle',
      title: 'reports the protocol version chosen',
      requirements: ['CORE-LIFE-3'],
      async run(ctx) {
        const answer = await initialize(ctx, 'CORE-LIFE-3');
        ctx.check('CORE-LIFE-3', answer !== undefined && 'result' in answer, { message: 'initialize succeeds' });
        ctx.info('CORE-LIFE-3', 'the server answered with its own protocol version', (answer?.result as Msg | undefined)?.protocolVersion);
      },
    });
    const needsNothing = defineCase({ ...serverInfoCase, id: 'prompts/needs-capability', suite: 'prompts', applies: requiresCapability('no-such-capability') });
    const needsWt = defineCase({ ...serverInfoCase, id: 'binding/needs-webtransport', suite: 'binding', transports: ['webtransport'] });
    const { get, result } = await run([infoCase, needsNothing, needsWt, serverInfoCase], mockServerTarget(), { filters: { exclude: ['lifecycle/initialize-*'] } });
    expect(get(infoCase.id).verdict).toBe('INFO');
    expect(get(infoCase.id).checks.find((c) => c.verdict === 'INFO')?.actual).toBe('2025-06-18');
    expect(get(needsNothing.id)).toMatchObject({ verdict: 'NOT_APPLICABLE', reason: 'the target did not declare the "no-such-capability" capability' });
    expect(get(needsWt.id).verdict).toBe('NOT_APPLICABLE');
    expect(get(needsWt.id).reason).toMatch(/webtransport.*stdio/);
    // Left out by --exclude: not in the result (merged shard reports count each case once), only counted.
    expect(result.cases.map((c) => c.id)).not.toContain(serverInfoCase.id);
    expect(result.notSelected).toBe(1);
    expect(result.summary).toMatchObject({ INFO: 1, NOT_APPLICABLE: 2, SKIPPED: 0, total: 3 });
    expect(result.exitCode).toBe(0);
  });

  it('a capability the server declares makes the case applicable (discovery feeds applicability)', async () => {
    const needsPrompts = defineCase({ ...serverInfoCase, id: 'prompts/declared', suite: 'prompts', applies: requiresCapability('prompts') });
    expect((await run([needsPrompts], mockServerTarget())).get(needsPrompts.id).verdict).toBe('PASS');
    expect((await run([needsPrompts], mockServerTarget({ core: { prompts: false } }))).get(needsPrompts.id).verdict).toBe('NOT_APPLICABLE');
  });
});

describe('targets that misbehave', () => {
  const silent = () => scriptedTarget(async () => undefined);

  it('a target that never answers: expectAnswer FAILs the requirement, a bare wait is TIMEOUT, a case ignoring its signal is TIMEOUT too', async () => {
    const asks = defineCase({
      id: 'silent/expect-answer',
      suite: 'silent',
      title: 'ping is answered',
      requirements: ['CORE-LIFE-12'],
      timeLimitMs: 5_000,
      async run(ctx) {
        await ctx.request('CORE-LIFE-12', 'ping', undefined, { timeoutMs: 200 });
      },
    });
    const waits = defineCase({
      id: 'silent/waits',
      suite: 'silent',
      title: 'waits for anything',
      requirements: ['CORE-LIFE-12'],
      timeLimitMs: 300,
      async run(ctx) {
        await ctx.connection.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
        await ctx.next();
      },
    });
    const ignores = defineCase({
      id: 'silent/ignores-signal',
      suite: 'silent',
      title: 'never returns',
      requirements: ['CORE-LIFE-12'],
      timeLimitMs: 300,
      run: () => new Promise<void>(() => undefined),
    });
    const target = silent();
    const { get, result } = await run([asks, waits, ignores], target, { discoveryTimeoutMs: 300 });
    expect(get(asks.id).verdict).toBe('FAIL');
    expect(get(asks.id).reason).toMatch(/no answer to ping within 200 ms/);
    expect(get(waits.id).verdict).toBe('TIMEOUT');
    expect(get(waits.id).reason).toMatch(/time limit of 300 ms/);
    expect(get(waits.id).transcript?.some((e) => (e.decoded as Msg | undefined)?.method === 'ping')).toBe(true);
    expect(get(ignores.id)).toMatchObject({ verdict: 'TIMEOUT' });
    expect(get(ignores.id).reason).toMatch(/had not returned/);
    expect(result.options.discoveryError).toBeDefined();
    expect(result.exitCode).toBe(1);
    expect(target.opened.every((c) => c.isClosed)).toBe(true);
  });

  it('the grace period starts at the limit: a case that returns soon after its signal aborts is not reported as abandoned', async () => {
    const returnsLate = defineCase({
      id: 'silent/returns-after-abort',
      suite: 'silent',
      title: 'returns a moment after its signal aborts',
      requirements: ['CORE-LIFE-12'],
      // Longer than the grace period, so a grace period counted from the case's start would be over.
      timeLimitMs: 400,
      async run(ctx) {
        await ctx.next().catch(() => undefined);
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    const { get } = await run([returnsLate], scriptedTarget(tinyServer()), { graceMs: 200 });
    expect(get(returnsLate.id)).toMatchObject({ verdict: 'TIMEOUT', reason: 'the case ran past its time limit of 400 ms' });
  });

  it('timeoutScale stretches the limits', async () => {
    const waits = defineCase({
      id: 'silent/scaled',
      suite: 'silent',
      title: 'waits',
      requirements: ['CORE-LIFE-12'],
      timeLimitMs: 100,
      async run(ctx) {
        await ctx.next();
      },
    });
    const { get } = await run([waits], silent(), { timeoutScale: 3, discoveryTimeoutMs: 100 });
    expect(get(waits.id)).toMatchObject({ verdict: 'TIMEOUT', timeLimitMs: 300 });
    expect(get(waits.id).rerun).toMatch(/--timeout-scale 3$/);
  });

  it('a target that closes mid-case: the unanswered request FAILs, a case cut short FAILs its first requirement', async () => {
    const closer = () =>
      scriptedTarget(
        tinyServer(undefined, async (m, server) => {
          if (m.method === 'ping') await server.close('going away');
        }),
      );
    const asks = defineCase({
      id: 'closing/ping',
      suite: 'closing',
      title: 'ping is answered',
      requirements: ['CORE-LIFE-12'],
      async run(ctx) {
        await ctx.request('CORE-LIFE-12', 'ping');
      },
    });
    const cutShort = defineCase({
      id: 'closing/cut-short',
      suite: 'closing',
      title: 'waits for a notification',
      requirements: ['CORE-RPC-16', 'CORE-LIFE-12'],
      async run(ctx) {
        await ctx.connection.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
        await ctx.next((r) => (r.message as Msg).method === 'notifications/message');
      },
    });
    const { get } = await run([asks, cutShort], closer());
    expect(get(asks.id).verdict).toBe('FAIL');
    expect(get(asks.id).reason).toMatch(/connection closed before ping was answered/);
    expect(get(cutShort.id).verdict).toBe('FAIL');
    expect(get(cutShort.id).checks[0]).toMatchObject({ requirement: 'CORE-RPC-16', verdict: 'FAIL', actual: { code: 'CONNECTION_CLOSED' } });
  });

  it('a target that closes in the middle of a message: the request FAILs, the partial line is on the transcript', async () => {
    const target = scriptedTarget(
      tinyServer(undefined, async (m, server) => {
        if (m.method !== 'ping') return;
        await server.sendRaw(new TextEncoder().encode(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"res`));
        await server.close('crashed');
      }),
    );
    const asks = defineCase({
      id: 'closing/mid-frame',
      suite: 'closing',
      title: 'ping is answered',
      requirements: ['CORE-LIFE-12'],
      async run(ctx) {
        await ctx.request('CORE-LIFE-12', 'ping');
      },
    });
    const { get } = await run([asks], target);
    expect(get(asks.id).verdict).toBe('FAIL');
    expect(get(asks.id).reason).toMatch(/connection closed before ping was answered/);
    expect(get(asks.id).transcript?.some((e) => e.direction === 'received' && e.byteLength > 0 && e.decoded === undefined)).toBe(true);
  });

  it('a target that floods the connection still gets a verdict', async () => {
    const flooder = scriptedTarget(async (server) => {
      await server.next();
      for (let i = 0; i < 2_000 && !server.isClosed; i++) await server.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: i } });
    });
    const asks = defineCase({
      id: 'flood/ping',
      suite: 'flood',
      title: 'ping is answered',
      requirements: ['CORE-LIFE-12'],
      async run(ctx) {
        await ctx.request('CORE-LIFE-12', 'ping', undefined, { timeoutMs: 500 });
      },
    });
    const { get } = await run([asks], flooder, { discoveryTimeoutMs: 500, validateSchemas: false });
    expect(get(asks.id).verdict).toBe('FAIL');
  });

  it('a huge answer reaches the case whole, but the result keeps it bounded (checks, transcript) and the report small', async () => {
    const huge = 'x'.repeat(5_000_000);
    const target = scriptedTarget(
      tinyServer(undefined, async (m, server) => {
        if (m.method === 'ping') await server.send({ jsonrpc: '2.0', id: m.id, result: { huge } });
      }),
    );
    const asks = defineCase({
      id: 'huge/ping',
      suite: 'huge',
      title: 'ping is answered with {}',
      requirements: ['CORE-LIFE-12'],
      async run(ctx) {
        const answer = await ctx.request('CORE-LIFE-12', 'ping');
        if (!answer) return;
        const result = answer.result as { huge?: string };
        ctx.check('CORE-LIFE-12', result.huge?.length === 5_000_000 && Object.keys(result).length === 0, { message: 'ping is answered with {}', expected: {}, actual: answer });
      },
    });
    const { result, get } = await run([asks], target, { validateSchemas: false, discoveryTimeoutMs: 500 });
    const failed = get(asks.id);
    expect(failed.verdict).toBe('FAIL');
    // The case had it whole (the length check held); the check keeps its size and hash, the transcript no decoded copy.
    const actual = failed.checks.find((check) => check.message === 'ping is answered with {}')!.actual as { result: { huge: { jsonLength: number; sha256: string } } };
    expect(actual.result.huge).toMatchObject({ jsonLength: 5_000_002, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const answerEntry = failed.transcript!.find((entry) => entry.direction === 'received' && entry.byteLength > 5_000_000)!;
    expect(answerEntry).toMatchObject({ summary: 'response id 1', sha256: expect.any(String) });
    expect(answerEntry.decoded).toBeUndefined();
    expect(renderJson(result).length).toBeLessThan(200_000);
  });

  it('discovery that fails (initialize refused) fails the cases that depend on it; the others still run', async () => {
    const refusing = scriptedTarget(async (server) => {
      for (;;) {
        const m = (await server.next()).message as Msg;
        if (m.method === 'initialize') await server.send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unsupported' } });
        if (m.method === 'ping') await server.send({ jsonrpc: '2.0', id: m.id, result: {} });
      }
    });
    const dependent = defineCase({ ...serverInfoCase, id: 'tools/dependent', suite: 'tools', applies: requiresCapability('tools') });
    const pings = defineCase({
      id: 'lifecycle/ping-first',
      suite: 'lifecycle',
      title: 'ping before initialize',
      requirements: ['CORE-LIFE-13'],
      async run(ctx) {
        ctx.check('CORE-LIFE-13', (await ctx.request('CORE-LIFE-13', 'ping')) !== undefined, { message: 'ping answered' });
      },
    });
    const { get, result } = await run([dependent, pings], refusing);
    expect(result.options.discoveryError).toMatchObject({ code: 'INITIALIZE_FAILED' });
    expect(get(dependent.id).verdict).toBe('FAIL');
    expect(get(dependent.id).reason).toMatch(/^discovery failed: initialize was answered without a result/);
    expect(get(pings.id).verdict).toBe('PASS');
  });

  it('an unreachable target ends the run with a typed error', async () => {
    const target = connectionTarget({
      description: 'https://127.0.0.1:9/mcp',
      transport: 'http',
      rerunArgs: ['--url', 'https://127.0.0.1:9/mcp'],
      connect: async () => {
        throw new ConnectFailedError('connection refused');
      },
    });
    await expect(run([serverInfoCase], target)).rejects.toBeInstanceOf(TargetUnreachableError);
    const badTls = connectionTarget({
      description: 'https://127.0.0.1:9/wt',
      transport: 'webtransport',
      rerunArgs: [],
      connect: async () => {
        throw new TlsConfigError('the pinned certificate hash is not 32 bytes');
      },
    });
    await expect(run([serverInfoCase], badTls)).rejects.toThrow(/cannot connect to https:\/\/127.0.0.1:9\/wt: the pinned certificate hash/);
  });

  it('an unreachable target still finishes every listener: run-start is followed by run-error', async () => {
    const target = connectionTarget({
      description: 'https://127.0.0.1:9/mcp',
      transport: 'http',
      rerunArgs: ['--url', 'https://127.0.0.1:9/mcp'],
      connect: async () => {
        throw new ConnectFailedError('connection refused');
      },
    });
    const events: RunEvent[] = [];
    await expect(run([serverInfoCase], target, { onEvent: (e) => events.push(e) })).rejects.toBeInstanceOf(TargetUnreachableError);
    expect(events.map((e) => e.type)).toEqual(['run-start', 'run-error']);
    expect(events[1]).toMatchObject({ type: 'run-error', error: { code: 'TARGET_UNREACHABLE', message: expect.stringMatching(/connection refused/) } });
  });

  it('the runner breaking on one case makes that case ERROR while the other workers carry on', async () => {
    // The transcript of connections marked by the case becomes unreadable: the runner's own schema
    // pass over it throws a HarnessError after the case body returned.
    const base = mockServerTarget();
    const broken = new WeakSet<object>();
    const target: Target = {
      describe: () => base.describe(),
      discover: (signal) => base.discover(signal),
      async connect(signal) {
        const connection = await base.connect(signal);
        const entries = connection.transcript.entries.bind(connection.transcript);
        connection.transcript.entries = () => {
          if (broken.has(connection)) throw new HarnessError('TEST_TRANSCRIPT_BROKEN', 'the transcript cannot be read');
          return entries();
        };
        return connection;
      },
    };
    const breaks = defineCase({
      id: 'bugs/runner-breaks',
      suite: 'bugs',
      title: 'the runner fails after this case',
      requirements: ['CORE-LIFE-3'],
      async run(ctx) {
        broken.add(ctx.connection);
        ctx.check('CORE-LIFE-3', true, { message: 'nothing to see' });
      },
    });
    const events: RunEvent[] = [];
    const { get, result } = await run([breaks, serverInfoCase, secondInitializeCase], target, { workers: 2, onEvent: (e) => events.push(e) });
    expect(get(breaks.id).verdict).toBe('ERROR');
    expect(get(breaks.id).reason).toMatch(/the transcript cannot be read/);
    expect(get(serverInfoCase.id).verdict).toBe('PASS');
    expect(get(secondInitializeCase.id).verdict).toBe('PASS');
    expect(result.exitCode).toBe(2);
    expect(events.at(-1)?.type).toBe('run-end');
  });

  it('a listener that throws does not cut the other workers short: the run rejects once all stopped', async () => {
    const ended: string[] = [];
    const events: RunEvent[] = [];
    const onEvent = (event: RunEvent) => {
      events.push(event);
      if (event.type !== 'case-end') return;
      ended.push(event.result.id);
      if (event.result.id === serverInfoCase.id) throw new TypeError('listener bug');
    };
    await expect(run([serverInfoCase, secondInitializeCase], mockServerTarget(), { workers: 2, onEvent })).rejects.toThrow(/listener bug/);
    expect(ended.sort()).toEqual([serverInfoCase.id, secondInitializeCase.id].sort());
    expect(events.at(-1)).toMatchObject({ type: 'run-error', error: { code: 'HARNESS_ERROR', message: 'listener bug' } });
  });
});

describe('run options', () => {
  it('bad options are typed errors before anything runs', async () => {
    await expect(run([serverInfoCase], mockServerTarget(), { workers: 0 })).rejects.toMatchObject({ code: 'RUN_OPTIONS_INVALID' });
    await expect(run([serverInfoCase], mockServerTarget(), { timeoutScale: -1 })).rejects.toMatchObject({ code: 'RUN_OPTIONS_INVALID' });
    await expect(run([serverInfoCase], mockServerTarget(), { path: '1:0' })).rejects.toThrow(/needs --seed/);
    await expect(run([serverInfoCase, secondInitializeCase], mockServerTarget(), { seed: 1, path: '1:0' })).rejects.toThrow(/2 cases are selected/);
  });
});

describe('harness bugs are ERROR', () => {
  it('a case that throws, records no check, or checks an undeclared requirement', async () => {
    const throws = defineCase({
      id: 'bugs/throws',
      suite: 'bugs',
      title: 'throws',
      requirements: ['CORE-LIFE-3'],
      async run() {
        const value = undefined as unknown as { field: string };
        value.field.toString();
      },
    });
    const silentCase = defineCase({ id: 'bugs/no-check', suite: 'bugs', title: 'checks nothing', requirements: ['CORE-LIFE-3'], run: async () => undefined });
    const undeclared = defineCase({
      id: 'bugs/undeclared',
      suite: 'bugs',
      title: 'checks something else',
      requirements: ['CORE-LIFE-3'],
      async run(ctx) {
        ctx.check('CORE-LIFE-12', true, { message: 'ping' });
      },
    });
    const { get, result } = await run([throws, silentCase, undeclared], mockServerTarget());
    expect(get(throws.id).verdict).toBe('ERROR');
    expect(get(throws.id).reason).toMatch(/TypeError[\s\S]*\n\s+at /);
    expect(get(silentCase.id)).toMatchObject({ verdict: 'ERROR' });
    expect(get(silentCase.id).reason).toMatch(/without recording any check/);
    expect(get(undeclared.id).reason).toMatch(/CORE-LIFE-12, which it does not declare/);
    expect(result.exitCode).toBe(2);
  });
});

describe('parallel workers', () => {
  it('run cases at the same time without mixing their traffic', async () => {
    const size = 4;
    const groups = [0, 1].map(() => {
      let arrived = 0;
      let open!: () => void;
      const all = new Promise<void>((resolve) => (open = resolve));
      return {
        arrive: () => {
          if (++arrived === size) open();
          return all;
        },
      };
    });
    const transcripts = new Map<string, unknown[]>();
    const cases = Array.from({ length: size * 2 }, (_, i) =>
      defineCase({
        id: `parallel/case-${i}`,
        suite: 'parallel',
        title: `case ${i}`,
        requirements: ['CORE-LIFE-12'],
        async run(ctx) {
          await initialize(ctx, 'CORE-LIFE-12');
          // Every worker of the group is inside its case before any pings: proves they overlap.
          await groups[Math.floor(i / size)]!.arrive();
          for (let n = 0; n < 5; n++) {
            await ctx.connection.send({ jsonrpc: '2.0', id: `case-${i}-ping-${n}`, method: 'ping' });
            const answer = await ctx.expectAnswer('CORE-LIFE-12', `case-${i}-ping-${n}`);
            ctx.check('CORE-LIFE-12', answer !== undefined && 'result' in answer, { message: `ping ${n} answered` });
          }
          transcripts.set(ctx.caseId, ctx.connection.transcript.entries().map((e) => e.decoded));
        },
      }),
    );
    const target = mockServerTarget();
    const { result } = await run(cases, target, { workers: size });
    expect(Object.values(verdicts(result.cases))).toEqual(Array(size * 2).fill('PASS'));
    for (let i = 0; i < size * 2; i++) {
      const ids = (transcripts.get(`parallel/case-${i}`) ?? []).map((m) => (m as Msg | undefined)?.id).filter((id) => typeof id === 'string');
      expect(ids.length).toBe(10);
      expect(ids.every((id) => (id as string).startsWith(`case-${i}-`))).toBe(true);
    }
    // A connection per case, one for the pre-flight initialize and one for discovery.
    expect(target.opened.length).toBe(size * 2 + 2);
    expect(target.opened.every((c) => c.isClosed)).toBe(true);
  });
});

describe('how many cases run at once', () => {
  it('as many as the run says, else as its target says (8 over stdio), else 4', async () => {
    const awake = { now: 0, most: 0, expected: 0, open: () => {}, opened: Promise.resolve() };
    const cases = Array.from({ length: 10 }, (_, i) =>
      defineCase({
        id: `parallel/count-${i}`,
        suite: 'parallel',
        title: `count ${i}`,
        requirements: ['CORE-LIFE-12'],
        // Only reached when fewer run at once than expected (the test then fails on \`most\`).
        timeLimitMs: 20_000,
        async run(ctx) {
          awake.most = Math.max(awake.most, ++awake.now);
          if (awake.now === awake.expected) awake.open();
          // Held (not ctx.sleep, which gives the worker away) until as many as expected run at once:
          // fewer workers never open it (the cases end TIMEOUT and `most` falls short), more show in `most`.
          await awake.opened;
          awake.now--;
          ctx.check('CORE-LIFE-12', true, { message: 'ran' });
        },
      }),
    );
    const most = async (expected: number, target: Target, workers?: number) => {
      Object.assign(awake, { most: 0, expected });
      awake.opened = new Promise<void>((resolve) => (awake.open = resolve));
      const result = await runConformance({ registry: registryOf(cases), target, graceMs: 500, ...(workers !== undefined ? { workers } : {}) });
      return { most: awake.most, recorded: result.options['workers'] };
    };
    expect(await most(4, mockServerTarget())).toEqual({ most: 4, recorded: 4 });
    expect(await most(6, Object.assign(mockServerTarget(), { defaultWorkers: 6 }))).toEqual({ most: 6, recorded: 6 });
    expect(await most(2, Object.assign(mockServerTarget(), { defaultWorkers: 6 }), 2)).toEqual({ most: 2, recorded: 2 });
    expect(stdioTarget('node my-server.js').defaultWorkers).toBe(8);
    // A server started in this process shares the event loop with the harness: the runner's default.
    expect(stdioTarget('node my-server.js', { launch: async () => Promise.reject(new Error('not started')) }).defaultWorkers).toBeUndefined();
  });
});

describe('a case that rests (sleep, awaitTarget) gives its worker away', () => {
  /** One worker; `rest` runs first (it sleeps), the others must all run while it rests, or it waits for ever. */
  async function restingRun(rest: (ctx: CaseContext, othersDone: Promise<void>) => Promise<void>) {
    let done = 0;
    let allDone!: () => void;
    const othersDone = new Promise<void>((resolve) => (allDone = resolve));
    const others = [1, 2, 3].map((i) =>
      defineCase({
        id: `resting/other-${i}`,
        suite: 'resting',
        title: `other ${i}`,
        requirements: ['CORE-LIFE-12'],
        async run(ctx) {
          ctx.check('CORE-LIFE-12', true, { message: 'ran' });
          if (++done === 3) allDone();
        },
      }),
    );
    const resting = defineCase({
      id: 'resting/rests',
      suite: 'resting',
      title: 'rests until the others are done',
      requirements: ['CORE-LIFE-12'],
      sleeps: true,
      timeLimitMs: 20_000,
      async run(ctx) {
        await rest(ctx, othersDone);
        ctx.check('CORE-LIFE-12', true, { message: 'the others ran while this case rested' });
      },
    });
    const { result } = await run([...others, resting], mockServerTarget(), { workers: 1 });
    return verdicts(result.cases);
  }

  const allPass = { 'resting/other-1': 'PASS', 'resting/other-2': 'PASS', 'resting/other-3': 'PASS', 'resting/rests': 'PASS' };

  it('awaitTarget: the other cases run on its worker until the wait settles', async () => {
    expect(await restingRun((ctx, othersDone) => ctx.awaitTarget(othersDone))).toEqual(allPass);
  });

  it('two waits at once: the worker comes back after the last, not the first', async () => {
    const verdictsSeen = await restingRun(async (ctx, othersDone) => {
      await Promise.all([ctx.awaitTarget(Promise.resolve()), ctx.awaitTarget(othersDone)]);
    });
    expect(verdictsSeen).toEqual(allPass);
  });

  it('without resting, one worker runs the cases one after another: the resting case would wait for ever (its limit)', async () => {
    const verdictsSeen = await restingRun(async (ctx, othersDone) => {
      await Promise.race([othersDone, new Promise((resolve) => setTimeout(resolve, 300))]);
      ctx.check('CORE-LIFE-12', false, { message: 'the others did not run while this case held its worker' });
    });
    expect(verdictsSeen['resting/rests']).toBe('FAIL');
  });
});

describe('filters, baseline and events in a run', () => {
  const failing = defineCase({ ...serverInfoCase, id: 'lifecycle/missing-info' });
  const passing = defineCase({
    id: 'lifecycle/ping',
    suite: 'lifecycle',
    title: 'ping is answered with an empty result',
    requirements: ['CORE-LIFE-12'],
    async run(ctx) {
      const answer = await ctx.request('CORE-LIFE-12', 'ping');
      if (answer) ctx.check('CORE-LIFE-12', JSON.stringify(answer.result) === '{}', { message: 'ping result is {}', expected: {}, actual: answer.result });
    },
  });
  const faults = ['initialize-missing-server-info'];

  it('a baseline turns a listed failure into an expected failure (exit 0) and reports a listed pass as stale', async () => {
    const baseline = { version: 1 as const, expectedFailures: { 'lifecycle/missing-info': 'known', 'lifecycle/ping': 'was broken' } };
    const { get, result } = await run([failing, passing], mockServerTarget({ faults }), { baseline });
    expect(get(failing.id)).toMatchObject({ verdict: 'FAIL', baseline: 'expected-failure' });
    expect(get(passing.id)).toMatchObject({ verdict: 'PASS', baseline: 'stale' });
    expect(result.exitCode).toBe(0);
  });

  it('selecting no case rejects with NoCasesSelectedError; shards and suites leave out the rest', async () => {
    await expect(run([failing, passing], mockServerTarget(), { filters: { cases: ['tools/*'] } })).rejects.toBeInstanceOf(NoCasesSelectedError);
    const { result } = await run([failing, passing], mockServerTarget(), { filters: { suites: ['lifecycle'], shard: { index: 1, count: 1 } } });
    expect(result.summary.SKIPPED).toBe(0);
    expect(result.options).toMatchObject({ suites: ['lifecycle'], shard: '1/1' });
  });

  it('emits run-start, case-start/case-end per selected case, then run-end', async () => {
    const events: RunEvent[] = [];
    await run([failing, passing], mockServerTarget({ faults }), { onEvent: (e) => events.push(e), filters: { cases: ['lifecycle/missing-info'] } });
    expect(events.map((e) => e.type)).toEqual(['run-start', 'case-start', 'case-end', 'run-end']);
    expect(events[0]).toEqual({ type: 'run-start', planned: [{ suite: 'lifecycle', caseId: 'lifecycle/missing-info' }] });
    const end = events[3] as Extract<RunEvent, { type: 'run-end' }>;
    expect(end.result.cases.map((c) => [c.id, c.verdict])).toEqual([['lifecycle/missing-info', 'FAIL']]);
    expect(end.result.notSelected).toBe(1);
  });
});
