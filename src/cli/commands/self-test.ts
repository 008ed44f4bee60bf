// `mcp-flow-conformance self-test` (what `npm start` runs): the self-check of vectors and schemas,
// then every server suite against the embedded reference mock server on loopback, over
// WebTransport, Streamable HTTP and stdio (the mock server in this process, a new one per case on
// piped stdin/stdout/stderr; `--transport stdio-process` spawns this CLI's own
// `mock-server --transport stdio` per case instead), and every client suite against this CLI's own
// `mock-client --driver` over WebTransport and Streamable HTTP, writing JUnit/JSON/HTML reports per
// run. The runs are made a few at a time (one per core), their output shown run by run in order.
// Both mocks are correct, so every applicable case passes: what a user sees is what a conforming
// peer looks like.
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPackageFolder } from '../../package-folder.js';
import { selectCases, shellQuote, type RunResult } from '../../harness/index.js';
import { pipedMockServer, startMockServer, type RunningMockServer } from '../../peer/server/index.js';
import type { StdioLaunch } from '../../harness/transport-targets.js';
import { countsLine } from '../../report/index.js';
import { CliUsageError } from '../errors.js';
import { ExitCode, type CliCommand, type CliIo } from '../io.js';
import { runOrdered, type OrderedJob } from '../ordered-jobs.js';
import { loadServerRegistry, runServer } from './server.js';
import { loadClientRegistry, runClient } from './client.js';
import { selfCheckCommand } from './self-check.js';

/** The runs a self-test can make, in order. */
export const SELF_TEST_RUNS = {
  wt: 'WebTransport (HTTP/2), encodings cbor then json',
  'wt-json': 'WebTransport (HTTP/2), JSON only',
  http: 'Streamable HTTP (with the FastWorkflow profile)',
  stdio: 'stdio (the mock server in this process, a new one per case on pipes)',
  'stdio-process': 'stdio, a `mock-server --transport stdio` process per case',
  'wt-alt': 'WebTransport (HTTP/2), the mock taking the alternate readings (mock-server --readings alternate)',
  'http-alt': 'Streamable HTTP, the mock taking the alternate readings',
  'stdio-alt': 'stdio, the mock taking the alternate readings (in this process, on pipes)',
  'client-wt': 'client suites: the mock client (`mock-client --driver`, a process per case) over WebTransport (HTTP/2)',
  'client-http': 'client suites: the mock client (`mock-client --driver`, a process per case) over Streamable HTTP',
} as const;
export type SelfTestRun = keyof typeof SELF_TEST_RUNS;
export const DEFAULT_SELF_TEST_RUNS: readonly SelfTestRun[] = ['wt', 'http', 'stdio', 'wt-alt', 'http-alt', 'stdio-alt', 'client-wt', 'client-http'];
/** Time limits are stretched this much when every case starts a node process first (stdio-process). */
export const STDIO_TIMEOUT_SCALE = 5;
/** Client runs also start a node process per case (the mock client). */
export const CLIENT_TIMEOUT_SCALE = 2;

const isClientRun = (run: SelfTestRun): run is 'client-wt' | 'client-http' => run.startsWith('client-');
const isStdioRun = (run: SelfTestRun): boolean => run === 'stdio' || run === 'stdio-alt' || run === 'stdio-process';
/** Runs whose stdio mock is a process per case (the others serve it in this process). */
const isProcessRun = (run: SelfTestRun): boolean => run === 'stdio-process';
/** The readings the run's mock server takes. */
const readingsOf = (run: SelfTestRun): 'recommended' | 'alternate' => (run.endsWith('-alt') ? 'alternate' : 'recommended');

/**
 * The argv that runs this CLI with `args`: the installed bin when running compiled (dist/), the
 * TypeScript source through tsx otherwise.
 */
export function selfCommand(...args: string[]): string[] {
  const here = fileURLToPath(import.meta.url);
  if (/[\\/]dist[\\/](src|bundle)[\\/]/.test(here)) {
    const binDir = findPackageFolder(import.meta.url, 'bin', 'mcp-flow-conformance.js');
    if (binDir !== undefined) return [process.execPath, join(binDir, 'mcp-flow-conformance.js'), ...args];
  }
  const mainTs = resolve(fileURLToPath(new URL('../main.ts', import.meta.url)));
  const script = `import { main } from ${JSON.stringify(mainTs)}; process.exitCode = await main(process.argv.slice(1));`;
  return [process.execPath, '--import', 'tsx', '--input-type=module', '-e', script, '--', ...args];
}

/** The command line that starts this CLI's own stdio mock server. */
export function stdioMockCommandLine(readings: 'recommended' | 'alternate' = 'recommended'): string {
  return selfCommand('mock-server', '--transport', 'stdio', ...(readings === 'alternate' ? ['--readings', 'alternate'] : [])).map(shellQuote).join(' ');
}

/**
 * Runs made at the same time: --parallel, else one per core. The runs are independent (each has
 * its own mock server, or its own processes, and its own reports folder); their output is shown
 * run by run, in order, whatever finishes first.
 */
function parallelRuns(value: unknown): number {
  if (value === undefined) return availableParallelism();
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new CliUsageError('--parallel', `must be a positive integer, got ${String(value)}`);
  return value;
}

/** A repeatable, comma-separable option as a list. */
function listArg(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function parseRuns(value: unknown): SelfTestRun[] {
  if (value === undefined) return [...DEFAULT_SELF_TEST_RUNS];
  const names = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
  const runs: SelfTestRun[] = [];
  for (const name of names) {
    if (!Object.hasOwn(SELF_TEST_RUNS, name)) throw new CliUsageError('--transport', `${JSON.stringify(name)} is not one of ${Object.keys(SELF_TEST_RUNS).join(', ')}`);
    if (!runs.includes(name as SelfTestRun)) runs.push(name as SelfTestRun);
  }
  return runs;
}

/**
 * Starts the mock server a run needs (none for stdio: a new one per case) and the `server`
 * arguments that reach it. Over stdio the target is the mock's command line (what the reports'
 * rerun commands start); unless the run spawns it, `launchStdio` serves it in this process.
 */
async function startFor(run: SelfTestRun): Promise<{ server?: RunningMockServer; targetArgs: Record<string, unknown>; launchStdio?: StdioLaunch }> {
  if (isStdioRun(run)) {
    const readings = readingsOf(run);
    return { targetArgs: { stdio: stdioMockCommandLine(readings) }, ...(isProcessRun(run) ? {} : { launchStdio: pipedMockServer({ readings }) }) };
  }
  if (isClientRun(run)) return { targetArgs: { transport: run === 'client-wt' ? 'wt' : 'http', '--': selfCommand('mock-client', '--driver') } };
  const server = await startMockServer({
    transport: run === 'http' || run === 'http-alt' ? 'http' : 'wt',
    host: '127.0.0.1',
    port: 0,
    readings: readingsOf(run),
    ...(run === 'wt-json' ? { encodings: ['json'] } : {}),
  });
  const targetArgs: Record<string, unknown> = server.transport === 'http' ? { url: server.url } : { url: server.url, 'certificate-hash': server.certificateHash };
  return { server, targetArgs };
}

export async function runSelfTest(args: Record<string, unknown>, io: CliIo): Promise<number> {
  let runs: SelfTestRun[];
  let parallel: number;
  try {
    runs = parseRuns(args['transport']);
    parallel = parallelRuns(args['parallel']);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    io.err(`error: ${error.message}`);
    return ExitCode.usage;
  }
  const reportsDir = typeof args['reports'] === 'string' ? args['reports'] : 'reports';
  io.out(
    [
      'self-test: every server conformance suite against the embedded reference mock server, and every client',
      'suite against the embedded mock client, on loopback. Both mocks are correct, so every case that applies',
      'should PASS (INFO marks behaviour the documents leave open; NOT_APPLICABLE says what the mock does not',
      'declare on that transport).',
      'To test your own server: mcp-flow-conformance server --url https://host:port/path (WebTransport),',
      '--url http://host/mcp (Streamable HTTP) or --stdio "command"; your own client:',
      'mcp-flow-conformance client -- <command> (docs/client-scenarios.md); see --help.',
    ].join('\n'),
  );
  const filters = {
    ...(args['suite'] !== undefined ? { suites: listArg(args['suite']) } : {}),
    ...(args['case'] !== undefined ? { cases: listArg(args['case']) } : {}),
    ...(args['exclude'] !== undefined ? { exclude: listArg(args['exclude']) } : {}),
  };
  const filtered = Object.keys(filters).length > 0;
  type Outcome = { run?: SelfTestRun; result?: RunResult; code: number };
  const jobs: OrderedJob<Outcome | undefined>[] = [];
  if (args['self-check'] !== false) {
    jobs.push({
      // First in the output: started at once, so something shows while the long runs go on.
      startFirst: true,
      run: async (io) => {
        io.out('\n== self-check: test vectors and schema examples (failures and the total; run `self-check` for every file) ==');
        // Only what needs attention: the per-file lines of a passing self-check are noise here.
        const lines: string[] = [];
        const code = await selfCheckCommand.run({}, { ...io, terminal: undefined, out: (text) => void lines.push(...text.replace(/\n$/, '').split('\n')) });
        for (const line of lines.slice(1, -1)) if (/FAIL/.test(line)) io.out(line);
        io.out(`self-check: ${lines.at(-1) ?? 'no result'}`);
        return { code };
      },
    });
  }
  for (const run of runs) {
    jobs.push({
      // A process per case makes these the longest runs: they start first.
      startFirst: isProcessRun(run) || isClientRun(run),
      run: async (io) => {
        io.out(`\n== ${run}: ${SELF_TEST_RUNS[run]} ==`);
        // Filters name server or client cases: a run they select nothing of is left out, not an error.
        if (filtered) {
          const registry = isClientRun(run) ? await loadClientRegistry() : await loadServerRegistry();
          let selected = 0;
          try {
            selected = selectCases(registry.list(), filters).selected.length;
          } catch {
            selected = 0;
          }
          if (selected === 0) {
            io.out(`(no ${isClientRun(run) ? 'client' : 'server'} case matches the filters: run left out)`);
            return undefined;
          }
        }
        let started: Awaited<ReturnType<typeof startFor>>;
        try {
          started = await startFor(run);
        } catch (error) {
          io.err(`error: the mock server for ${run} did not start: ${(error as Error).message}`);
          return { run, code: ExitCode.usage };
        }
        let result: RunResult | undefined;
        try {
          const code = await (isClientRun(run) ? runClient : runServer)(
            {
              ...started.targetArgs,
              reports: join(reportsDir, run),
              ...(args['workers'] !== undefined ? { workers: args['workers'] } : {}),
              // A node process started per case needs room on loaded machines.
              'timeout-scale': ((args['timeout-scale'] as number | undefined) ?? 1) * (isProcessRun(run) ? STDIO_TIMEOUT_SCALE : isClientRun(run) ? CLIENT_TIMEOUT_SCALE : 1),
              ...(args['suite'] !== undefined ? { suite: args['suite'] } : {}),
              ...(args['case'] !== undefined ? { case: args['case'] } : {}),
              ...(args['exclude'] !== undefined ? { exclude: args['exclude'] } : {}),
            },
            io,
            { onResult: (r) => (result = r), ...(started.launchStdio !== undefined ? { launchStdio: started.launchStdio } : {}) },
          );
          return { run, code, ...(result !== undefined ? { result } : {}) };
        } finally {
          await started.server?.close();
        }
      },
    });
  }
  const outcomes = (await runOrdered(jobs, parallel, io)).filter((outcome) => outcome !== undefined);
  const worst = outcomes.reduce((code, outcome) => Math.max(code, outcome.code), ExitCode.ok as number);
  const summaries = outcomes.filter((outcome): outcome is Outcome & { run: SelfTestRun } => outcome.run !== undefined);
  io.out('\n== self-test summary ==');
  // The run names are padded to the longest shown.
  const width = Math.max(0, ...summaries.map(({ run }) => run.length));
  for (const { run, result, code } of summaries) {
    io.out(`${run.padEnd(width)} ${result ? countsLine(result.summary) : 'did not run'} (exit ${code})${result ? `  reports: ${join(reportsDir, run)}/` : ''}`);
  }
  const passed = summaries.reduce((n, s) => n + (s.result?.summary.PASS ?? 0), 0);
  const failed = summaries.reduce((n, s) => n + (s.result ? s.result.summary.FAIL + s.result.summary.TIMEOUT + s.result.summary.ERROR : 0), 0);
  io.out(`${passed} passed, ${failed} failed`);
  return worst;
}

export const selfTestCommand: CliCommand = {
  command: 'self-test',
  describe: 'run every server suite against the embedded mock server (WebTransport, Streamable HTTP, stdio) and every client suite against the mock client, and write reports; what `npm start` runs',
  builder: (yargs) =>
    yargs
      .option('transport', { type: 'string', array: true, describe: `runs to make (default ${DEFAULT_SELF_TEST_RUNS.join(',')}; also wt-json, stdio-process)` })
      .option('reports', { type: 'string', default: 'reports', describe: 'folder for the reports, one subfolder per run' })
      .option('self-check', { type: 'boolean', default: true, describe: 'check the test vectors and schema examples first (--no-self-check skips it)' })
      .option('parallel', { type: 'number', describe: 'runs made at the same time, their output shown run by run in order (default: one per core)' })
      .option('workers', { type: 'number', describe: 'cases run at the same time in each run (default 4; 8 in stdio-process)' })
      .option('timeout-scale', { type: 'number', describe: `multiply every time limit (stdio-process gets ${STDIO_TIMEOUT_SCALE}x on top, client runs ${CLIENT_TIMEOUT_SCALE}x)` })
      .option('suite', { type: 'string', array: true, describe: 'only these suites' })
      .option('case', { type: 'string', array: true, describe: 'only cases whose ID matches a glob' })
      .option('exclude', { type: 'string', array: true, describe: 'leave out cases whose ID matches a glob' }),
  run: runSelfTest,
};
