// examples/github-actions.yml: well-formed (the YAML subset a workflow uses: spaces only, the
// top-level keys, every step a `uses` or a `run`), its conformance command names only options the
// `server` command has, and the flow the README describes works as written: the command against a
// faulty mock server fails and writes the reports the upload step names; examples/write-baseline.mjs
// turns report.json into a baseline; the same command with --baseline passes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { baselineFromResults, parseJsonReport, startMockServer, type RunningMockServer } from '../../src/index.js';
import { splitCommandLine } from '../../src/transport/stdio/index.js';
import { recordingIo } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKFLOW = readFileSync(join(ROOT, 'examples/github-actions.yml'), 'utf8');
const WRITE_BASELINE = join(ROOT, 'examples/write-baseline.mjs');
const CASES = ['mcp-core/results-are-objects', 'mcp-core/unknown-method-error-shape', 'mcp-core/tools-list'];

/** Lines of the workflow without comments and blank lines, with their indentation. */
const lines = WORKFLOW.split('\n')
  .map((text, index) => ({ number: index + 1, text, indent: /^ */.exec(text)![0].length }))
  .filter((line) => line.text.trim() !== '' && !line.text.trim().startsWith('#'));

/** Each `run:` script of the workflow (block scalars `|` read line by line, backslash continuations joined). */
function runScripts(): string[][] {
  const scripts: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)(?:- )?run:\s*(.*)$/.exec(lines[i]!.text);
    if (!match) continue;
    const indent = match[1]!.length;
    if (match[2] !== '|') {
      scripts.push([match[2]!]);
      continue;
    }
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.indent > indent; i++) body.push(lines[i]!.text.trim());
    i--;
    scripts.push(body.join('\n').replace(/\\\n/g, ' ').split('\n'));
  }
  return scripts;
}

/** The arguments of every `npx mcp-flow-conformance ...` command line, up to a pipe. */
function conformanceCommands(): string[][] {
  return runScripts()
    .flat()
    .filter((line) => line.startsWith('npx mcp-flow-conformance '))
    .map((line) => splitCommandLine(line.split(' | ')[0]!).slice(2));
}

describe('examples/github-actions.yml', () => {
  it('is YAML a workflow runner reads: spaces only, even indentation, name/on/jobs, every step a uses or a run', () => {
    expect(WORKFLOW).not.toContain('\t');
    for (const line of lines) expect(line.indent % 2, `line ${line.number}`).toBe(0);
    expect(lines.filter((line) => line.indent === 0).map((line) => line.text)).toEqual(['name: MCP Flow conformance', 'on:', 'jobs:']);
    const steps = lines.findIndex((line) => line.text.trim() === 'steps:');
    expect(steps).toBeGreaterThan(-1);
    const itemIndent = lines[steps]!.indent + 2;
    const items: string[][] = [];
    for (const line of lines.slice(steps + 1)) {
      if (line.indent < itemIndent) break;
      if (line.indent === itemIndent && line.text.trimStart().startsWith('- ')) items.push([]);
      items.at(-1)?.push(line.text.trim().replace(/^- /, ''));
    }
    expect(items.length).toBeGreaterThanOrEqual(5);
    for (const item of items) expect(item.some((entry) => /^(uses|run): /.test(entry)), item.join(' | ')).toBe(true);
    // The reports are uploaded whether the suite passed or not.
    expect(WORKFLOW).toMatch(/if: \$\{\{ !cancelled\(\) \}\}\n\s+uses: actions\/upload-artifact@v4/);
  });

  it('runs the server command with options that command has', async () => {
    const commands = conformanceCommands();
    expect(commands).toHaveLength(1);
    const [command, ...args] = commands[0]!;
    expect(command).toBe('server');
    const io = recordingIo();
    expect(await main(['server', '--help'], io)).toBe(0);
    const options = args.filter((arg) => arg.startsWith('--'));
    expect(options).toEqual(['--url', '--baseline', '--reports', '--timeout-scale']);
    for (const option of options) expect(io.stdout).toMatch(new RegExp(`^\\s+${option}\\b`, 'm'));
  });

  describe('the README flow: run, write a baseline from report.json, run again with --baseline', () => {
    let server: RunningMockServer;
    const dir = mkdtempSync(join(tmpdir(), 'mcp-flow-github-actions-'));
    beforeAll(async () => {
      server = await startMockServer({ transport: 'http', faults: ['ping-non-empty-result'] });
    });
    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** The workflow's command with the mock server's URL, the files in `dir`, and a few quick cases. */
    function workflowArgs(withBaseline: boolean): string[] {
      const [, ...args] = conformanceCommands()[0]!;
      const out: string[] = [];
      for (let i = 0; i < args.length; i += 2) {
        const [option, value] = [args[i]!, args[i + 1]!];
        if (option === '--url') out.push(option, server.url);
        else if (option === '--baseline') {
          if (withBaseline) out.push(option, join(dir, value));
        } else if (option === '--reports') out.push(option, join(dir, value));
        else out.push(option, value);
      }
      return [...out, '--case', CASES.join(',')];
    }

    it('fails on the fault, writes every report the upload step names, and passes once the baseline lists the failure', async () => {
      const first = recordingIo();
      expect(await main(['server', ...workflowArgs(false)], first), first.stdout + first.stderr).toBe(1);
      const uploads = [...WORKFLOW.matchAll(/^\s+(conformance-reports\/\S+)$/gm)].map((match) => match[1]!);
      expect(uploads).toEqual(['conformance-reports/junit.xml', 'conformance-reports/report.html', 'conformance-reports/report.json']);
      for (const file of uploads) expect(existsSync(join(dir, file)), file).toBe(true);
      // The step summary takes the last line: the counts line.
      expect(first.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 1 failed, \d+ skipped, /);

      const report = join(dir, 'conformance-reports/report.json');
      const baseline = join(dir, 'conformance-baseline.json');
      const written = spawnSync(process.execPath, [WRITE_BASELINE, report, baseline], { encoding: 'utf8' });
      expect(written.status, written.stderr).toBe(0);
      expect(written.stdout).toContain('1 expected failure(s)');
      // The script agrees with the library's own baselineFromResults.
      expect(JSON.parse(readFileSync(baseline, 'utf8'))).toEqual(baselineFromResults(parseJsonReport(readFileSync(report, 'utf8')).cases));

      const second = recordingIo();
      expect(await main(['server', ...workflowArgs(true)], second), second.stdout + second.stderr).toBe(0);
      expect(second.stdout).toContain('[expected failure]');
    });

    it('write-baseline.mjs refuses a file that is not a JSON report, exit 2', () => {
      const notReport = spawnSync(process.execPath, [WRITE_BASELINE, join(ROOT, 'package.json'), join(dir, 'x.json')], { encoding: 'utf8' });
      expect(notReport.status).toBe(2);
      expect(notReport.stderr).toMatch(/is not an mcp-flow-conformance JSON report/);
      const usage = spawnSync(process.execPath, [WRITE_BASELINE], { encoding: 'utf8' });
      expect(usage.status).toBe(2);
      expect(usage.stderr).toMatch(/^usage: /);
    });
  });
});
