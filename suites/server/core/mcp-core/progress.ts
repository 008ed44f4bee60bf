// mcp-core: progress (CORE-PROG-2..4) seen while every listed tool runs with a progressToken of its
// own; a target whose tools send no progress gets INFO, not a verdict.
import { defineCase, requiresCapability } from '../../../../src/harness/index.js';
import { openSession } from '../../../support/session.js';
import { notificationsOf, reportSweep, sweepTools } from '../../../support/core.js';

const SUITE = 'mcp-core';

const progress = defineCase({
  id: `${SUITE}/progress-notifications`,
  suite: SUITE,
  title: 'notifications/progress name a token of a request still in progress, increase, carry a numeric total, and stop at the response',
  requirements: ['CORE-PROG-2', 'CORE-PROG-3', 'CORE-PROG-4'],
  applies: requiresCapability('tools'),
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    // Progress takes time (a tool may report it seconds apart): the sweep follows every call to its answer or the deadline.
    const sweep = await sweepTools(ctx, { leaveQuietCalls: false });
    reportSweep(ctx, 'CORE-PROG-2', sweep);
    const notes = notificationsOf(sweep.received, 'notifications/progress');
    if (notes.length === 0) {
      for (const requirement of ['CORE-PROG-3', 'CORE-PROG-4']) ctx.info(requirement, 'no listed tool sent notifications/progress');
      return;
    }
    const byToken = new Map(sweep.calls.map((c) => [c.progressToken, c]));
    const foreign = notes.filter((n) => !byToken.has(n.params.progressToken as string));
    ctx.check('CORE-PROG-2', foreign.length === 0, {
      message: `the ${notes.length} progress notification(s) name tokens the client supplied`,
      expected: [...byToken.keys()],
      ...(foreign.length ? { actual: foreign.map((n) => n.params) } : {}),
    });
    const late = notes.filter((n) => {
      const call = byToken.get(n.params.progressToken as string);
      return call?.answeredAt !== undefined && n.index > call.answeredAt;
    });
    ctx.check('CORE-PROG-4', late.length === 0, {
      message: 'no progress notification arrives after the response to its request',
      ...(late.length ? { actual: late.map((n) => n.params) } : {}),
    });
    for (const call of sweep.calls) {
      const own = notes.filter((n) => n.params.progressToken === call.progressToken).map((n) => n.params);
      if (own.length === 0) continue;
      const values = own.map((p) => p.progress);
      const increasing = values.every((v, i) => typeof v === 'number' && (i === 0 || v > (values[i - 1] as number)));
      const totals = own.every((p) => !('total' in p) || typeof p.total === 'number');
      ctx.check('CORE-PROG-3', increasing && totals, {
        message: `the progress of ${call.tool.name} increases with every notification and its total is a number`,
        actual: own.map((p) => ({ progress: p.progress, ...('total' in p ? { total: p.total } : {}) })),
      });
    }
  },
});

export const cases = [progress];
