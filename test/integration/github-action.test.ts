// action.yml, the composite GitHub Action, executed the way a runner executes it: its inputs as
// the runner sets them (each `with` value, else the default), every `run` step through bash with
// -eo pipefail, GITHUB_OUTPUT read back between steps, GITHUB_STEP_SUMMARY collected, the upload
// step given to a stand-in that checks the files it would upload. Against the mock server with a
// fault: the job summary has the counts and the failing case with its rerun command, the reports
// are there to upload, the action fails with exit code 1; with a baseline it passes; an
// unreachable server still gets a summary and its reports, and exit code 2.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../src/index.js';
import { ensureDist, ROOT } from '../support/build.js';
import { parseYaml, runCompositeAction, type RunnerEnvironment } from '../support/github-actions.js';
import { unreachableUrl } from '../support/unreachable.js';

const ACTION = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Record<string, unknown>;
const CASES = 'mcp-core/results-are-objects,mcp-core/unknown-method-error-shape,mcp-core/tools-list';

/** Runs the action in a fresh workspace; what the upload step would have uploaded is listed. */
export async function runAction(inputs: Record<string, string>, workspace = mkdtempSync(join(tmpdir(), 'action-workspace-'))) {
  const summaryFile = join(workspace, '.job-summary.md');
  writeFileSync(summaryFile, '');
  const uploaded: { name: string; files: string[] }[] = [];
  const environment: RunnerEnvironment & { actionPath: string } = {
    workspace,
    actionPath: ROOT,
    summaryFile,
    env: { RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'runner-temp-')) },
    uses: {
      'actions/upload-artifact': async (withInputs) => {
        const path = resolve(workspace, withInputs['path']!);
        uploaded.push({ name: withInputs['name']!, files: existsSync(path) ? readdirSync(path).sort() : [] });
      },
    },
  };
  const result = await runCompositeAction(ACTION, inputs, environment);
  return { ...result, workspace, summary: readFileSync(summaryFile, 'utf8'), uploaded };
}

describe('action.yml', () => {
  let faulty: RunningMockServer;
  const workspaces: string[] = [];
  beforeAll(async () => {
    // The Action runs the package as installed (bin/ over dist/).
    ensureDist();
    faulty = await startMockServer({ transport: 'http', faults: ['ping-non-empty-result'] });
  }, 180_000);
  afterAll(async () => {
    await faulty?.close();
    for (const dir of workspaces) rmSync(dir, { recursive: true, force: true });
  });

  it('declares the inputs a CI user needs and runs as a composite action', () => {
    expect(Object.keys(ACTION['inputs'] as object)).toEqual(expect.arrayContaining(['url', 'stdio', 'suites', 'exclude', 'baseline', 'strict', 'reports', 'headers', 'config']));
    expect((ACTION['runs'] as { using: string }).using).toBe('composite');
    expect(Object.keys(ACTION['outputs'] as object)).toEqual(['exit-code', 'reports']);
  });

  it('a conformance failure: the summary has the counts and the failing case with its rerun command, the reports are uploaded, the action fails with 1', async () => {
    const run = await runAction({ url: faulty.url, cases: CASES, headers: 'X-Team: conformance\nX-Run: 1' });
    workspaces.push(run.workspace);
    expect(run.outputs).toEqual({ 'exit-code': '1', reports: 'conformance-reports' });
    expect(run.failed).toBe(true);
    expect(run.records.map((r) => [r.name, r.kind, r.exitCode])).toEqual([
      ['Install mcp-flow-conformance', 'run', 0],
      ['Run the MCP Flow conformance suites', 'run', 0],
      ['Write the job summary', 'run', 0],
      ['Upload the reports', 'uses', 0],
      ['Fail on a conformance failure', 'run', 1],
    ]);
    expect(run.summary).toContain('### MCP Flow conformance: ❌ failed');
    expect(run.summary).toMatch(/\n\d+ passed, 1 failed, /);
    expect(run.summary).toContain('- **FAIL** `mcp-core/results-are-objects`');
    expect(run.summary).toContain(`mcp-flow-conformance server --url ${faulty.url} --case mcp-core/results-are-objects`);
    expect(run.uploaded).toEqual([{ name: 'mcp-flow-conformance-reports', files: ['junit.xml', 'report.html', 'report.json', 'summary.md'] }]);
    // The headers input reached every request, one header per line.
    const report = JSON.parse(readFileSync(join(run.workspace, 'conformance-reports', 'report.json'), 'utf8')) as { cases: { id: string; transcript?: unknown }[] };
    expect(JSON.stringify(report.cases.find((c) => c.id === 'mcp-core/results-are-objects')!.transcript)).toContain('"X-Run":"1"');
  });

  it('with a baseline listing the failure: exit code 0, the expected failure in the summary', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'action-workspace-'));
    workspaces.push(workspace);
    writeFileSync(join(workspace, 'baseline.json'), JSON.stringify({ version: 1, expectedFailures: { 'mcp-core/results-are-objects': 'ping answers a non-empty result' } }));
    const run = await runAction({ url: faulty.url, cases: CASES, baseline: 'baseline.json', reports: 'out', upload: 'false' }, workspace);
    expect(run.outputs['exit-code']).toBe('0');
    expect(run.failed).toBe(false);
    expect(run.summary).toContain('### MCP Flow conformance: ✅ passed');
    expect(run.summary).toContain('#### Expected failures (listed in the baseline; they do not fail the run) (1)');
    expect(run.summary).toContain('1 expected failure, 0 stale');
    expect(run.uploaded).toEqual([]);
    expect(existsSync(join(workspace, 'out', 'summary.md'))).toBe(true);
  });

  it('a server that is not there: the summary says why, the reports are still uploaded, exit code 2', async () => {
    const run = await runAction({ url: unreachableUrl(), cases: CASES });
    workspaces.push(run.workspace);
    expect(run.outputs['exit-code']).toBe('2');
    expect(run.summary).toContain('### MCP Flow conformance: ⚠️ not run');
    expect(run.summary).toContain('> The run stopped before its cases ran: cannot connect to');
    expect(run.uploaded[0]!.files).toContain('report.json');
    expect(run.records.at(-1)).toMatchObject({ name: 'Fail on a conformance failure', exitCode: 2 });
  });
});
