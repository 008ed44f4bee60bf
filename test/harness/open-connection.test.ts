// ctx.openConnection(): a case opens a second connection to the same target; both connections are
// the target's (each initializes its own session), the second one's checks count for the case, and
// the runner closes it with the case. A client under test has no second connection to open.
import { describe, expect, it } from 'vitest';
import { defineCase } from '../../src/harness/case.js';
import { CaseRegistry } from '../../src/harness/registry.js';
import { runConformance } from '../../src/harness/runner.js';
import { mockServerTarget } from './targets.js';

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'harness-test', version: '1' } };

describe('ctx.openConnection()', () => {
  it('opens a second connection to the target, records its checks with the case and closes it after the case', async () => {
    const target = mockServerTarget();
    const registry = new CaseRegistry();
    registry.register(
      defineCase({
        id: 'harness/second-connection',
        suite: 'harness',
        title: 'two connections each initialize their own session',
        requirements: ['CORE-LIFE-12'],
        async run(ctx) {
          const other = await ctx.openConnection();
          expect(other.connection).not.toBe(ctx.connection);
          for (const c of [ctx, other]) {
            await c.request('CORE-LIFE-12', 'initialize', INIT);
            const pong = await c.request('CORE-LIFE-12', 'ping');
            c.check('CORE-LIFE-12', JSON.stringify(pong?.result) === '{}', { message: `ping on ${c === ctx ? 'the case' : 'the second'} connection`, actual: pong });
          }
        },
      }),
    );
    const before = target.opened.length;
    const result = await runConformance({ registry, target, workers: 1, timeoutScale: 1 });
    const run = result.cases[0]!;
    expect(run.verdict).toBe('PASS');
    expect(run.checks.map((check) => check.message)).toEqual(['ping on the case connection', 'ping on the second connection']);
    // Discovery's, the preflight's, the case's and the second one: all closed once the run ended.
    const opened = target.opened.slice(before);
    expect(opened.length).toBeGreaterThanOrEqual(2);
    expect(opened.every((connection) => connection.isClosed)).toBe(true);
  });
});
