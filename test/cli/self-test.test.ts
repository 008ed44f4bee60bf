// The `self-test` command (what `npm start` runs) in-process: it says what the user is seeing,
// runs the server suites against the embedded mock server per transport, writes reports per run,
// and ends with the counts line; a bad --transport exits 2 naming it.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { stdioMockCommandLine } from '../../src/cli/commands/self-test.js';
import { splitCommandLine } from '../../src/transport/stdio/index.js';
import { serverRegistry } from '../../suites/server/index.js';
import { recordingIo } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'self-test-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('self-test', () => {
  it('refuses an unknown run with one line naming --transport', async () => {
    const io = recordingIo();
    expect(await main(['self-test', '--transport', 'pigeon'], io)).toBe(2);
    expect(io.stderr).toMatch(/^error: --transport: "pigeon" is not one of wt, wt-json, http, stdio, stdio-process, wt-alt, http-alt, stdio-alt, client-wt, client-http\n$/);
    expect(io.stdout).toBe('');
  });

  it('refuses a --parallel that is not a positive integer, naming it', async () => {
    const io = recordingIo();
    expect(await main(['self-test', '--parallel', '0'], io)).toBe(2);
    expect(io.stderr).toMatch(/^error: --parallel: must be a positive integer, got 0\n$/);
    expect(io.stdout).toBe('');
  });

  it('from source, serves stdio through tsx and this CLI’s mock-server command', () => {
    const words = splitCommandLine(stdioMockCommandLine());
    expect(words[0]).toBe(process.execPath);
    expect(words).toContain('tsx');
    expect(words.slice(-3)).toEqual(['mock-server', '--transport', 'stdio']);
  });

  it('runs the selected suites on the mock server, writes reports per run, ends with the counts', async () => {
    const io = recordingIo();
    const suite = serverRegistry().suites()[0]!;
    const reports = join(dir, 'reports');
    const code = await main(['self-test', '--transport', 'http', '--suite', suite, '--no-self-check', '--reports', reports], io);
    expect(io.stderr).toBe('');
    expect(io.stdout).toMatch(/^self-test: every server conformance suite against the embedded reference mock server/);
    expect(io.stdout).toContain('To test your own server: mcp-flow-conformance server --url');
    expect(io.stdout).not.toContain('== self-check');
    expect(io.stdout).toContain('== http: Streamable HTTP');
    expect(io.stdout).toMatch(/\n== self-test summary ==\nhttp +\d+ passed, \d+ failed, \d+ skipped/);
    for (const file of ['junit.xml', 'report.json', 'report.html']) expect(existsSync(join(reports, 'http', file))).toBe(true);
    const last = io.stdout.trimEnd().split('\n').at(-1)!;
    const [, passed, failed] = /^(\d+) passed, (\d+) failed$/.exec(last) ?? [];
    expect(Number(passed)).toBeGreaterThan(0);
    // The exit code follows the run: 0 exactly when nothing failed.
    expect(code).toBe(Number(failed) === 0 ? 0 : 1);
  });

  it('serves the stdio mock in this process (a process per case with stdio-process), with the same verdicts', async () => {
    const id = 'lifecycle/ping-answered-empty';
    const verdicts: Record<string, string> = {};
    for (const run of ['stdio', 'stdio-process'] as const) {
      const io = recordingIo();
      const reports = join(dir, `reports-${run}`);
      expect(await main(['self-test', '--transport', run, '--case', id, '--no-self-check', '--reports', reports], io)).toBe(0);
      const banner = io.stdout.split('\n').find((line) => line.startsWith('testing '));
      expect(banner).toMatch(/ mock-server --transport stdio over stdio/);
      // The command line stays the target's name (rerun commands start it as a process) either way.
      expect(banner?.endsWith(' (served in this process, on pipes)')).toBe(run === 'stdio');
      const report = JSON.parse(readFileSync(join(reports, run, 'report.json'), 'utf8')) as { cases: { id: string; verdict: string; rerun: string }[] };
      const result = report.cases.find((c) => c.id === id)!;
      expect(result.rerun).toMatch(/^mcp-flow-conformance server --stdio '.* mock-server --transport stdio' --case lifecycle\/ping-answered-empty/);
      verdicts[run] = result.verdict;
    }
    expect(verdicts).toEqual({ stdio: 'PASS', 'stdio-process': 'PASS' });
  }, 120_000);

  it('runs the self-check first and shows only its failures and total', async () => {
    const io = recordingIo();
    const first = serverRegistry().list()[0]!;
    await main(['self-test', '--transport', 'http', '--case', first.id, '--reports', join(dir, 'with-check')], io);
    const lines = io.stdout.split('\n');
    const header = lines.findIndex((line) => line.startsWith('== self-check'));
    expect(header).toBeGreaterThan(0);
    expect(lines[header + 1]).toMatch(/^self-check: \d+ passed, 0 failed$/);
    expect(io.stdout).not.toContain('vectors/control.json');
  });
});

describe('self-test: client runs', () => {
  it('runs the client suites against the mock client driver and counts them in the summary', async () => {
    const io = recordingIo();
    const reports = join(dir, 'client-reports');
    const code = await main(['self-test', '--transport', 'client-http', '--suite', 'lifecycle', '--no-self-check', '--reports', reports, '--timeout-scale', '2'], io);
    expect(io.stdout).toContain('== client-http: client suites');
    expect(io.stdout).toMatch(/\nclient-http \d+ passed, 0 failed, \d+ skipped/);
    expect(io.stdout).not.toContain('did not run');
    expect(existsSync(join(reports, 'client-http', 'report.json'))).toBe(true);
    expect(code).toBe(0);
  }, 240_000);
});
