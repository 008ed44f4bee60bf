// The vitest helper (src/vitest.ts) as a user meets it: a separate vitest process runs the example
// (examples/vitest/) and a fixture spec that start a mock server and call defineConformanceTests,
// and its JSON report is read: one test per case under a describe per suite, failures carrying the
// case's explanation, WARN passing with a warning unless strict, a baseline's expected failure passing.
// The package's names resolve to dist/ (fixtures/vitest.config.ts), built here when not current.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverRegistry } from '../../suites/server/index.js';
import { ensureDist } from '../support/build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = 'test/integration/fixtures/vitest.config.ts';
const EXAMPLE = 'examples/vitest/mock-server.conformance.test.ts';
const FIXTURE = 'test/integration/fixtures/mock-conformance.spec.ts';
/** A nested vitest run waits on its own cases; a generous liveness bound, never a timing check. */
const RUN_LIMIT_MS = 240_000;

interface Assertion {
  ancestorTitles: string[];
  title: string;
  status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
  failureMessages: string[];
}

interface VitestRun {
  code: number | null;
  output: string;
  tests: Assertion[];
  byStatus(status: Assertion['status'] | 'skipped'): string[];
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-flow-vitest-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

/** Runs vitest on one file in a child process (without this run's VITEST_* variables) and reads its JSON report. */
async function vitest(file: string, env: Record<string, string> = {}): Promise<VitestRun> {
  const report = join(dir, `report-${++runs}.json`);
  const childEnv: NodeJS.ProcessEnv = { NO_COLOR: '1', FORCE_COLOR: '0', ...env };
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(VITEST|TINYPOOL|NODE_ENV$)/.test(name) && childEnv[name] === undefined) childEnv[name] = value;
  }
  const args = [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', CONFIG, file, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  let tests: Assertion[];
  try {
    tests = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: { assertionResults: Assertion[] }[] }).testResults.flatMap((r) => r.assertionResults);
  } catch (error) {
    throw new Error(`vitest wrote no readable JSON report (exit ${code}):\n${output}`, { cause: error });
  }
  return {
    code,
    output,
    tests,
    byStatus: (status) => tests.filter((t) => t.status === status || (status === 'skipped' && t.status === 'pending')).map((t) => t.title),
  };
}

const mcpCore = serverRegistry()
  .list()
  .filter((c) => c.suite === 'mcp-core')
  .map((c) => c.id);
const BROKEN = 'mcp-core/results-are-objects';
const CASES = [BROKEN, 'mcp-core/unknown-method-error-shape', 'mcp-core/tools-list'];
const WARNED = 'lifecycle/second-initialize-refused';

describe('defineConformanceTests in a vitest run of its own', () => {
  beforeAll(() => void ensureDist(), 240_000);

  it('the example against the correct mock server: a passing test per mcp-core case, in a describe per suite', { timeout: RUN_LIMIT_MS }, async () => {
    const run = await vitest(EXAMPLE);
    expect(run.code, run.output).toBe(0);
    expect(run.tests.map((t) => t.title).sort()).toEqual([...mcpCore].sort());
    expect(run.byStatus('passed')).toHaveLength(mcpCore.length);
    for (const test of run.tests) expect(test.ancestorTitles).toEqual(['mock server conformance', 'mcp-core']);
  });

  it('a fault: the case it breaks fails with the reason, checks, transcript and rerun command; the cases left out are skipped', { timeout: RUN_LIMIT_MS }, async () => {
    const run = await vitest(FIXTURE, { FIXTURE_FAULTS: 'ping-non-empty-result', FIXTURE_SUITES: 'mcp-core', FIXTURE_CASES: CASES.join(',') });
    expect(run.code, run.output).toBe(1);
    expect(run.byStatus('failed')).toEqual([BROKEN]);
    expect(run.byStatus('passed').sort()).toEqual(CASES.filter((id) => id !== BROKEN).sort());
    // Every other mcp-core case is registered as skipped, saying which filter left it out.
    const skipped = run.byStatus('skipped');
    expect(skipped).toHaveLength(mcpCore.length - CASES.length);
    for (const title of skipped) expect(title).toMatch(/^mcp-core\/\S+ \(ID matches no --case glob/);
    const message = run.tests.find((t) => t.title === BROKEN)!.failureMessages.join('\n');
    expect(message).toContain(`FAIL ${BROKEN}`);
    expect(message).toContain('reason: ping is answered with {}');
    expect(message).toContain('FAIL CORE-RPC-14 (MUST): ping is answered with {}');
    expect(message).toMatch(/transcript( \(last \d+ of \d+\))?:\n\s+#\d+ [→←•] /);
    expect(message).toContain('"pong":true');
    expect(message).toMatch(new RegExp(`rerun: mcp-flow-conformance server --url http://127\\.0\\.0\\.1:\\d+/mcp --case ${BROKEN}`));
  });

  it('a broken SHOULD: the test passes with a console warning, and fails under strict', { timeout: RUN_LIMIT_MS }, async () => {
    const env = { FIXTURE_FAULTS: 'second-initialize-accepted', FIXTURE_CASES: WARNED };
    const lenient = await vitest(FIXTURE, env);
    expect(lenient.code, lenient.output).toBe(0);
    expect(lenient.byStatus('passed')).toEqual([WARNED]);
    expect(lenient.output).toContain(`! WARN ${WARNED}`);
    const strict = await vitest(FIXTURE, { ...env, FIXTURE_STRICT: '1' });
    expect(strict.code, strict.output).toBe(1);
    expect(strict.byStatus('failed')).toEqual([WARNED]);
    expect(strict.tests.find((t) => t.title === WARNED)!.failureMessages.join('\n')).toContain('(a SHOULD, failed under --strict)');
  });

  it('a baseline listing the broken case: its test passes as an expected failure', { timeout: RUN_LIMIT_MS }, async () => {
    const baseline = join(dir, 'baseline.json');
    writeFileSync(baseline, JSON.stringify({ version: 1, expectedFailures: { [BROKEN]: 'ping answers a non-empty result' } }));
    const run = await vitest(FIXTURE, { FIXTURE_FAULTS: 'ping-non-empty-result', FIXTURE_CASES: BROKEN, FIXTURE_BASELINE: baseline });
    expect(run.code, run.output).toBe(0);
    expect(run.byStatus('passed')).toEqual([BROKEN]);
    expect(run.output).toContain(`${BROKEN}: FAIL, an expected failure (listed in the baseline)`);
  });

  it('a baseline entry whose case passes: a warning, and a failed test with failOnStale', { timeout: RUN_LIMIT_MS }, async () => {
    const baseline = join(dir, 'stale-baseline.json');
    writeFileSync(baseline, JSON.stringify({ version: 1, expectedFailures: { [BROKEN]: 'was broken' } }));
    const env = { FIXTURE_CASES: BROKEN, FIXTURE_BASELINE: baseline };
    const lenient = await vitest(FIXTURE, env);
    expect(lenient.code, lenient.output).toBe(0);
    expect(lenient.output).toContain(`${BROKEN} is listed in the baseline but now`);
    const failing = await vitest(FIXTURE, { ...env, FIXTURE_FAIL_ON_STALE: '1' });
    expect(failing.code, failing.output).toBe(1);
    expect(failing.tests.find((t) => t.title === BROKEN)!.failureMessages.join('\n')).toContain('remove it from the baseline (failOnStale)');
  });
});
