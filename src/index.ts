// The library API: run the conformance suites from code and get the structured result, plus what a
// user needs around it (result types, targets, the case registry, the mock server, reports).
//
//   import { runServerConformance, runClientConformance } from 'mcp-flow-conformance';
//   const result = await runServerConformance({ url: 'http://127.0.0.1:3000/mcp', suites: ['mcp-core'] });
//   if (result.exitCode !== 0) ...
//   const judged = await runClientConformance({ command: 'node my-client.js', transport: 'http' });
//
// Options are named after the `server` command's (`--certificate-hash` is `certificateHash`);
// a value that cannot be used throws ConformanceOptionsError naming the option. What the target
// does never throws: it ends up in the result, as with the CLI.
import { parseServerTarget, serverTarget } from './harness/server-target.js';
import { splitCommandLine } from './transport/stdio/index.js';
import {
  clientTarget,
  HarnessError,
  parseBaseline,
  parseShard,
  readBaseline,
  runConformance,
  PreflightFailedError,
  stoppedRunResult,
  TargetOptionError,
  TargetUnreachableError,
  type Baseline,
  type CaseFilters,
  type CaseRegistry,
  type RunEvent,
  type RunOptions,
  type RunResult,
  type Shard,
  type Target,
} from './harness/index.js';
import { ConsoleReporter, writeReports, type ReportListener, type ReportPaths } from './report/index.js';

// ---------------------------------------------------------------------------------------------
// Options

/** A live reporter: `'console'` (the CLI's output, on stdout), a ReportListener, or a function. */
export type ConformanceReporter = 'console' | ReportListener | ((event: RunEvent) => void);

/** What any conformance run takes, whichever side is tested (server now; the client twin too). */
export interface ConformanceRunOptions {
  /** Only cases of these suites (`--suite`). */
  suites?: string | readonly string[];
  /** Only cases whose ID matches one of these globs (`--case`). */
  cases?: string | readonly string[];
  /** Leave out cases whose ID matches one of these globs (`--exclude`). */
  exclude?: string | readonly string[];
  /** One of n stable shards: `'2/4'` or `{ index: 2, count: 4 }` (`--shard`). */
  shard?: string | Shard;
  /** Expected failures: a baseline object, or the path of a baseline JSON file (`--baseline`). */
  baseline?: Baseline | string;
  /** A broken SHOULD (WARN) fails (`--strict`). */
  strict?: boolean;
  /** A baseline entry whose case now passes (stale) fails the run (`--fail-on-stale`). */
  failOnStale?: boolean;
  /** Multiplies every time limit (`--timeout-scale`). Default 1. */
  timeoutScale?: number;
  /** Cases run at the same time (`--workers`). Default 4; 8 over stdio (a process per case). */
  workers?: number;
  /** fast-check seed to replay (`--seed`); with `path` and one case, one counterexample (`--path`). */
  seed?: number;
  path?: string;
  /** Live reporters, each given every run event. Default none. */
  reporters?: readonly ConformanceReporter[];
  /** Report files written once the run ended (`--junit`, `--json`, `--html`). */
  reports?: ReportPaths;
  /** The cases to run instead of the shipped suites (your own cases, or a registry you filtered). */
  registry?: CaseRegistry;
}

/** The server under test: exactly one of `url`, `stdio` or `target`, with the options that reach it. */
export interface ServerTargetOptions {
  /** `https:` is WebTransport unless `transport: 'http'`; `http:` is Streamable HTTP. */
  url?: string;
  /** A command line started once per case, speaking MCP over its stdin and stdout. */
  stdio?: string;
  /** A target built with webTransportTarget, httpTarget, stdioTarget or connectionTarget. */
  target?: Target;
  /** For `url`: `webtransport` or `http` (default from the scheme). */
  transport?: 'webtransport' | 'http';
  /** Headers sent with every Streamable HTTP request (left out of rerun commands). */
  headers?: Readonly<Record<string, string>>;
  /** PEM file of the CA that signed the server's certificate. */
  caFile?: string;
  /** Pinned SHA-256 of a WebTransport server certificate, 64 hex digits. */
  certificateHash?: string;
  /** HTTP version under WebTransport. Default 2. */
  http?: 2 | 3;
  /** MCP protocol version asked for in initialize. Default the latest. */
  protocolVersion?: string;
  /** The MCP Flow tools to test. Default: every listed tool that accepts interaction.start. */
  interactiveTools?: readonly string[];
}

export interface ServerConformanceOptions extends ServerTargetOptions, ConformanceRunOptions {}

/** An option of the library API that cannot be used; `option` names it as the options object spells it. */
export class ConformanceOptionsError extends HarnessError {
  readonly option: string;
  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super('CONFORMANCE_OPTIONS_INVALID', `${option}: ${message}`, options);
    this.option = option;
  }
}

/** The option names every run takes (runServerConformance, runClientConformance, defineConformanceTests). */
export const RUN_OPTION_KEYS = [
  'suites',
  'cases',
  'exclude',
  'shard',
  'baseline',
  'strict',
  'failOnStale',
  'timeoutScale',
  'workers',
  'seed',
  'path',
  'reporters',
  'reports',
  'registry',
] as const satisfies readonly (keyof ConformanceRunOptions)[];

const SERVER_TARGET_KEYS = [
  'url',
  'stdio',
  'target',
  'transport',
  'headers',
  'caFile',
  'certificateHash',
  'http',
  'protocolVersion',
  'interactiveTools',
] as const satisfies readonly (keyof ServerTargetOptions)[];

/** The `server` command's option -> this API's option, for errors raised by the shared target checks. */
const CLI_OPTION_NAMES: Readonly<Record<string, string>> = {
  server: 'url',
  '--url': 'url',
  '--stdio': 'stdio',
  '--transport': 'transport',
  '--header': 'headers',
  '--ca': 'caFile',
  '--certificate-hash': 'certificateHash',
  '--http': 'http',
  '--protocol-version': 'protocolVersion',
  '--interactive-tool': 'interactiveTools',
};

function checkKnownKeys(options: object, known: readonly string[], what: string): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConformanceOptionsError('options', `${what} takes an options object`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new ConformanceOptionsError(key, `is not an option of ${what} (known: ${known.join(', ')})`);
  }
}

function stringList(value: unknown, option: string): string[] | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === 'string' ? [value] : Array.isArray(value) ? (value as unknown[]) : undefined;
  if (items === undefined || items.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw new ConformanceOptionsError(option, 'must be a non-empty string or an array of non-empty strings');
  }
  return items as string[];
}

/** The case filters the run options name (shared with the client twin). */
export function conformanceFilters(options: ConformanceRunOptions): CaseFilters {
  const suites = stringList(options.suites, 'suites');
  const cases = stringList(options.cases, 'cases');
  const exclude = stringList(options.exclude, 'exclude');
  let shard: Shard | undefined;
  if (typeof options.shard === 'string') {
    try {
      shard = parseShard(options.shard);
    } catch (error) {
      throw new ConformanceOptionsError('shard', `${JSON.stringify(options.shard)} is not of the form i/n with 1 <= i <= n (e.g. '2/4')`, { cause: error });
    }
  } else if (options.shard !== undefined) {
    const { index, count } = options.shard;
    if (!Number.isInteger(index) || !Number.isInteger(count) || index < 1 || index > count) {
      throw new ConformanceOptionsError('shard', `{ index: ${String(index)}, count: ${String(count)} } is not a shard (1 <= index <= count, integers)`);
    }
    shard = { index, count };
  }
  return {
    ...(suites ? { suites } : {}),
    ...(cases ? { cases } : {}),
    ...(exclude ? { exclude } : {}),
    ...(shard ? { shard } : {}),
  };
}

/** The baseline option: an object is checked as a baseline file would be; a string is read as one. */
export function conformanceBaseline(baseline: ConformanceRunOptions['baseline'], registry: CaseRegistry): Baseline | undefined {
  if (baseline === undefined) return undefined;
  const known = (id: string) => registry.has(id);
  return typeof baseline === 'string' ? readBaseline(baseline, known) : parseBaseline(baseline, undefined, known);
}

/** The server target the options name (exactly one of url, stdio, target). */
export function resolveServerTarget(options: ServerTargetOptions): Target {
  const given = (['url', 'stdio', 'target'] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw new ConformanceOptionsError(
      given[1] ?? 'url',
      given.length === 0 ? 'name the server under test with url, stdio or target' : `give one of url, stdio and target, not ${given.join(' and ')}`,
    );
  }
  if (options.target !== undefined) {
    const target = options.target as Partial<Target>;
    if (typeof target.connect !== 'function' || typeof target.discover !== 'function' || typeof target.describe !== 'function') {
      throw new ConformanceOptionsError('target', 'must be a Target (from webTransportTarget, httpTarget, stdioTarget or connectionTarget)');
    }
    const extra = SERVER_TARGET_KEYS.filter((key) => key !== 'target' && options[key] !== undefined);
    if (extra.length > 0) throw new ConformanceOptionsError(extra[0]!, 'applies to url and stdio; a target carries its own connection options');
    return options.target;
  }
  if (options.headers !== undefined && (typeof options.headers !== 'object' || options.headers === null || Array.isArray(options.headers))) {
    throw new ConformanceOptionsError('headers', 'must be an object of header names to values');
  }
  const interactiveTools = options.interactiveTools === undefined ? undefined : stringList(options.interactiveTools, 'interactiveTools');
  try {
    return serverTarget(
      parseServerTarget({
        ...(options.url !== undefined ? { url: options.url } : {}),
        ...(options.stdio !== undefined ? { stdio: options.stdio } : {}),
        ...(options.transport !== undefined ? { transport: options.transport } : {}),
        ...(options.headers !== undefined ? { header: Object.entries(options.headers).map(([name, value]) => `${name}: ${String(value)}`) } : {}),
        ...(options.caFile !== undefined ? { ca: options.caFile } : {}),
        ...(options.certificateHash !== undefined ? { certificateHash: options.certificateHash } : {}),
        ...(options.http !== undefined ? { http: options.http } : {}),
        ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
        ...(interactiveTools !== undefined ? { interactiveTool: interactiveTools } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof TargetOptionError)) throw error;
    const option = CLI_OPTION_NAMES[error.option] ?? error.option;
    throw new ConformanceOptionsError(option, error.detail, { cause: error });
  }
}

function listener(reporter: ConformanceReporter, index: number): (event: RunEvent) => void {
  if (reporter === 'console') return new ConsoleReporter({ out: process.stdout }).handle;
  if (typeof reporter === 'function') return reporter;
  if (typeof reporter === 'object' && reporter !== null && typeof reporter.handle === 'function') return (event) => reporter.handle(event);
  throw new ConformanceOptionsError(`reporters[${index}]`, "must be 'console', a function or an object with a handle(event) method");
}

/** Every server case shipped with the package, loaded on first use (a large module graph). */
export async function serverCaseRegistry(): Promise<CaseRegistry> {
  const { serverRegistry } = await import('../suites/server/index.js');
  return serverRegistry();
}

/** Runs `registry` against `target` with the shared run options; writes the reports asked for. */
export async function runWithOptions(registry: CaseRegistry, target: Target, options: ConformanceRunOptions, command: string): Promise<RunResult> {
  const filters = conformanceFilters(options);
  const baseline = conformanceBaseline(options.baseline, registry);
  const listeners = (options.reporters ?? []).map(listener);
  const runOptions: RunOptions = {
    registry,
    target,
    filters,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.timeoutScale !== undefined ? { timeoutScale: options.timeoutScale } : {}),
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    ...(baseline !== undefined ? { baseline } : {}),
    ...(options.failOnStale !== undefined ? { failOnStale: options.failOnStale } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
    command,
    ...(listeners.length > 0 ? { onEvent: (event: RunEvent) => listeners.forEach((handle) => handle(event)) } : {}),
  };
  const startedAt = Date.now();
  let result: RunResult;
  try {
    result = await runConformance(runOptions);
  } catch (error) {
    // A run that stopped (target unreachable, pre-flight failed) still writes the reports asked
    // for, with the error at run level, then rejects as documented.
    if (options.reports !== undefined && (error instanceof TargetUnreachableError || error instanceof PreflightFailedError)) {
      await writeReports(stoppedRunResult(runOptions, error, startedAt), options.reports, { strict: options.strict ?? false });
    }
    throw error;
  }
  if (options.reports !== undefined) await writeReports(result, options.reports, { strict: options.strict ?? false });
  return result;
}

/**
 * Runs the server conformance suites against a server and resolves with the structured result
 * (every case's verdict, checks, transcript excerpt and rerun command; `exitCode` as the CLI's).
 * Rejects with ConformanceOptionsError for an unusable option and with other HarnessError
 * subclasses for filters that select nothing, a bad baseline or an unreachable target.
 */
export async function runServerConformance(options: ServerConformanceOptions): Promise<RunResult> {
  checkKnownKeys(options, [...SERVER_TARGET_KEYS, ...RUN_OPTION_KEYS], 'runServerConformance');
  const target = resolveServerTarget(options);
  const registry = options.registry ?? (await serverCaseRegistry());
  return runWithOptions(registry, target, options, 'server');
}

/** The client under test, as the `client` command takes it. */
export interface ClientTargetOptionsForRun {
  /** Program and arguments (an array), or one command line split as a shell would; the server URL is appended. */
  command?: string | readonly string[];
  /** A Target of your own instead of `command` (e.g. clientTarget with more options). */
  target?: Target;
  /** `wt` / `webtransport` (default) or `http`. */
  transport?: 'wt' | 'webtransport' | 'http';
  /** HTTP version under WebTransport. Default 2. */
  http?: 2 | 3;
  /** Added to the client's environment. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface ClientConformanceOptions extends ClientTargetOptionsForRun, ConformanceRunOptions {}

const CLIENT_TARGET_KEYS = ['command', 'target', 'transport', 'http', 'env', 'cwd'] as const satisfies readonly (keyof ClientTargetOptionsForRun)[];

/** Every client case shipped with the package, loaded on first use. */
export async function clientCaseRegistry(): Promise<CaseRegistry> {
  const { clientRegistry } = await import('../suites/client/index.js');
  return clientRegistry();
}

/** The Target of `runClientConformance`'s options; throws ConformanceOptionsError naming a bad one. */
export function resolveClientTarget(options: ClientTargetOptionsForRun): Target {
  if ((options.command === undefined) === (options.target === undefined)) {
    throw new ConformanceOptionsError('command', 'give exactly one of command or target');
  }
  if (options.target !== undefined) return options.target;
  let command: string[];
  if (typeof options.command === 'string') {
    try {
      command = splitCommandLine(options.command);
    } catch (error) {
      throw new ConformanceOptionsError('command', (error as Error).message);
    }
  } else if (Array.isArray(options.command) && options.command.every((word) => typeof word === 'string')) command = [...options.command];
  else throw new ConformanceOptionsError('command', 'must be a command line or an array of strings');
  if (command.length === 0) throw new ConformanceOptionsError('command', 'is empty');
  const transport = options.transport ?? 'wt';
  if (transport !== 'wt' && transport !== 'webtransport' && transport !== 'http') throw new ConformanceOptionsError('transport', `must be wt or http, got ${JSON.stringify(transport)}`);
  if (options.http !== undefined && options.http !== 2 && options.http !== 3) throw new ConformanceOptionsError('http', `must be 2 or 3, got ${JSON.stringify(options.http)}`);
  if (options.http === 3 && transport === 'http') throw new ConformanceOptionsError('http', '3 needs transport wt');
  return clientTarget({
    command,
    transport: transport === 'http' ? 'http' : 'webtransport',
    ...(options.http !== undefined ? { http: options.http } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
}

/**
 * Runs the client conformance suites against a client (the harness plays the server; the client
 * is started per case with the server URL appended, docs/client-scenarios.md) and resolves with
 * the structured result, as runServerConformance does for servers.
 */
export async function runClientConformance(options: ClientConformanceOptions): Promise<RunResult> {
  checkKnownKeys(options, [...CLIENT_TARGET_KEYS, ...RUN_OPTION_KEYS], 'runClientConformance');
  const target = resolveClientTarget(options);
  const registry = options.registry ?? (await clientCaseRegistry());
  return runWithOptions(registry, target, options, 'client');
}

// ---------------------------------------------------------------------------------------------
// What users need around it

export {
  VERDICTS,
  countVerdicts,
  type CaseResult,
  type CheckResult,
  type RunResult,
  type Verdict,
  type VerdictCounts,
  type RequirementLevel,
} from './harness/result.js';
export { baselineFromResults, exitCodeFor, parseBaseline, readBaseline, type Baseline } from './harness/baseline.js';
export { CaseRegistry } from './harness/registry.js';
export { defineCase, type ConformanceCase, type Target, type TargetDescription, type Discovery, type CaseContext } from './harness/case.js';
export { selectCases, parseShard, type CaseFilters, type Shard } from './harness/selection.js';
export { runConformance, type RunEvent, type RunOptions } from './harness/runner.js';
export { connectionTarget } from './harness/target.js';
export { clientTarget, answerInitialize, initializeResult, isInitializeRequest, type ClientTargetOptions } from './harness/index.js';
export type { ClientScenario, ClientProcess, ClientExit, CaseSession } from './harness/case.js';
export { webTransportTarget, httpTarget, stdioTarget, type StdioLaunch, type TargetCommonOptions } from './harness/transport-targets.js';
export {
  HarnessError,
  BaselineError,
  InvalidFilterError,
  NoCasesSelectedError,
  PreflightFailedError,
  RunOptionsError,
  TargetUnreachableError,
} from './harness/errors.js';
export {
  startMockServer,
  pipedMockServer,
  mockServerFaultCatalog,
  MockServerOptionError,
  FaultNotServedError,
  UnknownFaultError,
  type StartMockServerOptions,
  type PipedMockServerOptions,
  type RunningMockServer,
  type MockTransport,
} from './peer/server/index.js';
export {
  ConsoleReporter,
  renderConsoleReport,
  renderHtml,
  renderJUnit,
  renderJson,
  renderMarkdown,
  parseJsonReport,
  writeReports,
  ReportError,
  type ReportEvent,
  type ReportListener,
  type ReportPaths,
  type WrittenReport,
} from './report/index.js';
