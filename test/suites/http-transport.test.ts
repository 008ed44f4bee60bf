// Suite `http-transport` against the mock server: the correct mock (both readings) refuses a
// foreign Origin with 403, the `origin-not-validated` fault is caught, and the case does not apply
// to the other transports.
import { describe, expect, it } from 'vitest';
import { cases } from '../../suites/server/core/http-transport.js';
import { runOnMock } from './support.js';

const LIVENESS = { timeoutScale: 2 } as const;

describe('http-transport suite on the mock server', () => {
  it.each(['recommended', 'alternate'] as const)('the correct mock (%s readings) passes', async (readings) => {
    const run = await runOnMock(cases, { transport: 'http', server: { readings }, run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(run.verdicts['http-transport/foreign-origin-refused']).toBe('PASS');
  });

  it('origin-not-validated (CORE-HTTP-1) fails both probes: the initialize and the ping are served', async () => {
    const run = await runOnMock(cases, { transport: 'http', faults: ['origin-not-validated'], run: LIVENESS });
    const result = run.get('http-transport/foreign-origin-refused');
    expect(result.verdict).toBe('FAIL');
    expect(result.checks.filter((c) => c.requirement === 'CORE-HTTP-1' && c.verdict === 'FAIL')).toHaveLength(2);
  });

  it('does not apply over WebTransport (WT-SEC-1 judges the CONNECT there)', async () => {
    const run = await runOnMock(cases, { transport: 'wt', run: LIVENESS });
    expect(run.verdicts['http-transport/foreign-origin-refused']).toBe('NOT_APPLICABLE');
  });
});
