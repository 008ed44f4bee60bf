// The `server` command's config file: --config FILE, or mcp-flow-conformance.json in the working
// directory; the command line wins; paths are relative to the file; a bad field is one line naming it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { parseJsonReport } from '../../src/report/index.js';
import { recordingIo } from '../support/cli.js';

const CASES = ['mcp-core/results-are-objects', 'mcp-core/tools-list'];

describe('server --config / mcp-flow-conformance.json', () => {
  let server: RunningMockServer;
  let dir: string;
  beforeAll(async () => {
    server = await startMockServer({ transport: 'http', faults: ['ping-non-empty-result'] });
    dir = mkdtempSync(join(tmpdir(), 'cli-config-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(cwd: string, ...args: string[]) {
    const io = Object.assign(recordingIo(), { cwd });
    const code = await main(['server', ...args], io);
    return { code, stdout: io.stdout, stderr: io.stderr };
  }

  function project(name: string, config: unknown, file = 'mcp-flow-conformance.json'): string {
    const folder = join(dir, name);
    mkdirSync(join(folder, 'ci'), { recursive: true });
    writeFileSync(join(folder, file), typeof config === 'string' ? config : JSON.stringify(config));
    return folder;
  }

  it('mcp-flow-conformance.json in the working directory: url, headers, cases, exclude, baseline and reports, paths relative to it', async () => {
    const folder = project('found', {
      url: server.url,
      headers: { 'X-Team': 'conformance' },
      suites: ['mcp-core'],
      cases: [...CASES, 'mcp-core/unknown-method-error-shape'],
      exclude: 'mcp-core/unknown-method-error-shape',
      baseline: 'ci/baseline.json',
      reports: 'out',
    });
    writeFileSync(join(folder, 'ci', 'baseline.json'), JSON.stringify({ version: 1, expectedFailures: { 'mcp-core/results-are-objects': 'ping answers a non-empty result' } }));
    const { code, stdout, stderr } = await run(folder);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toBe(`testing ${server.url} over http (settings from mcp-flow-conformance.json)`);
    const report = parseJsonReport(readFileSync(join(folder, 'out', 'report.json'), 'utf8'));
    expect(report.cases.map((c) => c.id)).toEqual(CASES);
    expect(report.cases[0]).toMatchObject({ verdict: 'FAIL', baseline: 'expected-failure', baselineReason: 'ping answers a non-empty result' });
    // The headers went with every request.
    expect(JSON.stringify(report.cases[0]!.transcript)).toContain('"X-Team":"conformance"');
  });

  it('--config FILE; the command line wins over it, and its --url replaces the file\'s target', async () => {
    const folder = project('given', { stdio: 'no-such-command-anywhere', cases: CASES, strict: true, reports: { json: 'given.json' } }, 'conformance.json');
    const { code, stderr } = await run(dir, '--config', join(folder, 'conformance.json'), '--url', server.url, '--case', 'mcp-core/tools-list');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = parseJsonReport(readFileSync(join(folder, 'given.json'), 'utf8'));
    expect(report.cases.map((c) => c.id)).toEqual(['mcp-core/tools-list']);
    expect(report.options).toMatchObject({ strict: true });
    // A report option on the command line replaces the file's reports.
    const other = join(dir, 'cli-report.json');
    await run(dir, '--config', join(folder, 'conformance.json'), '--url', server.url, '--case', 'mcp-core/tools-list', '--json', other);
    expect(existsSync(other)).toBe(true);
  });

  const bad: [string, unknown, string][] = [
    ['an unknown field', { url: 'http://a/mcp', suite: ['x'] }, 'error: mcp-flow-conformance.json: suite: unknown field (did you mean suites?); known: '],
    ['headers that are not an object', { url: 'http://a/mcp', headers: ['Authorization: x'] }, 'error: mcp-flow-conformance.json: headers: must be an object of header names to string values'],
    ['a header value that is not a string', { url: 'http://a/mcp', headers: { 'X-N': 1 } }, 'error: mcp-flow-conformance.json: headers.X-N: must be a string'],
    ['a bad report format', { url: 'http://a/mcp', reports: { xml: 'r.xml' } }, 'error: mcp-flow-conformance.json: reports.xml: unknown report format (junit, json, html or markdown)'],
    ['strict that is not a boolean', { url: 'http://a/mcp', strict: 'yes' }, 'error: mcp-flow-conformance.json: strict: must be true or false'],
    ['a value the option refuses', { url: 'http://a/mcp', workers: 0 }, 'error: --workers: must be an integer from 1 to 256, got 0'],
    ['not JSON', '{ url: ', 'error: mcp-flow-conformance.json: not valid JSON ('],
    ['not an object', '[1]', 'error: mcp-flow-conformance.json: the config must be a JSON object'],
  ];
  for (const [what, config, message] of bad) {
    it(`${what}: exit 2, one line naming the file and the field`, async () => {
      const folder = project(`bad-${what.replaceAll(' ', '-')}`, config);
      const { code, stdout, stderr } = await run(folder);
      expect(code).toBe(2);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr.startsWith(message), stderr).toBe(true);
      expect(stdout).toBe('');
    });
  }

  it('--config naming a file that does not exist: exit 2 naming it', async () => {
    const { code, stderr } = await run(dir, '--config', 'missing.json');
    expect(code).toBe(2);
    expect(stderr).toBe('error: missing.json: cannot read the config file (ENOENT)\n');
  });
});
