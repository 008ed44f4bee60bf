// The client target: a process per case with the scenario in its environment, the server side of
// its session handed to the case, and the process and listener stopped afterwards, whatever the
// client does.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CaseRegistry,
  clientTarget,
  defineCase,
  isInitializeRequest,
  answerInitialize,
  runConformance,
  scenarioEnvironment,
  TargetUnreachableError,
  type CaseContext,
} from '../../src/harness/index.js';
import { isRecord } from '../../src/wire/index.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'clients', 'sdk-http-client.mjs');
const command = [process.execPath, FIXTURE];

function target(mode = '') {
  return clientTarget({ command, transport: 'http', env: { FIXTURE_MODE: mode } });
}

/** Serves the initialize exchange and answers tools/list and tools/call until the client leaves. */
async function serve(ctx: CaseContext, onCall?: (params: Record<string, unknown>) => void): Promise<void> {
  const init = await ctx.next(isInitializeRequest);
  await answerInitialize(ctx.connection, init.message);
  for (;;) {
    const received = await ctx.next(undefined, { timeoutMs: ctx.scaled(5000) }).catch(() => undefined);
    if (!received || !isRecord(received.message)) return;
    const message = received.message;
    if (!('id' in message) || typeof message.method !== 'string') continue;
    if (message.method === 'tools/list') await ctx.connection.send({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
    else if (message.method === 'tools/call') {
      onCall?.(message.params as Record<string, unknown>);
      await ctx.connection.send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'hi' }] } });
    } else await ctx.connection.send({ jsonrpc: '2.0', id: message.id, result: {} });
  }
}

function registryOf(...cases: Parameters<typeof defineCase>[0][]): CaseRegistry {
  const registry = new CaseRegistry(undefined, { role: 'client' });
  registry.registerAll(cases);
  return registry;
}

describe('clientTarget', () => {
  it('puts the scenario, its context and the transport in the environment', () => {
    expect(scenarioEnvironment({ scenario: { name: 'tools-call', context: { tool: 'echo' } }, transport: 'http' })).toEqual({
      MCP_FLOW_SCENARIO: 'tools-call',
      MCP_FLOW_CONTEXT: '{"tool":"echo"}',
      MCP_FLOW_TRANSPORT: 'http',
    });
    expect(scenarioEnvironment({ scenario: { name: 'initialize' }, transport: 'webtransport', certificateHash: 'ab' }).MCP_FLOW_CERT_HASH).toBe('ab');
  });

  it('discovers what the client declares, and hands each case the server side of its session', async () => {
    const calls: Record<string, unknown>[] = [];
    const registry = registryOf(
      defineCase({
        id: 'fixture/tools-call',
        suite: 'fixture',
        title: 'the client calls the tool its scenario names',
        requirements: ['CORE-LIFE-1'],
        scenario: { name: 'tools-call', context: { tool: 'echo', arguments: { text: 'x' } } },
        async run(ctx) {
          await serve(ctx, (params) => calls.push(params));
          const exit = await ctx.client!.exited;
          ctx.check('CORE-LIFE-1', exit.code === 0, { message: 'the client exited 0', actual: exit });
        },
      }),
    );
    const result = await runConformance({ registry, target: target(), workers: 1, timeoutScale: 2 });
    expect(result.target).toMatchObject({ transport: 'http', role: 'client', clientInfo: { name: 'fixture-client', version: '1.2.3' } });
    const only = result.cases[0]!;
    expect(only.verdict, only.reason).toBe('PASS');
    expect(calls).toEqual([{ name: 'echo', arguments: { text: 'x' } }]);
    expect(only.rerun).toContain("--command");
  });

  it('reports a client that never connects as unreachable, with its exit status and stderr', async () => {
    const registry = registryOf(
      defineCase({ id: 'fixture/any', suite: 'fixture', title: 't', requirements: ['CORE-LIFE-1'], scenario: { name: 'initialize' }, run: async (ctx) => void ctx.check('CORE-LIFE-1', true, { message: 'ok' }) }),
    );
    const run = runConformance({ registry, target: target('exit-at-once'), workers: 1 });
    await expect(run).rejects.toBeInstanceOf(TargetUnreachableError);
    await expect(run).rejects.toThrow(/exited with code 3[\s\S]*leaving before connecting/);
  });

  it('fails the first requirement of a case whose client crashes, and stops a client that hangs', async () => {
    let pid: number | undefined;
    const registry = registryOf(
      defineCase({
        id: 'fixture/hang',
        suite: 'fixture',
        title: 'a client that never exits is stopped after its case',
        requirements: ['CORE-LIFE-1'],
        scenario: { name: 'initialize' },
        async run(ctx) {
          pid = ctx.client!.pid;
          const init = await ctx.next(isInitializeRequest);
          await answerInitialize(ctx.connection, init.message);
          ctx.check('CORE-LIFE-1', true, { message: 'initialize came first' });
        },
      }),
    );
    const result = await runConformance({ registry, target: target('hang'), workers: 1, timeoutScale: 2 });
    expect(result.cases[0]!.verdict, result.cases[0]!.reason).toBe('PASS');
    expect(pid).toBeTypeOf('number');
    expect(() => process.kill(pid!, 0)).toThrow();

    const crashing = registryOf(
      defineCase({
        id: 'fixture/crash',
        suite: 'fixture',
        title: 'a client that dies mid-case',
        requirements: ['CORE-LIFE-4'],
        scenario: { name: 'initialize' },
        async run(ctx) {
          const init = await ctx.next(isInitializeRequest);
          await answerInitialize(ctx.connection, init.message);
          await ctx.next((r) => isRecord(r.message) && r.message.method === 'notifications/initialized', { timeoutMs: ctx.scaled(3000) });
          await ctx.next((r) => isRecord(r.message) && r.message.method === 'tools/list', { timeoutMs: ctx.scaled(3000) });
          ctx.check('CORE-LIFE-4', true, { message: 'listed tools' });
        },
      }),
    );
    // Discovery itself gets through initialize before the fixture crashes.
    const crashed = await runConformance({ registry: crashing, target: target('crash-after-initialize'), workers: 1, timeoutScale: 2 });
    const c = crashed.cases[0]!;
    expect(c.verdict).toBe('FAIL');
    expect(c.checks[0]!.requirement).toBe('CORE-LIFE-4');
  });

  it('lets a client go once it exited, even when a process it left behind holds its output', async () => {
    let exitedWithin: number | undefined;
    const registry = registryOf(
      defineCase({
        id: 'fixture/orphan',
        suite: 'fixture',
        title: 'the exit of a client whose leftover process holds its pipes is seen',
        requirements: ['CORE-LIFE-1'],
        scenario: { name: 'initialize' },
        async run(ctx) {
          const started = Date.now();
          await serve(ctx);
          await ctx.client!.exited;
          exitedWithin = Date.now() - started;
          ctx.check('CORE-LIFE-1', true, { message: 'served' });
        },
      }),
    );
    const result = await runConformance({ registry, target: target('orphan-output'), workers: 1, timeoutScale: 2 });
    expect(result.cases[0]!.verdict, result.cases[0]!.reason).toBe('PASS');
    // The leftover process lives 20 s; the case's limit (40 s here) would be reached first otherwise.
    expect(exitedWithin).toBeLessThan(15_000);
  });

  it('turns a case that returned without a check into a failed precondition when the client took it off its path, and ERROR otherwise', async () => {
    const silentCase = (id: string) =>
      defineCase({
        id,
        suite: 'fixture',
        title: 'returns without a check',
        requirements: ['CORE-LIFE-4'],
        scenario: { name: 'initialize' },
        async run(ctx) {
          const init = await ctx.next(isInitializeRequest);
          await answerInitialize(ctx.connection, init.message);
          await ctx.client!.exited;
        },
      });
    const crashed = await runConformance({ registry: registryOf(silentCase('fixture/crashed')), target: target('crash-after-initialize'), workers: 1, timeoutScale: 2 });
    const c = crashed.cases[0]!;
    expect(c.verdict, c.reason).toBe('FAIL');
    expect(c.checks[0]).toMatchObject({ requirement: 'CORE-LIFE-4', verdict: 'FAIL' });
    expect(c.checks[0]!.message).toMatch(/^precondition failed: .*the client exited with code 4; its stderr ends with: fixture: crashing on purpose/);

    const bug = defineCase({
      id: 'fixture/case-bug',
      suite: 'fixture',
      title: 'returns without a check while the client does nothing wrong',
      requirements: ['CORE-LIFE-4'],
      scenario: { name: 'initialize' },
      async run(ctx) {
        await ctx.next(isInitializeRequest);
      },
    });
    const erred = await runConformance({ registry: registryOf(bug), target: target('hang'), workers: 1, timeoutScale: 2 });
    expect(erred.cases[0]!.verdict).toBe('ERROR');
    expect(erred.cases[0]!.reason).toMatch(/returned without recording any check/);
  });
});
