// Shared by the client-exit-<n>.test.ts shards: the `client` command, run as a process against a
// client that ends its sessions early, late, abruptly or never (test/fixtures/clients/
// misbehaving-client.ts), must exit soon after it printed its summary line: nothing a case
// started (listener, session, timer, client process, the client's pipes) may keep it running.
// The bound is a liveness bound, far above what a run takes on a loaded machine.
//
// What a case starts itself (streams, timers, requests in flight) differs per case, so the ends
// that leave a session behind differently (closed early, dropped by an exit, open at the case's
// end) run every suite. What only the process does after its session (ignore SIGTERM, leave a
// child holding its pipes) meets one piece of code whatever the case: the client target's
// disposal (src/harness/client-target.ts: stop the client, SIGKILL after the grace, close the
// listener), so one suite proves it as well as every suite would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { MISBEHAVIOURS, type Misbehaviour } from '../fixtures/clients/misbehaving.js';
import { bundledScript } from '../support/bundle.js';
import { cliCommand } from '../support/cli.js';

/** How long after its summary line the command may still be running (the aim is well under 3 s). */
export const EXIT_BOUND_MS = 10_000;

const FIXTURE = fileURLToPath(new URL('../fixtures/clients/misbehaving-client.ts', import.meta.url));

/** The command line of the misbehaving client (bundled: a process per case starts as plain node). */
export function misbehavingClient(): Promise<string[]> {
  return bundledScript(FIXTURE);
}

/** The command line of the mock client's reference driver (compiled when dist/ is current). */
export function mockClientDriver(): string[] {
  return cliCommand('mock-client', '--driver');
}

export interface ClientCliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The summary line ("3 passed, 1 failed, ..."), when one was printed. */
  summary: string | undefined;
  /** Milliseconds from the summary line to the process's exit (Infinity when it had to be killed). */
  exitDelayMs: number;
}

const SUMMARY = /^\d+ passed, \d+ failed, .*$/m;

/**
 * Runs `client <args> -- <client>` and times its exit after the summary line; a command still
 * running EXIT_BOUND_MS after it is killed (exitDelayMs Infinity).
 */
export function runClientCli(args: readonly string[], client: readonly string[], env: Record<string, string> = {}): Promise<ClientCliRun> {
  return new Promise((resolve, reject) => {
    const [node, ...cli] = cliCommand('client', ...args, '--', ...client);
    const child = spawn(node!, cli, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let summaryAt: number | undefined;
    let killer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      if (summaryAt === undefined && SUMMARY.test(stdout)) {
        summaryAt = Date.now();
        killer = setTimeout(() => child.kill('SIGKILL'), EXIT_BOUND_MS);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const exitedAt = Date.now();
      clearTimeout(killer);
      resolve({
        code,
        stdout,
        stderr,
        summary: SUMMARY.exec(stdout)?.[0],
        exitDelayMs: summaryAt === undefined || signal === 'SIGKILL' ? Infinity : exitedAt - summaryAt,
      });
    });
  });
}

/**
 * One test: the client suites (every one, or `suite` alone) against the misbehaving client `mode`;
 * the command exits within the bound, with no ERROR or TIMEOUT.
 */
export function exitsAfterSummary(mode: Misbehaviour, transport: 'wt' | 'http' = 'wt', suite?: string): void {
  it(`client exits soon after its summary against a client that ${MISBEHAVIOURS[mode]} (${mode}, ${suite === undefined ? 'every suite' : `suite ${suite}`}, ${transport})`, async () => {
    const run = await runClientCli(['--transport', transport, '--workers', '8', ...(suite === undefined ? [] : ['--suite', suite])], await misbehavingClient(), { FIXTURE_MODE: mode });
    expect(run.summary, run.stdout + run.stderr).toBeDefined();
    expect(run.exitDelayMs, `still running ${EXIT_BOUND_MS} ms after: ${run.summary}`).toBeLessThan(EXIT_BOUND_MS);
    expect(run.summary).toMatch(/ 0 timed out, 0 errors/);
    // 0 or 1: a client that only ends late breaks no rule; 2 would be a harness error.
    expect([0, 1]).toContain(run.code);
  }, 300_000);
}
