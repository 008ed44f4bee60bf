// examples/github-actions.yml, the usage example of the Action: read as YAML, its steps executed
// as a runner would (test/support/github-actions.ts), with the user's own steps (install, start the
// server) standing in for a mock server the test starts, and the Action step running action.yml of
// this repository with the example's inputs. The README flow works as written: the first run
// (no baseline yet) fails on the mock's fault and still writes the job summary and the reports the
// upload steps name; examples/write-baseline.mjs turns report.json into a baseline; the same job
// with it passes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineFromResults, parseJsonReport, startMockServer, type RunningMockServer } from '../../src/index.js';
import { ensureDist, ROOT } from '../support/build.js';
import { parseYaml, runCompositeAction, runSteps, type ExpressionContext, type RunnerEnvironment } from '../support/github-actions.js';

const WORKFLOW = parseYaml(readFileSync(join(ROOT, 'examples/github-actions.yml'), 'utf8')) as Record<string, unknown>;
const ACTION = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Record<string, unknown>;
const WRITE_BASELINE = join(ROOT, 'examples/write-baseline.mjs');
const CASES = 'mcp-core/results-are-objects,mcp-core/unknown-method-error-shape,mcp-core/tools-list';
const STEPS = (WORKFLOW['jobs'] as Record<string, { steps: Record<string, unknown>[] }>)['conformance']!.steps;
/** The step that uses the Action. */
const ACTION_STEP = STEPS.find((step) => typeof step['uses'] === 'string' && /\/mcp-flow-conformance@/.test(step['uses']))!;

describe('examples/github-actions.yml', () => {
  it('is a workflow: name, on, one job whose steps each use an action or run a script, the Action among them', () => {
    expect(Object.keys(WORKFLOW)).toEqual(['name', 'on', 'jobs']);
    for (const step of STEPS) expect(typeof step['uses'] === 'string' || typeof step['run'] === 'string', JSON.stringify(step)).toBe(true);
    expect(ACTION_STEP).toBeDefined();
    // Every input it gives is one the Action declares.
    for (const input of Object.keys(ACTION_STEP['with'] as object)) expect(Object.keys(ACTION['inputs'] as object)).toContain(input);
  });

  describe('the README flow: run, write a baseline from report.json, run again with the baseline', () => {
    let server: RunningMockServer;
    const dirs: string[] = [];
    beforeAll(async () => {
      ensureDist();
      server = await startMockServer({ transport: 'http', faults: ['ping-non-empty-result'] });
    }, 180_000);
    afterAll(async () => {
      await server?.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    /** The job in `workspace`: the user's own steps are stood in for, the Action runs for real. */
    async function job(workspace: string, withBaseline: boolean) {
      const summaryFile = join(workspace, '.job-summary.md');
      writeFileSync(summaryFile, '');
      const uploads: { name: string; path: string; exists: boolean }[] = [];
      const runnerTemp = mkdtempSync(join(tmpdir(), 'runner-temp-'));
      dirs.push(runnerTemp);
      let actionExit: string | undefined;
      const environment: RunnerEnvironment = {
        workspace,
        summaryFile,
        env: { RUNNER_TEMP: runnerTemp },
        uses: {
          'actions/checkout': async () => undefined,
          'actions/setup-node': async () => undefined,
          'actions/upload-artifact': async (withInputs) => {
            uploads.push({ name: withInputs['name']!, path: withInputs['path']!, exists: existsSync(resolve(workspace, withInputs['path']!)) });
          },
          [String(ACTION_STEP['uses']).replace(/@.*$/, '')]: async (withInputs) => {
            // The example's inputs, pointed at the mock server and a few quick cases.
            const inputs: Record<string, string> = { ...withInputs, url: server.url, cases: CASES };
            if (!withBaseline) delete inputs['baseline'];
            const result = await runCompositeAction(ACTION, inputs, { ...environment, actionPath: ROOT });
            actionExit = result.outputs['exit-code'];
            if (result.failed) throw new Error(`the Action failed with exit code ${actionExit}`);
            return result.outputs;
          },
        },
      };
      // The user's steps: installing their project and starting their server (the test started the mock).
      const steps = STEPS.map((step) => (step['name'] === 'Install your project' || step['name'] === 'Start the server under test' ? { ...step, run: 'true' } : step));
      expect(steps.filter((step) => step['run'] === 'true')).toHaveLength(2);
      const context: ExpressionContext = { inputs: {}, github: { workspace }, runner: { temp: runnerTemp }, steps: {}, failed: false };
      const result = await runSteps(steps, context, environment);
      return { ...result, actionExit, uploads, summary: readFileSync(summaryFile, 'utf8') };
    }

    it('fails on the fault with the summary and every report still there; passes once the baseline lists the failure', async () => {
      const workspace = mkdtempSync(join(tmpdir(), 'example-workflow-'));
      dirs.push(workspace);
      writeFileSync(join(workspace, 'server.log'), 'the server under test logged here\n');

      const first = await job(workspace, false);
      expect(first.actionExit).toBe('1');
      expect(first.failed).toBe(true);
      // The summary survives the failure (the old `| tee` under pipefail lost it).
      expect(first.summary).toContain('### MCP Flow conformance: ❌ failed');
      expect(first.summary).toContain('- **FAIL** `mcp-core/results-are-objects`');
      expect(first.summary).toMatch(/\n\d+ passed, 1 failed, /);
      // Both uploads ran on the failed job, and found what they upload.
      expect(first.uploads).toEqual([
        { name: 'mcp-flow-conformance-reports', path: 'conformance-reports', exists: true },
        { name: 'server-log', path: 'server.log', exists: true },
      ]);
      for (const file of ['junit.xml', 'report.json', 'report.html', 'summary.md']) expect(existsSync(join(workspace, 'conformance-reports', file)), file).toBe(true);

      const report = join(workspace, 'conformance-reports', 'report.json');
      const baseline = join(workspace, String((ACTION_STEP['with'] as Record<string, string>)['baseline']));
      const written = spawnSync(process.execPath, [WRITE_BASELINE, report, baseline], { encoding: 'utf8' });
      expect(written.status, written.stderr).toBe(0);
      expect(written.stdout).toContain('1 expected failure(s)');
      // The script agrees with the library's own baselineFromResults.
      expect(JSON.parse(readFileSync(baseline, 'utf8'))).toEqual(baselineFromResults(parseJsonReport(readFileSync(report, 'utf8')).cases));

      writeFileSync(join(workspace, '.job-summary.md'), '');
      const second = await job(workspace, true);
      expect(second.actionExit).toBe('0');
      expect(second.failed).toBe(false);
      expect(second.summary).toContain('### MCP Flow conformance: ✅ passed');
      expect(second.summary).toContain('1 expected failure, 0 stale');
    });

    it('write-baseline.mjs refuses a file that is not a JSON report, exit 2', () => {
      const dir = mkdtempSync(join(tmpdir(), 'write-baseline-'));
      dirs.push(dir);
      const notReport = spawnSync(process.execPath, [WRITE_BASELINE, join(ROOT, 'package.json'), join(dir, 'x.json')], { encoding: 'utf8' });
      expect(notReport.status).toBe(2);
      expect(notReport.stderr).toMatch(/is not an mcp-flow-conformance JSON report/);
      const usage = spawnSync(process.execPath, [WRITE_BASELINE], { encoding: 'utf8' });
      expect(usage.status).toBe(2);
      expect(usage.stderr).toMatch(/^usage: /);
    });
  });
});
