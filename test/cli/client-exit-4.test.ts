// The `client` command exits soon after its summary: a client that leaves a process holding its
// output (one suite: its session ends as early-close's, which client-exit-1 runs with every
// suite), one that sends $/shutdown and closes at once (issue 18's lifecycle run), and the mock
// client's reference driver on shutdown/streams-drain-before-close (which kept the command
// running 5 s per scaled second of its exit wait).
import { describe, expect, it } from 'vitest';
import { EXIT_BOUND_MS, exitsAfterSummary, misbehavingClient, mockClientDriver, runClientCli } from './client-exit.js';

describe('client command: exit after the report (orphans, $/shutdown, drain)', () => {
  exitsAfterSummary('orphan-output', 'wt', 'lifecycle');

  it('exits soon after its summary against a client that sends $/shutdown and closes at once (--suite lifecycle)', async () => {
    const run = await runClientCli(['--suite', 'lifecycle'], await misbehavingClient(), { FIXTURE_MODE: 'shutdown-close' });
    expect(run.exitDelayMs, run.stdout + run.stderr).toBeLessThan(EXIT_BOUND_MS);
    expect(run.summary).toMatch(/ 0 timed out, 0 errors/);
  }, 120_000);

  it('exits soon after its summary against the mock client on shutdown/streams-drain-before-close', async () => {
    const run = await runClientCli(['--case', 'shutdown/streams-drain-before-close', '--timeout-scale', '3'], mockClientDriver());
    expect(run.exitDelayMs, run.stdout + run.stderr).toBeLessThan(EXIT_BOUND_MS);
    expect(run.summary).toMatch(/^1 passed, 0 failed/);
    expect(run.code).toBe(0);
  }, 120_000);
});
