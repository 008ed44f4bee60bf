// The runner against hostile Streamable HTTP servers (issue 17): every run ends by itself, every
// selected case gets a verdict (never ERROR: what a target does is judged, not a harness failure),
// exit 1, reports that parse and validate, a small JSON report, and a peak RSS under a generous
// ceiling (bench/rss.ts measures it for full runs). A few cases per target, limits scaled down.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { runRunner, startHostileHttp, type HttpMode } from './hostile.js';
import { readReports } from './reports.js';

const MB = 1024 * 1024;
/** A run that has not ended after this is killed (and the test fails): liveness, not speed. */
const RUN_LIMIT_MS = 150_000;
/** A case that sends requests the normal way and one that reads raw HTTP answers (the chunk reader of issue 17 item 5). */
const CASES = ['lifecycle/ping-answered-empty', 'http-transport/foreign-origin-refused'];

const scratch = mkdtempSync(join(tmpdir(), 'reliability-http-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TARGETS: { mode: HttpMode; rssCeiling: number; timeoutScale: string }[] = [
  { mode: 'garbage', rssCeiling: 400 * MB, timeoutScale: '0.25' },
  { mode: 'mid-close', rssCeiling: 400 * MB, timeoutScale: '0.25' },
  { mode: 'endless-sse', rssCeiling: 400 * MB, timeoutScale: '0.25' },
  { mode: 'sse-flood', rssCeiling: 400 * MB, timeoutScale: '0.25' },
  { mode: 'huge-body', rssCeiling: 400 * MB, timeoutScale: '0.25' },
  // Unscaled: each 60 MB answer must arrive (and be judged) within the case's limit. Two cases at
  // once, each answer held as its body, its text and its parsed value while it is decoded, and its
  // JSON text once more for the SHA-256 a report keeps of it: 890-960 MB measured on a quiet
  // machine (bench/rss.ts), more while a loaded machine's collector lags.
  { mode: 'large-answers', rssCeiling: 1280 * MB, timeoutScale: '1' },
];

describe('the runner against hostile Streamable HTTP servers', () => {
  for (const { mode, rssCeiling, timeoutScale } of TARGETS) {
    it.concurrent(`${mode}: ends, a verdict per case, exit 1, well-formed small reports, bounded RSS`, { timeout: RUN_LIMIT_MS + 30_000 }, async ({ expect }) => {
      const reports = join(scratch, mode);
      const server = await startHostileHttp(mode);
      try {
        const outcome = await runRunner(['--url', server.url, ...CASES.flatMap((id) => ['--case', id]), '--workers', '2', '--timeout-scale', timeoutScale, '--reports', reports], {
          limitMs: RUN_LIMIT_MS,
        });
        expect(outcome.signal, `${mode}: the run did not end by itself\n${outcome.stdout}\n${outcome.stderr}`).toBeNull();
        expect(outcome.code, outcome.stderr).toBe(1);
        const { run, jsonBytes, junitErrors } = await readReports(reports);
        expect(run.cases.map((c) => c.id).sort()).toEqual([...CASES].sort());
        for (const result of run.cases) expect(['FAIL', 'TIMEOUT'], `${result.id}: ${result.verdict} ${result.reason ?? ''}`).toContain(result.verdict);
        expect(junitErrors).toEqual([]);
        expect(jsonBytes).toBeLessThan(2 * MB);
        expect(outcome.peakRss).toBeLessThan(rssCeiling);
      } finally {
        server.stop();
      }
    });
  }
});
