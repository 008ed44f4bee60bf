// `mcp-flow-conformance server`: runs the server suites against an implementation (the harness
// acts as its client) and prints a verdict per case, live per suite, ending with `N passed, N
// failed`. Exit 0 when every required case passes, 1 on a conformance failure, 2 on bad usage, a
// harness error, or filters that select nothing.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  CaseRegistry,
  HarnessError,
  parseShard,
  readBaseline,
  runConformance,
  selectCases,
  stoppedRunResult,
  type Baseline,
  type CaseFilters,
  type RunOptions,
  type RunResult,
  type Target,
} from '../../harness/index.js';
import { ConsoleReporter, ReportError, ReportWriteError, renderHtml, renderJUnit, renderJson, renderMarkdown, writeReports, type ReportPaths } from '../../report/index.js';
import { ProtocolError } from '../../protocol/errors.js';
import { ConnectionError } from '../../transport/errors.js';
import { CONFIG_FILE, loadConfig, mergeConfig, type LoadedConfig } from '../config.js';
import { CliUsageError, usageErrors } from '../errors.js';
import { consoleOutput, ExitCode, type CliCommand, type CliIo } from '../io.js';
import { parseServerTarget, serverTarget, type ServerTargetSpec } from '../../harness/server-target.js';
import type { StdioLaunch } from '../../harness/transport-targets.js';

/** Report file names inside a --reports folder. */
export const REPORT_FILES = { junit: 'junit.xml', json: 'report.json', html: 'report.html', markdown: 'summary.md' } as const;

/** The report formats, each an option of its own (`--junit`, `--json`, `--html`, `--markdown`). */
const FORMATS = ['junit', 'json', 'html', 'markdown'] as const;

/** Everything the `server` command needs, checked. */
export interface ServerPlan {
  list: boolean;
  /** Undefined with --list and no target. */
  target?: ServerTargetSpec;
  filters: CaseFilters;
  strict: boolean;
  baselineFile?: string;
  /** A stale baseline entry fails the run. */
  failOnStale: boolean;
  reports: ReportPaths;
  /** --workers; undefined: the target's default (Target.defaultWorkers). */
  workers?: number;
  timeoutScale: number;
  seed?: number;
  path?: string;
  /** Bytes of each message kept in transcripts and reports (--kept-message-bytes). */
  keptMessageBytes?: number;
}

/** Repeatable options may also be comma-separated (`--suite a,b`). */
export function listOption(value: unknown, option: string, splitCommas = true): string[] | undefined {
  if (value === undefined) return undefined;
  const items = (Array.isArray(value) ? value : [value]).map(String);
  const split = splitCommas ? items.flatMap((item) => item.split(',')) : items;
  const trimmed = split.map((item) => item.trim());
  if (trimmed.some((item) => item === '')) throw new CliUsageError(option, 'an empty value');
  return trimmed;
}

export function oneString(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new CliUsageError(option, `given ${value.length} times; give it once`);
  const text = String(value);
  if (text.trim() === '') throw new CliUsageError(option, 'needs a non-empty value');
  return text;
}

export function oneNumber(value: unknown, option: string, check: (n: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new CliUsageError(option, `given ${value.length} times; give it once`);
  const n = typeof value === 'number' ? value : Number(value);
  if (!check(n)) throw new CliUsageError(option, `must be ${what}, got ${typeof value === 'number' && Number.isNaN(value) ? 'something else' : JSON.stringify(value)}`);
  return n;
}

/** The options every conformance run has, whatever it tests (filters, reports, limits, baseline...). */
export type RunPlan = Omit<ServerPlan, 'target'>;

/** Turns the parsed arguments into a plan; throws CliUsageError naming the first bad option. */
export function parseServerArgs(args: Record<string, unknown>): ServerPlan {
  const run = parseRunArgs(args);
  const hasTarget = args['url'] !== undefined || args['stdio'] !== undefined;
  const target =
    !run.list || hasTarget
      ? usageErrors(() =>
          parseServerTarget({
            url: args['url'] as string | undefined,
            stdio: args['stdio'] as string | undefined,
            transport: args['transport'] as string | undefined,
            header: listOption(args['header'], '--header', false),
            ca: oneString(args['ca'], '--ca'),
            certificateHash: oneString(args['certificate-hash'], '--certificate-hash'),
            http: oneNumber(args['http'], '--http', (n) => n === 2 || n === 3, '2 or 3'),
            protocolVersion: oneString(args['protocol-version'], '--protocol-version'),
            interactiveTool: listOption(args['interactive-tool'], '--interactive-tool', false),
          }),
        )
      : undefined;
  return { ...run, ...(target !== undefined ? { target } : {}) };
}

/** The run options shared by the `server` and `client` commands; throws CliUsageError naming the first bad one. */
export function parseRunArgs(args: Record<string, unknown>): RunPlan {
  const list = args['list'] === true;
  const suites = listOption(args['suite'], '--suite');
  const cases = listOption(args['case'], '--case');
  const exclude = listOption(args['exclude'], '--exclude');
  const shardText = oneString(args['shard'], '--shard');
  let shard: CaseFilters['shard'];
  if (shardText !== undefined) {
    try {
      shard = parseShard(shardText);
    } catch (error) {
      throw new CliUsageError('--shard', `${JSON.stringify(shardText)} is not of the form i/n with 1 <= i <= n (e.g. 2/4)`, { cause: error });
    }
  }
  const filters: CaseFilters = {
    ...(suites ? { suites } : {}),
    ...(cases ? { cases } : {}),
    ...(exclude ? { exclude } : {}),
    ...(shard ? { shard } : {}),
  };
  const reportsDir = oneString(args['reports'], '--reports');
  const reports: ReportPaths = {
    ...(reportsDir !== undefined
      ? { junit: join(reportsDir, REPORT_FILES.junit), json: join(reportsDir, REPORT_FILES.json), html: join(reportsDir, REPORT_FILES.html), markdown: join(reportsDir, REPORT_FILES.markdown) }
      : {}),
  };
  for (const format of FORMATS) {
    // yargs-parser reads a lone "-" as "" (or true): that is standard output.
    const given = args[format] === '' || args[format] === true ? STDOUT : args[format];
    const path = oneString(given, `--${format}`);
    if (path !== undefined) reports[format] = path;
  }
  const toStdout = FORMATS.filter((format) => reports[format] === STDOUT);
  if (toStdout.length > 1) throw new CliUsageError(`--${toStdout[1]}`, `only one report can go to standard output ("-"); --${toStdout[0]} already does`);
  if (list) {
    for (const format of ['junit', 'html', 'markdown'] as const) {
      if (args[format] !== undefined) throw new CliUsageError(`--${format}`, 'has no meaning with --list (the list is written as JSON with --json FILE or --json -)');
    }
    if (reportsDir !== undefined) throw new CliUsageError('--reports', 'has no meaning with --list (the list is written as JSON with --json FILE or --json -)');
  }
  const workers = oneNumber(args['workers'], '--workers', (n) => Number.isInteger(n) && n >= 1 && n <= 256, 'an integer from 1 to 256');
  const timeoutScale = oneNumber(args['timeout-scale'], '--timeout-scale', (n) => Number.isFinite(n) && n > 0 && n <= 1000, 'a positive number (e.g. 2.5)') ?? 1;
  const seed = oneNumber(args['seed'], '--seed', (n) => Number.isSafeInteger(n), 'an integer');
  const path = oneString(args['path'], '--path');
  if (path !== undefined && seed === undefined) throw new CliUsageError('--path', 'replays a fast-check counterexample and needs --seed');
  const keptMessageBytes = oneNumber(args['kept-message-bytes'], '--kept-message-bytes', (n) => Number.isSafeInteger(n) && n >= 0, 'a whole number of bytes (0 or more)');
  const baselineFile = oneString(args['baseline'], '--baseline');
  const failOnStale = args['fail-on-stale'] === true;
  if (failOnStale && baselineFile === undefined) throw new CliUsageError('--fail-on-stale', 'needs --baseline (it fails the run on the stale entries of a baseline)');
  return {
    list,
    filters,
    strict: args['strict'] === true,
    ...(baselineFile !== undefined ? { baselineFile } : {}),
    failOnStale,
    reports,
    ...(workers !== undefined ? { workers } : {}),
    timeoutScale,
    ...(seed !== undefined ? { seed } : {}),
    ...(path !== undefined ? { path } : {}),
    ...(keptMessageBytes !== undefined ? { keptMessageBytes } : {}),
  };
}

/** The `format` of `--list --json`. */
export const CASE_LIST_FORMAT = 'mcp-flow-conformance/case-list';

/** `--list --json`: the selected cases as JSON (ID, suite, title, requirement IDs, level, time limit). */
export function listCasesJson(registry: CaseRegistry, filters: CaseFilters): string {
  const { selected } = selectCases(registry.list(), filters);
  const cases = selected.map((c) => ({ id: c.id, suite: c.suite, title: c.title, requirements: [...c.requirements], level: c.level, timeLimitMs: c.timeLimitMs }));
  return `${JSON.stringify({ format: CASE_LIST_FORMAT, version: 1, registered: registry.size, cases }, null, 2)}\n`;
}

/** `--list`: one line per selected case (ID, suite, requirement IDs, title), then the count. */
export function listCases(registry: CaseRegistry, filters: CaseFilters): string {
  const { selected } = selectCases(registry.list(), filters);
  const width = Math.max(...selected.map((c) => c.id.length));
  const suiteWidth = Math.max(...selected.map((c) => c.suite.length));
  const lines = selected.map((c) => `${c.id.padEnd(width)}  ${c.suite.padEnd(suiteWidth)}  ${c.requirements.join(',')}  ${c.title}`);
  lines.push(`${selected.length} case(s) of ${registry.size}`);
  return lines.join('\n');
}

/**
 * Every server case, loaded on first use: the suites are a large module graph that the other
 * commands (a stdio mock server started once per case, above all) should not pay for.
 */
export async function loadServerRegistry(): Promise<CaseRegistry> {
  const { serverRegistry } = await import('../../../suites/server/index.js');
  return serverRegistry();
}

/** Errors that are the user's or the harness's, never the target's: one line, exit 2. */
export function isUsageOrHarnessError(error: unknown): error is Error {
  return error instanceof CliUsageError || error instanceof HarnessError || error instanceof ReportError || error instanceof ProtocolError || error instanceof ConnectionError;
}

export interface ServerRunHooks {
  /** The registry to run (default: every server suite). */
  registry?: CaseRegistry;
  /** Receives the finished run (the self-test and the benchmark read it). */
  onResult?: (result: RunResult) => void;
  /** Starts a `--stdio` server for each case instead of spawning its command (the self-test's in-process mock). */
  launchStdio?: StdioLaunch;
}

/** Runs the command; `hooks` let other commands reuse it with their own registry or result handling. */
export async function runServer(args: Record<string, unknown>, io: CliIo, hooks: ServerRunHooks = {}): Promise<number> {
  let config: LoadedConfig | undefined;
  const parse = () => {
    config = loadConfig(oneString(args['config'], '--config'), io.cwd ?? process.cwd());
    return parseServerArgs(mergeConfig(args, config));
  };
  const prepared = await prepareRun(io, parse, async () => hooks.registry ?? (await loadServerRegistry()));
  if (typeof prepared === 'number') return prepared;
  const { plan, registry, baseline } = prepared;
  const spec = plan.target!;
  return executeRun(io, {
    plan,
    registry,
    target: serverTarget(spec, plan.keptMessageBytes, hooks.launchStdio),
    banner: `testing ${spec.location} over ${spec.transport}${spec.transport === 'stdio' && hooks.launchStdio !== undefined ? ' (served in this process, on pipes)' : ''}${config === undefined ? '' : ` (settings from ${config.file})`}`,
    command: 'server',
    ...(baseline !== undefined ? { baseline } : {}),
    ...(hooks.onResult !== undefined ? { onResult: hooks.onResult } : {}),
  });
}

/**
 * The steps before a run: parse the options, load the registry, answer --list, check the filters
 * (so a bad one is the only line shown) and read the baseline. Returns the exit code when the
 * command is already done (--list, or an error printed as one line).
 */
export async function prepareRun<P extends RunPlan>(
  io: CliIo,
  parse: () => P,
  loadRegistry: () => Promise<CaseRegistry>,
): Promise<{ plan: P; registry: CaseRegistry; baseline: Baseline | undefined } | number> {
  try {
    const plan = parse();
    const registry = await loadRegistry();
    if (plan.list) {
      const json = plan.reports.json;
      if (json === undefined) io.out(listCases(registry, plan.filters));
      else if (json === STDOUT) io.out(listCasesJson(registry, plan.filters));
      else {
        await writeTextFile(json, listCasesJson(registry, plan.filters), 'case list');
        io.out(`case list: ${resolve(json)}`);
      }
      return ExitCode.ok;
    }
    selectCases(registry.list(), plan.filters);
    const baseline = plan.baselineFile !== undefined ? readBaseline(plan.baselineFile, (id) => registry.has(id)) : undefined;
    return { plan, registry, baseline };
  } catch (error) {
    if (!isUsageOrHarnessError(error)) throw error;
    io.err(`error: ${error.message}`);
    return ExitCode.usage;
  }
}

/** The report path that means standard output (`--json -`). */
export const STDOUT = '-';

async function writeTextFile(path: string, text: string, what: string): Promise<void> {
  try {
    await mkdir(dirname(resolve(path)), { recursive: true });
    await writeFile(path, text, 'utf8');
  } catch (error) {
    throw new ReportWriteError(what, path, error);
  }
}

export interface PlannedRun {
  plan: RunPlan;
  registry: CaseRegistry;
  target: Target;
  /** The first line printed ("testing ... over ..."). */
  banner: string;
  /** The CLI command rerun commands start with. */
  command: string;
  baseline?: Baseline;
  onResult?: (result: RunResult) => void;
}

/** Runs a checked plan: live console output, the reports, the counts line last; returns the exit code. */
export async function executeRun(givenIo: CliIo, run: PlannedRun): Promise<number> {
  const { plan } = run;
  // A report written to standard output (`--json -`) is all that goes there: the console output
  // moves to standard error, so the report can be piped.
  const stdoutReport = FORMATS.find((format) => plan.reports[format] === STDOUT);
  const io: CliIo = stdoutReport === undefined ? givenIo : { ...givenIo, out: givenIo.err, terminal: undefined };
  const out = consoleOutput(io);
  // The error of a run that stops is printed once, as the error line below.
  const reporter = new ConsoleReporter({ out, strict: plan.strict, printRunError: false, ...(io.env !== undefined ? { env: io.env } : {}) });
  const options: RunOptions = {
    registry: run.registry,
    target: run.target,
    filters: plan.filters,
    ...(plan.workers !== undefined ? { workers: plan.workers } : {}),
    timeoutScale: plan.timeoutScale,
    strict: plan.strict,
    ...(run.baseline !== undefined ? { baseline: run.baseline } : {}),
    ...(plan.failOnStale ? { failOnStale: true } : {}),
    ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
    ...(plan.path !== undefined ? { path: plan.path } : {}),
    ...(plan.keptMessageBytes !== undefined ? { maxMessageBytes: plan.keptMessageBytes } : {}),
    command: run.command,
    // run-end is shown after the reports are written, so the counts line stays the last line.
    onEvent: (event) => {
      if (event.type !== 'run-end') reporter.handle(event);
    },
  };
  const startedAt = Date.now();
  // Ctrl-C stops the run: no case starts, the running ones are aborted, the reports hold what
  // finished (the rest SKIPPED "interrupted"), exit 130. A second Ctrl-C quits at once.
  const interruption = new AbortController();
  const stopListening = io.onInterrupt?.(() => {
    if (interruption.signal.aborted) return;
    io.err('interrupted: stopping the run; the reports will hold what finished (Ctrl-C again quits at once)');
    interruption.abort();
  });
  options.signal = interruption.signal;
  let result: RunResult;
  try {
    io.out(`${run.banner}${plan.strict ? ' (strict: warnings fail)' : ''}`);
    result = await runConformance(options);
  } catch (error) {
    stopListening?.();
    out.flush();
    if (!isUsageOrHarnessError(error)) throw error;
    io.err(`error: ${error.message}`);
    // The reports asked for are still written (a run-level error, no case), so a CI step that
    // uploads them finds them and shows why the run stopped.
    await writeRunReports(io, out, stoppedRunResult(options, error, startedAt), plan, givenIo.out);
    out.flush();
    return ExitCode.usage;
  }
  run.onResult?.(result);
  let exitCode: number = result.interrupted ? ExitCode.interrupted : result.exitCode;
  if (!(await writeRunReports(io, out, result, plan, givenIo.out))) exitCode = ExitCode.usage;
  stopListening?.();
  reporter.handle({ type: 'run-end', result });
  out.flush();
  return exitCode;
}

/**
 * Writes the reports a plan asks for, a line each, and the one asked for on standard output
 * (`-`) to `stdout`; false (after an error line) when one cannot be written.
 */
async function writeRunReports(io: CliIo, out: ReturnType<typeof consoleOutput>, result: RunResult, plan: RunPlan, stdout: (text: string) => void): Promise<boolean> {
  const files: ReportPaths = {};
  const render: Record<(typeof FORMATS)[number], (run: RunResult, options: { strict: boolean }) => string> = {
    junit: renderJUnit,
    json: (run) => renderJson(run),
    html: renderHtml,
    markdown: renderMarkdown,
  };
  for (const format of FORMATS) {
    const path = plan.reports[format];
    if (path === undefined) continue;
    if (path !== STDOUT) files[format] = path;
    else stdout(render[format](result, { strict: plan.strict }));
  }
  try {
    for (const written of await writeReports(result, files, { strict: plan.strict })) {
      out.write(`${written.format} report: ${written.path}\n`);
    }
    return true;
  } catch (error) {
    if (!(error instanceof ReportError)) throw error;
    io.err(`error: ${error.message}`);
    return false;
  }
}

/** The yargs options every conformance run has (parsed by parseRunArgs); `describe` words the two that differ per command. */
export function runOptions(describe: { workers: string; timeoutScale: string }): Record<string, import('yargs').Options> {
  return {
    suite: { type: 'string', array: true, describe: 'only these suites (repeatable or comma-separated)' },
    case: { type: 'string', array: true, describe: 'only cases whose ID matches a glob (* within a segment, ** across)' },
    exclude: { type: 'string', array: true, describe: 'leave out cases whose ID matches a glob' },
    shard: { type: 'string', describe: 'run shard i of n (e.g. 2/4) for CI matrices' },
    strict: { type: 'boolean', describe: 'a broken SHOULD (WARN) fails the run' },
    baseline: { type: 'string', describe: 'JSON file of expected failures {"version":1,"expectedFailures":{caseId: reason}}' },
    'fail-on-stale': { type: 'boolean', describe: 'a baseline entry whose case now passes (stale) fails the run' },
    junit: { type: 'string', describe: 'write a JUnit XML report to this path ("-": standard output)' },
    json: { type: 'string', describe: 'write the JSON report (everything) to this path ("-": standard output); with --list, the case list' },
    html: { type: 'string', describe: 'write a self-contained HTML report to this path ("-": standard output)' },
    markdown: { type: 'string', describe: 'write a Markdown summary (counts, failing cases with their rerun commands) for CI job summaries ("-": standard output)' },
    reports: { type: 'string', describe: `write every report into this folder (${Object.values(REPORT_FILES).join(', ')})` },
    workers: { type: 'number', describe: describe.workers },
    'timeout-scale': { type: 'number', describe: describe.timeoutScale },
    seed: { type: 'number', describe: 'fast-check seed (from a failure report) to replay generated input' },
    path: { type: 'string', describe: 'fast-check path of one counterexample (with --seed and one --case)' },
    'kept-message-bytes': { type: 'number', describe: 'bytes of each message kept in transcripts and reports (default 65536); a larger one is kept as its size, SHA-256 and first bytes' },
    list: { type: 'boolean', describe: 'list the selected cases with their suite and requirement IDs, and exit' },
  };
}

export const serverCommand: CliCommand = {
  command: 'server',
  describe: 'run the server conformance suites against your server (WebTransport URL, Streamable HTTP URL or a stdio command)',
  builder: (yargs) =>
    yargs
      .usage(
        '$0 server --url https://host:port/path            WebTransport\n' +
          '$0 server --url http://host/mcp                   Streamable HTTP (https: add --transport http)\n' +
          '$0 server --stdio "node my-server.js"             stdio, one process per case',
      )
      .option('url', { type: 'string', describe: 'server URL: https: is WebTransport unless --transport http; http: is Streamable HTTP' })
      .option('stdio', { type: 'string', describe: 'command line that starts the server on stdio (spawned once per case)' })
      .option('transport', { type: 'string', describe: 'webtransport or http (default from the URL scheme)' })
      .option('header', { type: 'string', array: true, describe: '"Name: value" sent with every Streamable HTTP request (repeatable; left out of rerun commands)' })
      .option('ca', { type: 'string', describe: 'PEM CA file to verify the server certificate against' })
      .option('certificate-hash', { alias: 'cert-hash', type: 'string', describe: 'pinned SHA-256 of the WebTransport server certificate (64 hex digits)' })
      .option('http', { type: 'number', describe: 'HTTP version under WebTransport: 2 (default) or 3' })
      .option('protocol-version', { type: 'string', describe: 'MCP protocol version to ask for in initialize (default: the latest)' })
      .option('interactive-tool', { type: 'string', array: true, describe: 'an MCP Flow tool to test (repeatable); default: tools that accept interaction.start' })
      .option('config', { type: 'string', describe: `JSON file of settings (url, headers, suites, exclude, baseline, reports...); default ./${CONFIG_FILE} when present; the command line wins` })
      .options(runOptions({ workers: 'cases run at the same time (default 4; 8 over --stdio, where each case first waits on its own process to start)', timeoutScale: 'multiply every time limit (slow CI machines), e.g. 3' })),
  run: (args, io) => runServer(args, io),
};
