// The suites' self-test, shared by its files: the correct mock server passes every applicable case
// on one transport, every fault of the mock server's catalog is caught by a case declaring its
// requirement, with failure messages that name each offending case or uncaught fault.
import { mockServerFaultCatalog, type CatalogEntry, type FaultLayer } from '../../../src/peer/server/index.js';
import type { CaseResult, CaseFilters, ConformanceCase } from '../../../src/harness/index.js';
import { serverCases } from '../../../suites/server/index.js';
import { casesFor, runOnMock, type MockRunOptions, type SuiteTransport } from '../support.js';
import { checkVerdictTable } from '../../support/verdict-tables.js';

/** Liveness bound for one self-test file (never a timing assertion: a loaded machine is slow). */
export const SELF_TEST_TIMEOUT_MS = 15 * 60_000;

/** Time limits over stdio, where every case starts a node process (tsx) first. */
export const STDIO_TIMEOUT_SCALE = 5;

/** Verdicts the correct mock server must never get. */
const BAD = new Set(['FAIL', 'WARN', 'TIMEOUT', 'ERROR']);

function oneLine(text: string | undefined, max = 400): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `id VERDICT: reason` for every case the correct mock server should not have got. */
export function problemLines(cases: readonly CaseResult[]): string[] {
  return cases.filter((c) => BAD.has(c.verdict)).map((c) => `${c.id} ${c.verdict}: ${oneLine(c.reason)}`);
}

/**
 * The fast-check seeds every correct-mock run uses: a correct peer's verdicts must not depend on
 * the seed (docs/profile.md §2, rule 5). The whole run uses the first; every case that generated
 * input runs again with each of the others.
 */
export const SELF_TEST_SEEDS: readonly number[] = [20261126, 1, 424242, 987654321, 2147483646];

/**
 * Runs every server case (or one shard of them) against the correct mock server (the reference
 * readings, or the alternate ones with `server: { readings: 'alternate' }`) and returns the
 * problems, one line each (empty when the mock passes), plus how many cases applied. Cases that
 * generate input run once per seed of SELF_TEST_SEEDS (over stdio the seeds after the first in
 * this process, on pipes).
 */
export async function correctMockProblems(
  transport: SuiteTransport,
  options: {
    server?: MockRunOptions['server'];
    shard?: CaseFilters['shard'];
    seeds?: readonly number[];
    /** The verdict group (test/verdicts/<group>.json) every run's verdicts are compared with. */
    verdicts?: string;
    /** More changes found in the run with the first seed (the readings pinned for it, say). */
    alsoCheck?: (cases: readonly CaseResult[]) => string[];
    /** Over stdio: the mock in this process on pipes, not a process per case. */
    piped?: boolean;
  } = {},
): Promise<{ problems: string[]; applied: number; total: number; changes: string[] }> {
  const [first, ...others] = options.seeds ?? SELF_TEST_SEEDS;
  const runWith = async (cases: readonly ConformanceCase[], seed: number | undefined, shard: CaseFilters['shard'] | undefined, piped: boolean) =>
    runOnMock(cases, {
      transport,
      ...(options.server ? { server: options.server } : {}),
      ...(piped ? { piped: true } : {}),
      run: {
        ...(shard ? { filters: { shard } } : {}),
        ...(seed !== undefined ? { seed } : {}),
        // A node process per case: on a loaded machine its start alone can take seconds.
        // Elsewhere deadlines are doubled for a loaded machine (only waits get longer).
        timeoutScale: transport === 'stdio' && !piped ? STDIO_TIMEOUT_SCALE : 2,
      },
    });
  const run = await runWith(serverCases(), first, options.shard, options.piped === true);
  const cases = run.result.cases.filter((c) => c.verdict !== 'SKIPPED');
  const problems = problemLines(cases);
  const changes = options.verdicts === undefined ? [] : checkVerdictTable(options.verdicts, `seed ${first}`, cases);
  if (options.alsoCheck !== undefined) changes.push(...options.alsoCheck(cases));
  const generating = new Set(cases.filter((c) => c.seed !== undefined).map((c) => c.id));
  if (generating.size > 0) {
    const again = serverCases().filter((c) => generating.has(c.id));
    for (const seed of others) {
      // Another seed only changes the input the cases generate: over stdio the mock serves it in
      // this process (the process per case is the first seed's run).
      const rerun = await runWith(again, seed, undefined, transport === 'stdio');
      problems.push(...problemLines(rerun.result.cases).map((line) => `${line} (seed ${seed})`));
      if (options.verdicts !== undefined) changes.push(...checkVerdictTable(options.verdicts, `seed ${seed}`, rerun.result.cases));
    }
  }
  return { problems, applied: cases.filter((c) => c.verdict !== 'NOT_APPLICABLE').length, total: cases.length, changes };
}

/**
 * Faults that only show when the mock serves a particular configuration (interactive mode off,
 * stateless sessions, a capability not declared...): the mock runs with it for that fault.
 */
export const FAULT_SERVER_OPTIONS: Readonly<Record<string, NonNullable<MockRunOptions['server']>>> = {
  'not-interactive-served': { flow: { interactive: false } },
  'accept-tampered-token': { flow: { stateless: { secret: 'self-test stateless token signing secret, 32+ bytes' } } },
  'reject-own-token': { flow: { stateless: { secret: 'self-test stateless token signing secret, 32+ bytes' } } },
  'datagram-when-unsupported-ignored': { limits: { datagramsSupported: false } },
  // A server that does not speak CBOR: only there does selecting an unsupported encoding show.
  'unsupported-encoding-selected': { encodings: ['json'] },
  'subscribe-without-capability': { server: { core: { subscribe: false } } },
  'log-without-capability': { server: { logging: false } },
  'expired-token-not-found': { flow: { stateless: { secret: 'self-test stateless token signing secret, 32+ bytes' } } },
  // A server whose only long tool reports progress (no tool asks the client): the case must see the call running to tell
  // deafness from a race. Progress on the control stream: a datagram may be lost, and with it the sight of the call running.
  'deaf-to-cancel': { server: { core: { askingTools: false }, progressDatagrams: false } },
};

/** Where a fault of each layer is run: core/flow/webtransport over WebTransport, fastworkflow and http (Streamable HTTP transport) over HTTP. */
export const FAULT_TRANSPORT: Record<FaultLayer, SuiteTransport> = { core: 'wt', flow: 'wt', webtransport: 'wt', fastworkflow: 'http', http: 'http' };

/** The faults of `layer`, part `part` of `parts` (every `parts`-th entry), so the files split the work. */
export function faultsOf(layer: FaultLayer, part = 1, parts = 1): CatalogEntry[] {
  return mockServerFaultCatalog()
    .filter((entry) => entry.layer === layer)
    .filter((_, index) => index % parts === part - 1);
}

/**
 * Why a fault was not caught, or undefined when a case declaring its requirement FAILed/WARNed
 * citing it on one of the fault's transports.
 */
export async function faultNotCaught(
  entry: CatalogEntry,
  record: (table: string, cases: readonly CaseResult[]) => void = () => undefined,
): Promise<string | undefined> {
  const declaring = casesFor(serverCases(), entry.requirement);
  const label = `${entry.name} (${entry.requirement}, ${entry.layer})`;
  if (declaring.length === 0) return `${label}: no case declares ${entry.requirement}`;
  const outcomes: string[] = [];
  const server = FAULT_SERVER_OPTIONS[entry.name];
  // A configured mock is started in-process only: stdio spawns the command-line mock, which has no such options.
  const transports = faultTransports(entry.layer).filter((transport) => server === undefined || transport !== 'stdio');
  const cites = (cases: readonly CaseResult[]) =>
    cases.some((c) => c.checks.some((check) => check.requirement === entry.requirement && (check.verdict === 'FAIL' || check.verdict === 'WARN')));
  for (const transport of transports) {
    const run = await runOnMock(declaring, { transport, faults: [entry.name], ...(server ? { server } : {}) });
    record(`${entry.name} on ${transport}`, run.result.cases);
    if (cites(run.result.cases)) {
      if (server === undefined) return undefined;
      // Only a catch if the configured mock without the fault passes the same cases.
      const control = await runOnMock(declaring, { transport, server });
      record(`${entry.name} on ${transport}: the configured mock without the fault`, control.result.cases);
      if (!cites(control.result.cases)) return undefined;
      return `${label}: on ${transport} the mock configured ${JSON.stringify(server)} fails ${entry.requirement} without the fault too: ${problemLines(control.result.cases).join('; ')}`;
    }
    outcomes.push(`on ${transport}: ${run.result.cases.map((c) => `${c.id} ${c.verdict}${c.reason ? ` (${oneLine(c.reason, 160)})` : ''}`).join('; ')}`);
  }
  return `${label}: not caught by ${declaring.length} case(s): ${outcomes.join(' | ')}`;
}

/**
 * The transports a fault is tried on, first the layer's own. A core or Flow fault may only show
 * where the binding differs (a rule outside WebTransport, string ids...): those get Streamable HTTP,
 * then stdio (a process per case, so only for the few faults still uncaught).
 */
export function faultTransports(layer: FaultLayer): SuiteTransport[] {
  const first = FAULT_TRANSPORT[layer];
  return layer === 'core' || layer === 'flow' ? [first, 'http', 'stdio'] : [first];
}

/**
 * Faults no client-driven case can catch, with the reason. Each is still shown to change the
 * server's behaviour by its own probe (test/transport, test/peer); the self-test checks that each
 * listed fault exists and stays uncaught, so the list stays exact.
 */
export const NOT_CATCHABLE_FROM_OUTSIDE: Readonly<Record<string, string>> = {
  'shutdown-sent-with-id':
    "WT-SHUT-1 on the server's side is about the $/shutdown the server sends when it decides to end a session; a client cannot make a server do that",
};

/**
 * Faults a case catches on some runs and not on others, for a reason outside the case (listed,
 * with the reason, so the self-test never flakes on them; their probes still prove them).
 */
export const NOT_RELIABLY_CATCHABLE: Readonly<Record<string, string>> = {
  'control-blocked-by-streams':
    'over in-process HTTP/2 the WebTransport library takes execution-stream writes without backpressure, so the server ends even a ' +
    '256 MiB stream within moments and the ping it held is answered before the case deadline; caught only when the transfer outlasts it',
};

/**
 * Runs `faultNotCaught` over `entries`, `concurrency` at a time: the uncaught ones' lines, and, when
 * `verdicts` names a group, every difference between the runs' verdicts and the pinned tables
 * (test/verdicts/<group>.json; faults caught only now and then are not pinned).
 */
export async function uncaughtFaults(
  entries: readonly CatalogEntry[],
  options: { concurrency?: number; verdicts?: string } = {},
): Promise<{ uncaught: string[]; changes: string[] }> {
  const queue = [...entries];
  const lines: string[] = [];
  const changes: string[] = [];
  const worker = async () => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      let line: string | undefined;
      const pinned = options.verdicts !== undefined && !Object.hasOwn(NOT_RELIABLY_CATCHABLE, entry.name);
      const record = (table: string, cases: readonly CaseResult[]) => {
        if (pinned) changes.push(...checkVerdictTable(options.verdicts!, table, cases));
      };
      try {
        line = await faultNotCaught(entry, record);
        if (Object.hasOwn(NOT_RELIABLY_CATCHABLE, entry.name)) line = undefined;
        else if (Object.hasOwn(NOT_CATCHABLE_FROM_OUTSIDE, entry.name)) {
          line = line === undefined ? `${entry.name}: listed as not catchable from outside, but a case caught it: take it off the list` : undefined;
        }
      } catch (error) {
        line = `${entry.name} (${entry.requirement}, ${entry.layer}): the run failed: ${oneLine(error instanceof Error ? error.message : String(error))}`;
      }
      if (line !== undefined) lines.push(line);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 3, entries.length) }, worker));
  return { uncaught: lines.sort(), changes: changes.sort() };
}

/** The assertion message of a list of problems: a count, then one per line. */
export function listed(what: string, lines: readonly string[]): string {
  return `${lines.length} ${what}:\n  ${lines.join('\n  ')}`;
}
