// Ctrl-C during a run: no further case starts, the running one is aborted, the reports hold what
// finished with the rest SKIPPED "interrupted", exit 130. In-process (the interrupt raised from a
// case) and through a real SIGINT to the command in a child process.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServer } from '../../src/cli/commands/server.js';
import { shellQuote } from '../../src/harness/rerun.js';
import { CaseRegistry, defineCase } from '../../src/harness/index.js';
import { startMockServer } from '../../src/peer/server/index.js';
import { parseJsonReport } from '../../src/report/index.js';
import { openSession } from '../../suites/support/session.js';
import { cliCommand, recordingIo } from '../support/cli.js';
import { stdioMockCommand } from '../suites/support.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an interrupted server run', () => {
  it('writes the reports of what finished, the running and the unstarted cases SKIPPED "interrupted", exit 130', async () => {
    let interrupt: (() => void) | undefined;
    const io = Object.assign(recordingIo(), {
      onInterrupt(handler: () => void) {
        interrupt = handler;
        return () => (interrupt = undefined);
      },
    });
    const ping = defineCase({
      id: 'cli/ping',
      suite: 'cli',
      title: 'ping is answered',
      requirements: ['CORE-LIFE-12'],
      async run(ctx) {
        await openSession(ctx);
        const answer = await ctx.request('CORE-LIFE-12', 'ping');
        ctx.check('CORE-LIFE-12', answer !== undefined, { message: 'ping is answered' });
      },
    });
    // The user presses Ctrl-C while this case runs; it waits until the run aborts it.
    const pressesCtrlC = defineCase({
      ...ping,
      id: 'cli/interrupted',
      async run(ctx) {
        interrupt!();
        if (!ctx.signal.aborted) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        ctx.check('CORE-LIFE-12', false, { message: 'never judged' });
      },
    });
    const registry = new CaseRegistry();
    registry.registerAll([ping, pressesCtrlC, { ...ping, id: 'cli/never-started' }]);
    const server = await startMockServer({ transport: 'http' });
    try {
      const reports = join(dir, 'in-process');
      const code = await runServer({ url: server.url, workers: 1, reports }, io, { registry });
      expect(code).toBe(130);
      expect(io.stderr).toBe('interrupted: stopping the run; the reports will hold what finished (Ctrl-C again quits at once)\n');
      const report = parseJsonReport(readFileSync(join(reports, 'report.json'), 'utf8'));
      expect(report.interrupted).toBe(true);
      expect(report.exitCode).toBe(2);
      expect(report.cases.map((c) => [c.id, c.verdict, c.reason ?? ''])).toEqual([
        ['cli/ping', 'PASS', ''],
        ['cli/interrupted', 'SKIPPED', 'interrupted: the run was stopped while this case ran (no verdict)'],
        ['cli/never-started', 'SKIPPED', 'interrupted: the run was stopped before this case started'],
      ]);
      expect(readFileSync(join(reports, 'junit.xml'), 'utf8')).toContain('<skipped message="SKIPPED: interrupted: the run was stopped before this case started"/>');
      expect(io.stdout).toContain('interrupted: 2 cases not finished (SKIPPED)');
      expect(io.stdout.trimEnd().split('\n').at(-1)).toBe('1 passed, 0 failed, 2 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
      // The handlers are gone once the run is over.
      expect(interrupt).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('a real SIGINT to the command does the same', async () => {
    // A stdio server that presses Ctrl-C on the command when the second case starts it (spawn 4:
    // after the pre-flight, discovery and the first case), then serves as the mock server does.
    const counter = join(dir, 'spawns');
    writeFileSync(counter, '0');
    const wrapper = join(dir, 'ctrl-c-server.mjs');
    writeFileSync(
      wrapper,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        "import { spawn } from 'node:child_process';",
        `const counter = ${JSON.stringify(counter)};`,
        "const spawns = Number(readFileSync(counter, 'utf8')) + 1;",
        'writeFileSync(counter, String(spawns));',
        "if (spawns === 4) process.kill(process.ppid, 'SIGINT');",
        `const server = spawn(${JSON.stringify(stdioMockCommand())}, { shell: true, stdio: 'inherit' });`,
        "server.on('exit', (code) => process.exit(code ?? 1));",
      ].join('\n'),
    );
    const reports = join(dir, 'child');
    const cases = 'mcp-core/results-are-objects,mcp-core/unknown-method-error-shape,mcp-core/tools-list';
    const [command, ...args] = cliCommand('server', '--stdio', `${shellQuote(process.execPath)} ${shellQuote(wrapper)}`, '--case', cases, '--workers', '1', '--timeout-scale', '3', '--reports', reports);
    const child = spawn(command!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('interrupted: stopping the run');
    const report = parseJsonReport(readFileSync(join(reports, 'report.json'), 'utf8'));
    expect(report.interrupted).toBe(true);
    expect(report.cases[0]!.verdict).not.toBe('SKIPPED');
    expect(report.cases.slice(1).map((c) => c.verdict)).toEqual(['SKIPPED', 'SKIPPED']);
  });
});
