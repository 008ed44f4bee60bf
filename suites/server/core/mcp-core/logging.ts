// mcp-core: logging (CORE-LOG): logging/setLevel with every RFC 5424 level and with an unknown one,
// and the notifications/message the target sends while its tools run (shape, threshold, capability).
import { defineCase, requiresCapability, type CaseContext } from '../../../../src/harness/index.js';
import { isRecord } from '../../../../src/wire/index.js';
import { checkErrorCode, openSession, setupResult } from '../../../support/session.js';
import { notificationsOf, reportSweep, sweepTools } from '../../../support/core.js';

const SUITE = 'mcp-core';
/** The eight RFC 5424 levels, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
const needsLogging = requiresCapability('logging');

const setEachLevel = defineCase({
  id: `${SUITE}/logging-set-level-each`,
  suite: SUITE,
  title: 'logging/setLevel is answered with {} for each of the eight RFC 5424 levels',
  requirements: ['CORE-LOG-1', 'CORE-RPC-14'],
  applies: needsLogging,
  async run(ctx) {
    await openSession(ctx);
    for (const level of LOG_LEVELS) {
      const answer = await ctx.request('CORE-LOG-1', 'logging/setLevel', { level });
      if (!answer) continue;
      if (ctx.check('CORE-LOG-1', isRecord(answer.result), { message: `logging/setLevel ${level} is accepted`, expected: { result: {} }, actual: answer.error ?? answer.result })) {
        // An empty result; members in it (`_meta`, extensions) are notes, not failures (rule 4).
        const members = Object.keys(answer.result as object);
        if (members.length > 0) ctx.info('CORE-RPC-14', `the logging/setLevel ${level} result carries ${members.join(', ')}`, answer.result);
        else ctx.check('CORE-RPC-14', true, { message: `logging/setLevel ${level} is answered with an empty result` });
      }
    }
  },
});

const setUnknownLevel = defineCase({
  id: `${SUITE}/logging-set-level-unknown`,
  suite: SUITE,
  title: 'logging/setLevel with a level outside the eight is answered with -32602 Invalid params',
  requirements: ['CORE-LOG-2'],
  applies: needsLogging,
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    for (const level of ['verbose', 'ERROR']) {
      checkErrorCode(ctx, 'CORE-LOG-2', await ctx.request('CORE-LOG-2', 'logging/setLevel', { level }), -32602, `logging/setLevel ${JSON.stringify(level)}`);
    }
  },
});

/** The notifications/message of a sweep, with the sweep reported as INFO under `requirement`. */
async function logsWhileToolsRun(ctx: CaseContext, requirement: string) {
  const sweep = await sweepTools(ctx);
  reportSweep(ctx, requirement, sweep);
  return notificationsOf(sweep.received, 'notifications/message').map((n) => n.params);
}

const messages = defineCase({
  id: `${SUITE}/log-messages-well-formed`,
  suite: SUITE,
  title: 'notifications/message has one of the eight levels, data and an optional string logger, and comes only from a server that declared logging',
  requirements: ['CORE-LOG-4', 'CORE-LOG-5'],
  applies: requiresCapability('tools'),
  timeLimitMs: 15_000,
  async run(ctx) {
    const init = await openSession(ctx);
    const logs = await logsWhileToolsRun(ctx, 'CORE-LOG-4');
    const declared = isRecord(init.capabilities) && init.capabilities.logging !== undefined;
    if (logs.length === 0) {
      ctx.info('CORE-LOG-5', 'the target sent no notifications/message while its tools ran');
      return;
    }
    ctx.check('CORE-LOG-5', declared, { message: `the server that sent ${logs.length} notifications/message declared the logging capability`, expected: { capabilities: { logging: {} } }, actual: init.capabilities });
    const bad = logs.filter((p) => !(LOG_LEVELS as readonly unknown[]).includes(p.level) || !('data' in p) || ('logger' in p && typeof p.logger !== 'string'));
    ctx.check('CORE-LOG-4', bad.length === 0, { message: `each of the ${logs.length} notifications/message has a valid level, data and an optional string logger`, ...(bad.length ? { actual: bad } : {}) });
  },
});

const threshold = defineCase({
  id: `${SUITE}/logging-threshold`,
  suite: SUITE,
  title: 'after logging/setLevel error, notifications/message comes only at error or more severe',
  requirements: ['CORE-LOG-3'],
  applies: (discovery) => (discovery.capabilities?.logging === undefined ? 'the target did not declare the "logging" capability' : requiresCapability('tools')(discovery)),
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    await setupResult(ctx, 'logging/setLevel', { level: 'error' }, 'CORE-LOG-1');
    const logs = await logsWhileToolsRun(ctx, 'CORE-LOG-3');
    const floor = LOG_LEVELS.indexOf('error');
    const below = logs.filter((p) => LOG_LEVELS.indexOf(p.level as (typeof LOG_LEVELS)[number]) < floor);
    ctx.check('CORE-LOG-3', below.length === 0, {
      message: `none of the ${logs.length} notifications/message after setLevel error is less severe than error`,
      ...(below.length ? { actual: below } : {}),
    });
  },
});

export const cases = [setEachLevel, setUnknownLevel, messages, threshold];
