// Mutation bench (issue 16): a second measure of detection power, independent of the fault
// catalog. It applies simple source mutations to the mock peers' protocol code (bench/mutation/
// sites.ts: a negated comparison, a validation branch or early return never taken, an error code
// swapped, a state transition left out), builds each mutant as its own CLI bundle, runs the
// relevant suites against it (server code: every server suite against `mock-server --transport
// stdio`; client code: every client suite against `mock-client --driver`, over WebTransport then
// Streamable HTTP, the client's transports) and counts a mutant caught when a case that the
// unmutated mock passes (PASS, or INFO naming a reading taken, or NOT_APPLICABLE) gets FAIL, WARN,
// TIMEOUT or ERROR, or when the run's pre-flight refuses it. A survivor's report lists the cases
// whose verdict moved all the same (PASS -> INFO: another accepted reading), to help judge it.
// The sample is drawn, with a seed, from the sites the unmutated runs execute (V8 coverage); the
// sites they never reach are counted apart. Prints the share caught and the survivors by file:line.
// Run: npx tsx bench/mutation.ts [--mutants 100] [--seed 1] [--files 'src/peer/server/**'] [--case glob]
//      [--site file:line:col]... [--workers 4] [--timeout-scale 5] [--json out.json]
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CaseRegistry,
  clientTarget,
  runConformance,
  stdioTarget,
  type CaseResult,
  type ConformanceCase,
  type RunResult,
  type Target,
} from '../src/harness/index.js';
import { shellQuote } from '../src/harness/rerun.js';
import { clientCases } from '../suites/client/index.js';
import { serverCases } from '../suites/server/index.js';
import { bundleWorkspace, type BundleWorkspace } from './mutation/bundle.js';
import { coveredSites } from './mutation/coverage.js';
import { applyMutation, describeSite, findMutationSites, MUTATION_OPERATORS, type MutationSite } from './mutation/sites.js';

export const DEFAULT_FILES = ['src/peer/server/**', 'src/peer/client/**'];
/** Fault catalogs (the code a mutant would only change with a fault on) and re-export files. */
export const DEFAULT_EXCLUDE = ['**/faults.ts', '**/index.ts'];
/** The fast-check seed of every run, so generated input is the same for the mock and its mutants. */
const RUN_SEED = 20261126;
/** Verdicts that catch a mutant on a case the unmutated mock passes (the correct mock never gets them). */
const CATCHING = new Set(['FAIL', 'WARN', 'TIMEOUT', 'ERROR']);

export type PeerRole = 'server' | 'client';
/** A run of one role's suites against a bundle: server over stdio, client over WebTransport or HTTP. */
type RunKind = 'server-stdio' | 'client-wt' | 'client-http';
const RUNS_OF: Record<PeerRole, RunKind[]> = { server: ['server-stdio'], client: ['client-wt', 'client-http'] };

export interface MutationBenchOptions {
  /** The repository root (its src/ is mutated, its suites run). */
  root: string;
  mutants: number;
  seed: number;
  files: string[];
  exclude: string[];
  /** Only cases whose ID matches one of these globs (for quick runs). */
  cases?: string[];
  /** These sites (`file:line:col`) instead of a sample. */
  sites?: string[];
  workers: number;
  timeoutScale: number;
  /** Write every mutant's outcome as JSON. */
  json?: string;
  /**
   * The server's interactive tools, named for every server run as an implementer names its own
   * (`--interactive-tool`): a mutant that refuses interaction.start then fails the Flow cases
   * instead of leaving them NOT_APPLICABLE. Default: those a discovery of the unmutated mock finds.
   */
  interactiveTools?: readonly string[];
  out: (line: string) => void;
}

export type MutantStatus = 'caught' | 'survived' | 'build-error' | 'unstable';

export interface MutantOutcome {
  site: MutationSite;
  status: MutantStatus;
  /** How it was caught (`case/id VERDICT: reason`), or why it did not build, or what was unstable. */
  evidence: string[];
  /** Cases whose verdict moved without catching it (`case/id PASS -> INFO`). */
  moved?: string[];
  durationMs: number;
}

export interface MutationReport {
  files: number;
  sites: number;
  reached: number;
  sampled: number;
  outcomes: MutantOutcome[];
  /** caught / (caught + survived). */
  score: number;
  notReachedByFile: Record<string, number>;
}

/** `*` within a path segment, `**` across segments. */
export function globToRegExp(glob: string): RegExp {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      pattern += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') pattern += '[^/]*';
    else pattern += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

function listFiles(root: string, folder: string): string[] {
  const absolute = join(root, folder);
  return readdirSync(absolute).flatMap((name) => {
    const path = join(folder, name);
    return statSync(join(root, path)).isDirectory() ? listFiles(root, path) : [path.split('\\').join('/')];
  });
}

/** The mock peers' TypeScript files the globs select. */
export function selectFiles(root: string, files: readonly string[], exclude: readonly string[]): string[] {
  const include = files.map(globToRegExp);
  const leave = exclude.map(globToRegExp);
  const all = [...listFiles(root, 'src/peer/server'), ...listFiles(root, 'src/peer/client')].filter((f) => f.endsWith('.ts'));
  return all.filter((f) => include.some((r) => r.test(f)) && !leave.some((r) => r.test(f))).sort();
}

export function roleOf(file: string): PeerRole {
  return file.startsWith('src/peer/client/') ? 'client' : 'server';
}

/** mulberry32: a small seeded generator, so a sample is the same for the same seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` items drawn without replacement, in a seeded order. */
export function sample<T>(items: readonly T[], count: number, seed: number): T[] {
  const copy = [...items];
  const next = random(seed);
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}

function oneLine(text: string | undefined, max = 160): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/** The suites of one run, the cases that caught most mutants so far first (so a run stops early). */
function registryFor(kind: RunKind, caseGlobs: readonly RegExp[] | undefined, catches: Map<string, number>, only?: ReadonlySet<string>): CaseRegistry {
  const role: PeerRole = kind === 'server-stdio' ? 'server' : 'client';
  const registry = new CaseRegistry(undefined, { role });
  const all: ConformanceCase[] = role === 'server' ? serverCases() : clientCases();
  const chosen = all.filter((c) => (!caseGlobs || caseGlobs.some((r) => r.test(c.id))) && (!only || only.has(c.id)));
  const order = new Map(chosen.map((c, i) => [c.id, i]));
  chosen.sort((a, b) => (catches.get(b.id) ?? 0) - (catches.get(a.id) ?? 0) || order.get(a.id)! - order.get(b.id)!);
  registry.registerAll(chosen);
  return registry;
}

function targetFor(kind: RunKind, bundle: string, coverageDir?: string, interactiveTools?: readonly string[]): Target {
  const env = coverageDir !== undefined ? ['env', `NODE_V8_COVERAGE=${coverageDir}`] : [];
  if (kind === 'server-stdio') {
    const command = [...env, process.execPath, bundle, 'mock-server', '--transport', 'stdio'].map(shellQuote).join(' ');
    return stdioTarget(command, interactiveTools !== undefined ? { interactiveTools } : {});
  }
  return clientTarget({ command: [...env, process.execPath, bundle, 'mock-client', '--driver'], transport: kind === 'client-wt' ? 'webtransport' : 'http' });
}

interface RunOutcome {
  result?: RunResult;
  /** The run stopped before any case (pre-flight refused the target, discovery failed...). */
  error?: string;
}

/** One run; `stopWhen` aborts it at the first case result it returns true for. */
async function runSuites(
  kind: RunKind,
  bundle: string,
  options: MutationBenchOptions,
  registry: CaseRegistry,
  extra: { coverageDir?: string; stopWhen?: (c: CaseResult) => boolean } = {},
): Promise<RunOutcome> {
  const stop = new AbortController();
  try {
    const result = await runConformance({
      registry,
      target: targetFor(kind, bundle, extra.coverageDir, options.interactiveTools),
      workers: options.workers,
      timeoutScale: options.timeoutScale,
      seed: RUN_SEED,
      command: kind === 'server-stdio' ? 'server' : 'client',
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type === 'case-end' && extra.stopWhen?.(event.result)) stop.abort();
      },
    });
    return { result };
  } catch (error) {
    return { error: oneLine(error instanceof Error ? `${error.name}: ${error.message}` : String(error)) };
  }
}

export async function runMutationBench(options: MutationBenchOptions): Promise<MutationReport> {
  const { root, out } = options;
  const began = performance.now();
  const files = selectFiles(root, options.files, options.exclude);
  if (files.length === 0) throw new Error(`no file of src/peer/server or src/peer/client matches ${options.files.join(', ')}`);
  const sources = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
  const sites = files.flatMap((f) => findMutationSites(f, sources.get(f)!));
  const roles = [...new Set(files.map(roleOf))];
  const caseGlobs = options.cases?.map(globToRegExp);
  out(`mutation bench: ${files.length} file(s), ${sites.length} mutation site(s) (${MUTATION_OPERATORS.map((op) => `${sites.filter((s) => s.operator === op).length} ${op}`).join(', ')})`);

  const workspace: BundleWorkspace = bundleWorkspace(root);
  try {
    // The unmutated runs: which cases PASS, and which sites they execute.
    const coverageDir = join(workspace.dir, 'coverage');
    mkdirSync(coverageDir);
    const original = await workspace.build('original', undefined, { sourcemap: true });
    if (roles.includes('server') && options.interactiveTools === undefined) {
      const discovery = await targetFor('server-stdio', original).discover(new AbortController().signal);
      options = { ...options, interactiveTools: discovery.interactiveTools ?? [] };
      out(`interactive tools named for every server run: ${options.interactiveTools!.join(', ') || 'none'}`);
    }
    const baseline = new Map<RunKind, Map<string, string>>();
    for (const role of roles) {
      for (const kind of RUNS_OF[role]) {
        const run = await runSuites(kind, original, options, registryFor(kind, caseGlobs, new Map()), { coverageDir });
        if (!run.result) throw new Error(`the unmutated ${kind} run stopped: ${run.error}`);
        const pass = run.result.cases.filter((c) => c.verdict === 'PASS');
        const bad = run.result.cases.filter((c) => CATCHING.has(c.verdict));
        baseline.set(kind, new Map(run.result.cases.map((c) => [c.id, c.verdict])));
        out(`unmutated ${kind}: ${run.result.cases.length} cases, ${pass.length} PASS, ${run.result.cases.filter((c) => c.verdict === 'INFO').length} INFO${bad.length > 0 ? `, ${bad.length} not PASS/INFO/N/A (${bad.map((c) => `${c.id} ${c.verdict}`).join(', ')})` : ''}`);
      }
    }
    const covered = coveredSites(root, original, coverageDir, sites);
    rmSync(coverageDir, { recursive: true, force: true });
    const reachedSites = sites.filter((_, i) => covered[i]);
    const notReachedByFile: Record<string, number> = {};
    sites.forEach((s, i) => {
      if (!covered[i]) notReachedByFile[s.file] = (notReachedByFile[s.file] ?? 0) + 1;
    });
    const chosen = options.sites ? pickSites(sites, options.sites) : sample(reachedSites, options.mutants, options.seed);
    out(`${reachedSites.length} of ${sites.length} sites are executed by the unmutated runs; ${options.sites ? `${chosen.length} mutant(s) named` : `${chosen.length} mutant(s) sampled with seed ${options.seed}`}`);

    const catches = new Map<string, number>();
    const outcomes: MutantOutcome[] = [];
    // Ctrl-C (or SIGTERM) after a long while: the mutant under way finishes, the summary covers what was judged.
    let stopping = false;
    const stop = () => {
      if (!stopping) out('stopping: the figures will cover the mutants judged so far (again to quit at once)');
      else process.exit(130);
      stopping = true;
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
    for (const [index, site] of chosen.entries()) {
      if (stopping) break;
      const started = performance.now();
      const outcome = await judgeMutant(site, sources.get(site.file)!, workspace, original, baseline, catches, caseGlobs, options);
      outcome.durationMs = performance.now() - started;
      outcomes.push(outcome);
      const notes = [...outcome.evidence.slice(0, 2), ...(outcome.moved && outcome.moved.length > 0 ? [`moved: ${outcome.moved.slice(0, 6).join(', ')}`] : [])];
      out(`[${index + 1}/${chosen.length}] ${outcome.status.toUpperCase().padEnd(11)} ${describeSite(site)}${notes.length > 0 ? `\n      ${notes.join('\n      ')}` : ''}`);
    }
    process.off('SIGINT', stop).off('SIGTERM', stop);
    const caught = outcomes.filter((o) => o.status === 'caught').length;
    const survived = outcomes.filter((o) => o.status === 'survived');
    const score = caught + survived.length > 0 ? caught / (caught + survived.length) : 0;
    const report: MutationReport = { files: files.length, sites: sites.length, reached: reachedSites.length, sampled: outcomes.length, outcomes, score, notReachedByFile };
    printSummary(report, out, performance.now() - began);
    if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    workspace.dispose();
  }
}

async function judgeMutant(
  site: MutationSite,
  text: string,
  workspace: BundleWorkspace,
  original: string,
  baseline: Map<RunKind, Map<string, string>>,
  catches: Map<string, number>,
  caseGlobs: readonly RegExp[] | undefined,
  options: MutationBenchOptions,
): Promise<MutantOutcome> {
  let bundle: string;
  try {
    bundle = await workspace.build(`m-${site.start}-${site.operator}`, { file: site.file, text: applyMutation(text, site) });
  } catch (error) {
    return { site, status: 'build-error', evidence: [oneLine(error instanceof Error ? error.message : String(error))], durationMs: 0 };
  }
  const moved: string[] = [];
  try {
    for (const kind of RUNS_OF[roleOf(site.file)]) {
      const before = baseline.get(kind)!;
      const catching = (c: CaseResult) => before.has(c.id) && !CATCHING.has(before.get(c.id)!) && CATCHING.has(c.verdict);
      const run = await runSuites(kind, bundle, options, registryFor(kind, caseGlobs, catches), { stopWhen: catching });
      if (!run.result) return { site, status: 'caught', evidence: [`${kind}: the run stopped before its cases: ${run.error}`], durationMs: 0 };
      const caughtBy = run.result.cases.filter(catching);
      if (caughtBy.length === 0) {
        for (const c of run.result.cases) if (before.get(c.id) !== c.verdict && c.verdict !== 'SKIPPED') moved.push(`${c.id} ${before.get(c.id)} -> ${c.verdict}`);
        continue;
      }
      // Only a deadline missed? Make sure the unmutated mock meets it when run the same way now.
      if (caughtBy.every((c) => c.verdict === 'TIMEOUT' || c.verdict === 'ERROR')) {
        const ids = new Set(caughtBy.map((c) => c.id));
        const again = await runSuites(kind, original, options, registryFor(kind, caseGlobs, new Map(), ids));
        const stillBad = again.result?.cases.filter((c) => CATCHING.has(c.verdict)) ?? [];
        if (!again.result || stillBad.length > 0) {
          return { site, status: 'unstable', evidence: caughtBy.map((c) => `${kind}: ${c.id} ${c.verdict} (the unmutated mock too, re-run now: ${stillBad.map((b) => b.verdict).join(', ') || again.error})`), durationMs: 0 };
        }
      }
      for (const c of caughtBy) catches.set(c.id, (catches.get(c.id) ?? 0) + 1);
      return { site, status: 'caught', evidence: caughtBy.map((c) => `${kind}: ${c.id} ${before.get(c.id)} -> ${c.verdict}: ${oneLine(c.reason)}`), durationMs: 0 };
    }
    return { site, status: 'survived', evidence: [], moved, durationMs: 0 };
  } finally {
    workspace.discard(bundle);
  }
}

/** The sites named `file:line:col` (each must be one the finder knows). */
function pickSites(sites: readonly MutationSite[], names: readonly string[]): MutationSite[] {
  return names.map((name) => {
    const site = sites.find((s) => `${s.file}:${s.line}:${s.column}` === name);
    if (!site) throw new Error(`--site ${name}: no mutation site there (sites are named file:line:col as the bench prints them)`);
    return site;
  });
}

function printSummary(report: MutationReport, out: (line: string) => void, wallMs: number): void {
  const count = (status: MutantStatus, list = report.outcomes) => list.filter((o) => o.status === status).length;
  out('');
  out(`sites: ${report.sites} in ${report.files} file(s); executed by the unmutated runs: ${report.reached} (${((100 * report.reached) / Math.max(1, report.sites)).toFixed(1)}%)`);
  out(
    `mutants: ${report.sampled} sampled, ${count('caught')} caught, ${count('survived')} survived, ${count('build-error')} did not build, ${count('unstable')} unstable` +
      ` -> ${(100 * report.score).toFixed(1)}% caught (caught / (caught + survived)); ${(wallMs / 1000).toFixed(0)} s`,
  );
  out('by operator:');
  for (const op of MUTATION_OPERATORS) {
    const list = report.outcomes.filter((o) => o.site.operator === op);
    if (list.length > 0) out(`  ${op.padEnd(16)} ${count('caught', list)}/${count('caught', list) + count('survived', list)} caught`);
  }
  out('by file:');
  for (const file of [...new Set(report.outcomes.map((o) => o.site.file))].sort()) {
    const list = report.outcomes.filter((o) => o.site.file === file);
    out(`  ${file.padEnd(44)} ${count('caught', list)}/${count('caught', list) + count('survived', list)} caught`);
  }
  const survivors = report.outcomes.filter((o) => o.status === 'survived').sort((a, b) => a.site.file.localeCompare(b.site.file) || a.site.line - b.site.line);
  out(`survivors (${survivors.length}):`);
  for (const o of survivors) out(`  ${describeSite(o.site)}${o.moved && o.moved.length > 0 ? ` (moved: ${o.moved.slice(0, 4).join(', ')})` : ''}`);
  const unreached = Object.entries(report.notReachedByFile).sort(([a], [b]) => a.localeCompare(b));
  if (unreached.length > 0) out(`sites no unmutated run executes, by file: ${unreached.map(([f, n]) => `${f} ${n}`).join(', ')}`);
}

function parseArgs(argv: readonly string[]): Omit<MutationBenchOptions, 'out'> {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const list = (name: string): string[] | undefined => {
    const values = argv.flatMap((arg, i) => (arg === `--${name}` && argv[i + 1] !== undefined ? argv[i + 1]!.split(',') : [])).map((v) => v.trim()).filter((v) => v !== '');
    return values.length > 0 ? values : undefined;
  };
  const number = (name: string, fallback: number, check: (n: number) => boolean, what: string): number => {
    const text = value(name);
    const n = text === undefined ? fallback : Number(text);
    if (!check(n)) throw new Error(`--${name} must be ${what}, got ${JSON.stringify(text)}`);
    return n;
  };
  const known = new Set(['--mutants', '--seed', '--files', '--exclude', '--case', '--site', '--workers', '--timeout-scale', '--json']);
  for (let i = 0; i < argv.length; i += 2) if (!known.has(argv[i]!)) throw new Error(`unknown option ${argv[i]} (options: ${[...known].join(' ')})`);
  const cases = list('case');
  const sites = list('site');
  const json = value('json');
  return {
    root: resolve(fileURLToPath(new URL('..', import.meta.url))),
    mutants: number('mutants', 100, (n) => Number.isSafeInteger(n) && n > 0, 'a positive integer'),
    seed: number('seed', 1, Number.isSafeInteger, 'an integer'),
    files: list('files') ?? DEFAULT_FILES,
    exclude: list('exclude') ?? DEFAULT_EXCLUDE,
    ...(cases !== undefined ? { cases } : {}),
    ...(sites !== undefined ? { sites } : {}),
    workers: number('workers', 4, (n) => Number.isSafeInteger(n) && n > 0, 'a positive integer'),
    timeoutScale: number('timeout-scale', 5, (n) => Number.isFinite(n) && n > 0, 'a positive number'),
    ...(json !== undefined ? { json } : {}),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  let options: Omit<MutationBenchOptions, 'out'>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exit(2);
  }
  await runMutationBench({ ...options, out: (line) => console.log(line) });
}
