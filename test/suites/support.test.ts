// The suites' shared support against the mock server on every transport: openSession works the
// way each transport expects, and discovery finds the interactive tools.
import { describe, expect, it } from 'vitest';
import { defineCase } from '../../src/harness/index.js';
import { checkErrorCode, interactiveTool, openSession, requiresInteractiveTool } from '../../suites/support/session.js';
import { runOnMock, type SuiteTransport } from './support.js';

const pingInSession = defineCase({
  id: 'support/ping-in-session',
  suite: 'support',
  title: 'ping answered with {} in an opened session',
  requirements: ['CORE-LIFE-12'],
  async run(ctx) {
    await openSession(ctx);
    const answer = await ctx.request('CORE-LIFE-12', 'ping');
    if (answer) ctx.check('CORE-LIFE-12', JSON.stringify(answer.result) === '{}', { message: 'ping result is {}', actual: answer.result });
  },
});

const unknownMethod = defineCase({
  id: 'support/unknown-method',
  suite: 'support',
  title: 'an unknown method is -32601',
  requirements: ['CORE-RPC-10'],
  async run(ctx) {
    await openSession(ctx);
    checkErrorCode(ctx, 'CORE-RPC-10', await ctx.request('CORE-RPC-10', 'no/such-method'), -32601, 'an unknown method');
  },
});

const startsInteraction = defineCase({
  id: 'support/starts-interaction',
  suite: 'support',
  title: 'an interactive tool found in discovery starts',
  requirements: ['FLOW-START-2'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const answer = await ctx.request('FLOW-START-2', 'interaction.start', { toolName: interactiveTool(ctx) });
    if (answer) ctx.check('FLOW-START-2', typeof (answer.result as { sessionId?: unknown } | undefined)?.sessionId === 'string', { message: 'a sessionId', actual: answer });
  },
});

const cases = [pingInSession, unknownMethod, startsInteraction];

describe('suites support', () => {
  for (const transport of ['wt', 'http', 'stdio'] as SuiteTransport[]) {
    it(`opens sessions the ${transport} way`, async () => {
      const run = await runOnMock(cases, { transport });
      expect(run.problems).toEqual([]);
      expect(run.verdicts).toEqual({ 'support/ping-in-session': 'PASS', 'support/unknown-method': 'PASS', 'support/starts-interaction': 'PASS' });
    });
  }
});
