// Peak memory of the runner against hostile targets (issue 17): for each hostile target of the
// reliability suite (test/reliability/hostile.ts: silent, garbage, mid-close, endless SSE, SSE flood,
// a 1 GiB body, 60 MB answers, stdout flood, endless line, crash on second), one `server` run in a
// child process of its own, every server case unless filtered, and its peak resident set size
// (process.resourceUsage().maxRSS at exit), exit code, wall time and JSON report size. The runs are
// one at a time, so the figures do not disturb each other.
// Run: npx tsx bench/rss.ts [--target <name part>]... [--timeout-scale 1] [--workers 4] [-- <more server options, e.g. --suite lifecycle>]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOSTILE_TARGETS, hostileStdioCommand, runRunner, startHostileHttp, type HttpMode, type StdioMode } from '../test/reliability/hostile.js';

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const own = dashes < 0 ? argv : argv.slice(0, dashes);
const passed = dashes < 0 ? [] : argv.slice(dashes + 1);
function values(name: string): string[] {
  return own.flatMap((arg, at) => (arg === `--${name}` && own[at + 1] !== undefined ? [own[at + 1]!] : []));
}
const names = values('target');
const timeoutScale = values('timeout-scale').at(-1) ?? '1';
const workers = values('workers').at(-1) ?? '4';
if (!(Number(timeoutScale) > 0) || !(Number(workers) >= 1)) {
  console.error('--timeout-scale needs a positive number and --workers a positive integer');
  process.exit(2);
}
const targets = HOSTILE_TARGETS.filter((target) => names.length === 0 || names.some((name) => target.name.includes(name)));
if (targets.length === 0) {
  console.error(`no hostile target matches ${names.map((name) => JSON.stringify(name)).join(', ')}; known: ${HOSTILE_TARGETS.map((target) => target.name).join(', ')}`);
  process.exit(2);
}

/** A run may take long (every case waits its deadline against a silent target), but not for ever. */
const RUN_LIMIT_MS = 60 * 60 * 1000;
const MB = 1024 * 1024;
const scratch = mkdtempSync(join(tmpdir(), 'bench-rss-'));
const rows: string[][] = [['target', 'exit', 'cases', 'wall', 'peak RSS', 'JSON report']];
try {
  for (const target of targets) {
    const reports = join(scratch, target.name.replaceAll(' ', '-'));
    const server = target.transport === 'http' ? await startHostileHttp(target.mode as HttpMode) : undefined;
    const where = server ? ['--url', server.url] : ['--stdio', hostileStdioCommand(target.mode as StdioMode)];
    try {
      process.stderr.write(`${target.name}...\n`);
      const outcome = await runRunner([...where, '--timeout-scale', timeoutScale, '--workers', workers, '--reports', reports, ...passed], { limitMs: RUN_LIMIT_MS });
      const cases = /(\d+) cases? in /.exec(outcome.stdout)?.[1] ?? '?';
      let json = '-';
      try {
        json = `${(statSync(join(reports, 'report.json')).size / MB).toFixed(2)} MB`;
      } catch {
        // no report: the run died (the exit column says how)
      }
      rows.push([
        target.name,
        outcome.signal ?? String(outcome.code),
        cases,
        `${(outcome.ms / 1000).toFixed(1)} s`,
        outcome.peakRss === undefined ? '-' : `${Math.round(outcome.peakRss / MB)} MB`,
        json,
      ]);
    } finally {
      server?.stop();
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
for (const row of rows) console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '));
