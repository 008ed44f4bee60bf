// Self-test support for the server suites: run a set of cases against the embedded mock server
// (correct, or with faults switched on) over a chosen transport, and read the verdicts.
import {
  CaseRegistry,
  httpTarget,
  runConformance,
  shellQuote,
  stdioTarget,
  webTransportTarget,
  type CaseResult,
  type ConformanceCase,
  type RunOptions,
  type RunResult,
  type Target,
} from '../../src/harness/index.js';
import { cliCommand } from '../support/cli.js';
import { pinnedTables } from '../support/verdict-tables.js';
import { pipedMockServer, startMockServer, type RunningMockServer, type StartMockServerOptions } from '../../src/peer/server/index.js';

export type SuiteTransport = 'wt' | 'http' | 'stdio';

export interface MockRunOptions {
  transport: SuiteTransport;
  faults?: string[];
  /** More startMockServer options (encodings, limits, flow options...). Over stdio as a process only `readings` is honoured. */
  server?: Omit<StartMockServerOptions, 'transport' | 'faults'>;
  /** Over stdio: a new mock per case in this process on pipes (pipedMockServer), not a process per case. */
  piped?: boolean;
  /** More runner options (workers, timeoutScale, filters...). */
  run?: Partial<Omit<RunOptions, 'registry' | 'target'>>;
}

export interface MockRun {
  result: RunResult;
  /** The result of one case (throws when the case was not run). */
  get(id: string): CaseResult;
  /** id -> verdict of every case. */
  verdicts: Record<string, string>;
  /** Cases whose verdict is FAIL, WARN, TIMEOUT or ERROR, with their reasons. */
  problems: { id: string; verdict: string; reason?: string }[];
}

/** The command that serves the mock server over stdio (one process per case; compiled when dist/ is current). */
export function stdioMockCommand(faults: readonly string[] = [], readings: 'recommended' | 'alternate' = 'recommended'): string {
  return cliCommand('mock-server', '--transport', 'stdio', ...faults.flatMap((f) => ['--fault', f]), ...(readings === 'alternate' ? ['--readings', 'alternate'] : []))
    .map(shellQuote)
    .join(' ');
}

/** Runs `cases` against a freshly started mock server and stops it afterwards. */
export async function runOnMock(cases: readonly ConformanceCase[], options: MockRunOptions): Promise<MockRun> {
  const registry = new CaseRegistry();
  registry.registerAll(cases);
  let server: RunningMockServer | undefined;
  let target: Target;
  if (options.transport === 'stdio') {
    const command = stdioMockCommand(options.faults, options.server?.readings);
    target = options.piped ? stdioTarget(command, { launch: pipedMockServer({ ...options.server, ...(options.faults ? { faults: options.faults } : {}) }) }) : stdioTarget(command);
  } else {
    server = await startMockServer({ transport: options.transport, ...options.server, ...(options.faults ? { faults: options.faults } : {}) });
    target = server.transport === 'wt' ? webTransportTarget(server.url, { client: { certificateHash: server.certificateHash! } }) : httpTarget(server.url);
  }
  try {
    // stdio spawns node + tsx per case: stretch the limits there. (Fault runs keep scale 1 elsewhere:
    // a case that waits for something a fault withholds must still end within its own limit.)
    const timeoutScale = options.transport === 'stdio' && !options.piped ? 3 : 1;
    const result = await runConformance({ registry, target, workers: 4, timeoutScale, ...options.run });
    const byId = new Map(result.cases.map((c) => [c.id, c]));
    return {
      result,
      get(id) {
        const found = byId.get(id);
        if (!found) throw new Error(`case ${id} was not run (ran: ${[...byId.keys()].join(', ')})`);
        return found;
      },
      verdicts: Object.fromEntries(result.cases.map((c) => [c.id, c.verdict])),
      problems: result.cases
        .filter((c) => ['FAIL', 'WARN', 'TIMEOUT', 'ERROR'].includes(c.verdict))
        .map((c) => ({ id: c.id, verdict: c.verdict, ...(c.reason !== undefined ? { reason: c.reason } : {}) })),
    };
  } finally {
    await server?.close();
  }
}

/**
 * The alternate-readings mock for a suite's own tests, without its extension members (an `_meta`
 * object in every prompt): whether a member the documents do not name is only noted is the schema
 * registry's rule (rule 4, test/schema), and the correct-alt self-tests show it on the whole mock.
 */
export const ALTERNATE_READINGS = { readings: 'alternate', flow: { extensionMembers: false } } as const satisfies MockRunOptions['server'];

/** Ids of the cases with a FAIL or WARN check of `requirement`: a fault of that requirement counts as caught when there is one. */
export function casesFlagging(run: MockRun, requirement: string): string[] {
  return run.result.cases.flatMap((c) =>
    c.checks.filter((k) => k.requirement === requirement && (k.verdict === 'FAIL' || k.verdict === 'WARN')).map(() => c.id),
  );
}

/** The cases of `cases` that declare `requirement`. */
export function casesFor(cases: readonly ConformanceCase[], requirement: string): ConformanceCase[] {
  return cases.filter((c) => c.requirements.includes(requirement));
}

/** The accepted readings (their numbers in the catalog's `accepts`, 1 = recommended) case `id` reported for `requirement` (ctx.reading). */
export function readingsSeen(run: MockRun, id: string, requirement: string): number[] {
  const seen = run.get(id).checks.flatMap((check) => (check.requirement === requirement && check.reading !== undefined ? [check.reading] : []));
  return [...new Set(seen)].sort((a, b) => a - b);
}

/** A case verdict that reports a broken requirement (a TIMEOUT or ERROR need not cite the fault's). */
const FLAGGED = new Set(['FAIL', 'WARN']);

/**
 * The shared fault loop (test/suites/self-test/faults-*.test.ts) runs every fault of the catalog
 * against every case that declares its requirement, on the fault's transports until one catches
 * it, and pins the verdicts of each run (test/verdicts/self-test/faults-*.json, checked on every
 * run). A suite's own fault loop runs only the faults those runs do not show caught by one of its
 * cases: the fault runs, and the expected result for each, in one place.
 *
 * Returns the faults no pinned run shows caught by a case of `cases` (a case pinned to FAIL or WARN
 * only, in a run with that fault on: not the configured mock's control run).
 */
export function notCaughtInSharedLoop<F extends { name: string }>(faults: readonly F[], cases: readonly ConformanceCase[]): F[] {
  const ids = new Set(cases.map((c) => c.id));
  const tables = Object.entries(pinnedTables('self-test/faults-'));
  return faults.filter(
    (fault) =>
      !tables.some(
        ([name, table]) =>
          name.startsWith(`${fault.name} on `) &&
          !name.includes(':') &&
          Object.entries(table).some(([id, verdicts]) => ids.has(id) && verdicts.split('|').every((verdict) => FLAGGED.has(verdict))),
      ),
  );
}
