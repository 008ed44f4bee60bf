// The runner against hostile stdio servers (issue 17): every run ends by itself, every selected
// case gets a verdict (never ERROR), exit 1, reports that parse and validate, a peak RSS under a
// generous ceiling (bench/rss.ts measures it for full runs), and nothing a target started outlives
// the run (item 7: the crashing target leaves a child behind outside its process group).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { hostileStdioCommand, isAlive, runRunner, type StdioMode } from './hostile.js';
import { readReports } from './reports.js';

const MB = 1024 * 1024;
/** A run that has not ended after this is killed (and the test fails): liveness, not speed. */
const RUN_LIMIT_MS = 150_000;
const CASES = ['lifecycle/ping-answered-empty'];

const scratch = mkdtempSync(join(tmpdir(), 'reliability-stdio-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TARGETS: { mode: StdioMode; rssCeiling: number }[] = [
  { mode: 'silent', rssCeiling: 400 * MB },
  { mode: 'stdout-flood', rssCeiling: 400 * MB },
  { mode: 'endless-line', rssCeiling: 400 * MB },
  { mode: 'crash-on-second', rssCeiling: 400 * MB },
];

describe('the runner against hostile stdio servers', () => {
  for (const { mode, rssCeiling } of TARGETS) {
    it.concurrent(`${mode}: ends, a verdict per case, exit 1, well-formed reports, bounded RSS, nothing left running`, { timeout: RUN_LIMIT_MS + 30_000 }, async ({ expect }) => {
      const reports = join(scratch, mode);
      const pidFile = join(scratch, `${mode}.pids`);
      writeFileSync(pidFile, '');
      const outcome = await runRunner(['--stdio', hostileStdioCommand(mode), ...CASES.flatMap((id) => ['--case', id]), '--timeout-scale', '0.25', '--reports', reports], {
        limitMs: RUN_LIMIT_MS,
        env: { HOSTILE_PID_FILE: pidFile },
      });
      expect(outcome.signal, `${mode}: the run did not end by itself\n${outcome.stdout}\n${outcome.stderr}`).toBeNull();
      expect(outcome.code, outcome.stderr).toBe(1);
      const { run, jsonBytes, junitErrors } = await readReports(reports);
      expect(run.cases.map((c) => c.id)).toEqual(CASES);
      for (const result of run.cases) expect(['FAIL', 'TIMEOUT'], `${result.id}: ${result.verdict} ${result.reason ?? ''}`).toContain(result.verdict);
      expect(junitErrors).toEqual([]);
      expect(jsonBytes).toBeLessThan(2 * MB);
      expect(outcome.peakRss).toBeLessThan(rssCeiling);
      // What a target started outside its process group (crash-on-second) ended with it.
      const started = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
      await expect.poll(() => started.filter(isAlive), { timeout: 10_000 }).toEqual([]);
      if (mode === 'crash-on-second') expect(started.length).toBeGreaterThan(0);
    });
  }
});
