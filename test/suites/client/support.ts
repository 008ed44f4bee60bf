// Self-test support for the client suites: run client cases against the mock client's reference
// driver (`mock-client --driver`, correct or with faults on) over WebTransport or Streamable HTTP,
// and read the verdicts.
import { clientTarget, CaseRegistry, runConformance, type CaseResult, type ConformanceCase, type InProcessClient, type RunOptions, type RunResult } from '../../../src/harness/index.js';
import { runScenario, scenarioFromEnvironment, ScenarioError, SCENARIO_EXIT, type MockClientOptions } from '../../../src/peer/client/index.js';
import { cliCommand } from '../../support/cli.js';
import { checkVerdictTable } from '../../support/verdict-tables.js';

export type ClientSuiteTransport = 'webtransport' | 'http';

export interface ClientRunOptions {
  transport: ClientSuiteTransport;
  faults?: readonly string[];
  /** More runner options (workers, timeoutScale, filters...). */
  run?: Partial<Omit<RunOptions, 'registry' | 'target'>>;
  /**
   * Run the driver as the CLI's `mock-client --driver` process per case (what users run), instead
   * of the same driver in this process (the default: a process per case costs a tsx start each).
   */
  viaProcess?: boolean;
  /** In-process only: more options for the mock client (capabilities it declares, say). */
  client?: Omit<MockClientOptions, 'faults' | 'signal'>;
}

export interface ClientRun {
  result: RunResult;
  get(id: string): CaseResult;
  verdicts: Record<string, string>;
  /** Cases whose verdict is FAIL, WARN, TIMEOUT or ERROR, with their reasons. */
  problems: { id: string; verdict: string; reason?: string; checks?: string[] }[];
}

/** The command of the mock client's driver (compiled when dist/ is current), with `faults` switched on. */
export function mockClientDriver(faults: readonly string[] = []): string[] {
  return cliCommand('mock-client', '--driver', ...faults.flatMap((f) => ['--fault', f]));
}

/** What `mock-client --driver` runs, in this process: the scenario from the environment, `faults` on (and `options`). */
export function mockClientInProcess(faults: readonly string[] = [], options: Omit<MockClientOptions, 'faults' | 'signal'> = {}): InProcessClient {
  return async ({ url, env, signal, log }) => {
    let scenario;
    try {
      scenario = scenarioFromEnvironment([url], env);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      log(`error: --driver: ${error.message}`);
      return SCENARIO_EXIT.usage;
    }
    const outcome = await runScenario(scenario, { ...options, faults, signal });
    for (const step of outcome.steps) log(`${step.ok ? 'ok  ' : 'FAIL'} ${step.name}${step.detail ? `: ${step.detail}` : ''}`);
    return outcome.exitCode;
  };
}

/** Runs `cases` against the mock client driver (4 workers, limits stretched 2x for a loaded machine). */
export async function runOnClient(cases: readonly ConformanceCase[], options: ClientRunOptions): Promise<ClientRun> {
  const registry = new CaseRegistry(undefined, { role: 'client' });
  registry.registerAll(cases);
  const target = options.viaProcess
    ? clientTarget({ command: mockClientDriver(options.faults), transport: options.transport })
    : clientTarget({ inProcess: mockClientInProcess(options.faults, options.client), description: 'mock-client --driver (in-process)', transport: options.transport });
  const result = await runConformance({ registry, target, workers: 4, timeoutScale: 2, ...options.run });
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
      .map((c) => ({
        id: c.id,
        verdict: c.verdict,
        ...(c.reason !== undefined ? { reason: c.reason } : {}),
        checks: c.checks.filter((k) => k.verdict !== 'PASS' && k.verdict !== 'INFO').map((k) => `${k.requirement} ${k.verdict}: ${k.message} (actual: ${JSON.stringify(k.actual)?.slice(0, 300)})`),
      })),
  };
}

/** Ids of the cases with a FAIL or WARN check of `requirement`. */
export function casesFlagging(run: ClientRun, requirement: string): string[] {
  return run.result.cases.flatMap((c) => c.checks.filter((k) => k.requirement === requirement && (k.verdict === 'FAIL' || k.verdict === 'WARN')).map(() => c.id));
}

/** The cases of `cases` that declare `requirement`. */
export function casesFor(cases: readonly ConformanceCase[], requirement: string): ConformanceCase[] {
  return cases.filter((c) => c.requirements.includes(requirement));
}

// ---- fault self-test ---------------------------------------------------------------------------

/** A fault of the mock client's catalog (src/peer/client/faults.ts). */
export interface ClientFault {
  name: string;
  requirement: string;
  transports?: readonly string[];
}

export interface FaultOutcome {
  /** The transport the fault was caught on (the last one tried when it was not). */
  transport: ClientSuiteTransport;
  /** Cases with a FAIL or WARN of the fault's requirement. */
  flagged: string[];
  /** Verdicts of the declaring cases on each transport tried. */
  tried: Record<string, Record<string, string>>;
}

/**
 * Runs the cases that declare the fault's requirement against the mock client with that one fault
 * on: over WebTransport first (or the fault's own transports), then over Streamable HTTP when
 * WebTransport did not catch it. `record` gets each run's verdicts (the verdict tables).
 */
export async function catchFault(
  cases: readonly ConformanceCase[],
  fault: ClientFault,
  record: (table: string, cases: readonly CaseResult[]) => void = () => undefined,
): Promise<FaultOutcome> {
  const declaring = casesFor(cases, fault.requirement);
  const transports = (fault.transports ?? ['webtransport', 'http']).filter((t): t is ClientSuiteTransport => t === 'webtransport' || t === 'http');
  const tried: Record<string, Record<string, string>> = {};
  let outcome: FaultOutcome = { transport: transports[0] ?? 'webtransport', flagged: [], tried };
  if (declaring.length === 0) return outcome;
  for (const transport of transports) {
    const run = await runOnClient(declaring, { transport, faults: [fault.name] });
    record(`${fault.name} on ${transport}`, run.result.cases);
    tried[transport] = run.verdicts;
    outcome = { transport, flagged: [...new Set(casesFlagging(run, fault.requirement))], tried };
    if (outcome.flagged.length > 0) return outcome;
  }
  return outcome;
}

/** Shard `index` (1-based) of `count` of a list, so that each test file stays short. */
export function shard<T>(items: readonly T[], index: number, count: number): T[] {
  return items.filter((_, i) => i % count === index - 1);
}

/** The differences between a run's verdicts and table `name` of test/verdicts/client/<group>.json (none when they agree or UPDATE_VERDICTS=1 pinned them). */
export function verdictChanges(group: string, name: string, cases: readonly CaseResult[]): string[] {
  return checkVerdictTable(`client/${group}`, name, cases);
}
