// The vitest helper: each conformance case becomes a vitest test, so a project embeds the suite in
// its own test run.
//
//   import { defineConformanceTests } from 'mcp-flow-conformance/vitest';
//   defineConformanceTests({ target: { url: 'http://127.0.0.1:3000/mcp' }, suites: ['mcp-core'] });
//
// One describe per suite, one test per case. The run happens once, in beforeAll; each test then
// reports its case: PASS, INFO and NOT_APPLICABLE pass; FAIL, ERROR and TIMEOUT fail with the
// reason, the checks, the transcript excerpt and the rerun command; WARN passes with a console
// warning (it fails under `strict`); cases the filters leave out of a selected suite are skipped.
// vitest is an optional peer dependency: only this entry point imports it.
import { beforeAll, describe, test, type TestContext } from 'vitest';
import { serverRegistry } from '../suites/server/index.js';
import {
  ConformanceOptionsError,
  conformanceFilters,
  resolveServerTarget,
  RUN_OPTION_KEYS,
  runWithOptions,
  type ConformanceRunOptions,
  type ServerTargetOptions,
} from './index.js';
import { HarnessError } from './harness/errors.js';
import type { RegisteredCase, Target } from './harness/case.js';
import type { CaseResult, RunResult, Verdict } from './harness/result.js';
import { selectCases } from './harness/selection.js';
import { ConsoleFormatter } from './report/console.js';

/** The server under test: target options (url, stdio, target...) or a Target. */
export type ServerUnderTest = ServerTargetOptions | Target;

export interface ConformanceTestsOptions extends ConformanceRunOptions {
  /**
   * The server under test, or a function giving it, called in beforeAll (so a server your own
   * beforeAll starts, and its port, can be named).
   */
  target: ServerUnderTest | (() => ServerUnderTest | Promise<ServerUnderTest>);
  /** Title of the describe around the suites. Default 'MCP Flow server conformance'. */
  name?: string;
  /**
   * Limit of the beforeAll that runs the cases. Default: a bound no run can reach (discovery plus
   * every selected case's time limit and grace, one after another, scaled), so only the runner's
   * own limits end cases.
   */
  timeoutMs?: number;
}

/** A conformance case that failed, as a vitest test failure: the case's explanation is the message. */
export class ConformanceCaseError extends HarnessError {
  readonly caseId: string;
  readonly verdict: Verdict;
  readonly rerun: string;
  constructor(result: CaseResult, explanation: string) {
    super('CONFORMANCE_CASE_FAILED', explanation);
    this.caseId = result.id;
    this.verdict = result.verdict;
    this.rerun = result.rerun;
  }
}

const OPTION_KEYS = ['target', 'name', 'timeoutMs', ...RUN_OPTION_KEYS] as const satisfies readonly (keyof ConformanceTestsOptions)[];

/** Runner defaults the bound is computed from (src/harness/runner.ts). */
const DISCOVERY_MS = 15_000;
const GRACE_MS = 2_000;
/** Room for starting the run and writing reports. */
const SLACK_MS = 30_000;

function isTarget(value: ServerUnderTest): value is Target {
  return typeof (value as Partial<Target>).connect === 'function' && typeof (value as Partial<Target>).discover === 'function';
}

/** A bound on the whole run: every case at its full limit plus grace, one after another. */
function runBoundMs(cases: readonly RegisteredCase[], timeoutScale: number): number {
  const everyCase = cases.reduce((sum, c) => sum + c.timeLimitMs + GRACE_MS, 0);
  return (DISCOVERY_MS + GRACE_MS + everyCase) * timeoutScale + SLACK_MS;
}

const formatter = new ConsoleFormatter({ colour: false, transcriptEntries: 20 });

/** What a finished case means for its vitest test. */
function judge(result: CaseResult, strict: boolean, failOnStale: boolean, context: TestContext): void {
  switch (result.verdict) {
    case 'PASS':
    case 'INFO':
    case 'NOT_APPLICABLE':
      if (result.baseline === 'stale') {
        const stale = `${result.id} is listed in the baseline but now ${result.verdict === 'PASS' ? 'passes' : `gives ${result.verdict}`}: remove it from the baseline`;
        if (failOnStale) throw new ConformanceCaseError(result, `${stale} (failOnStale)`);
        console.warn(stale);
      }
      return;
    case 'SKIPPED':
      context.skip(result.reason);
      return;
    case 'WARN':
      if (!strict) {
        console.warn(formatter.explain(result));
        return;
      }
      break;
    case 'FAIL':
    case 'TIMEOUT':
      if (result.baseline === 'expected-failure') {
        console.warn(`${result.id}: ${result.verdict}, an expected failure (listed in the baseline): ${result.reason ?? ''}`);
        return;
      }
      break;
    case 'ERROR':
      break;
  }
  throw new ConformanceCaseError(result, formatter.explain(result));
}

/**
 * Registers the conformance cases as vitest tests: a describe named `name` holding one describe
 * per selected suite and one test per case (named by case ID). Call it at the top level of a test
 * file. Filters are checked at once (a bad one fails the file's collection); the target is
 * resolved and the run happens in beforeAll.
 */
export function defineConformanceTests(options: ConformanceTestsOptions): void {
  if (typeof options !== 'object' || options === null) throw new ConformanceOptionsError('options', 'defineConformanceTests takes an options object');
  for (const key of Object.keys(options)) {
    if (!(OPTION_KEYS as readonly string[]).includes(key)) throw new ConformanceOptionsError(key, `is not an option of defineConformanceTests (known: ${OPTION_KEYS.join(', ')})`);
  }
  if (options.target === undefined || options.target === null) throw new ConformanceOptionsError('target', 'name the server under test: { url }, { stdio }, a Target, or a function giving one');
  if (options.timeoutMs !== undefined && (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)) {
    throw new ConformanceOptionsError('timeoutMs', `must be a positive number of milliseconds, got ${String(options.timeoutMs)}`);
  }
  const { target, name, timeoutMs, ...runOptions } = options;
  const registry = options.registry ?? serverRegistry();
  const selection = selectCases(registry.list(), conformanceFilters(runOptions));
  const skipped = new Map(selection.skipped.map(({ case: c, reason }) => [c.id, reason]));
  const suites = new Map<string, RegisteredCase[]>();
  const selectedSuites = new Set(selection.selected.map((c) => c.suite));
  for (const c of registry.list()) {
    if (!selectedSuites.has(c.suite)) continue;
    const list = suites.get(c.suite);
    if (list) list.push(c);
    else suites.set(c.suite, [c]);
  }
  const strict = options.strict ?? false;
  const hookTimeout = timeoutMs ?? runBoundMs(selection.selected, options.timeoutScale ?? 1);

  describe(name ?? 'MCP Flow server conformance', () => {
    let run: RunResult | undefined;
    beforeAll(async () => {
      const given = typeof target === 'function' ? await target() : target;
      if (typeof given !== 'object' || given === null) throw new ConformanceOptionsError('target', 'the target function must give { url }, { stdio }, { target } or a Target');
      const resolved = isTarget(given) ? given : resolveServerTarget(given);
      run = await runWithOptions(registry, resolved, runOptions, 'server');
    }, hookTimeout);

    for (const [suite, cases] of suites) {
      describe(suite, () => {
        for (const c of cases) {
          const reason = skipped.get(c.id);
          if (reason !== undefined) {
            test.skip(`${c.id} (${reason})`, () => undefined);
            continue;
          }
          test(c.id, (context) => {
            const result = run?.cases.find((r) => r.id === c.id);
            // Only reached when beforeAll failed without vitest failing the test for it.
            if (result === undefined) throw new HarnessError('CONFORMANCE_RUN_MISSING', `case ${c.id} has no result: the conformance run did not finish`);
            judge(result, strict, options.failOnStale ?? false, context);
          });
        }
      });
    }
  });
}
