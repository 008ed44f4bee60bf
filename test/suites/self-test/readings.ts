// Reading coverage of the self-test: every accepted reading of every server requirement (its
// `accepts` in the catalog) is taken by the reference mock or the alternate-readings mock, and a
// case sees it (ctx.reading). The runs are those of the correct-* and correct-alt-* files (the same
// transports and options), plus the mock configurations some readings need (the way
// FAULT_SERVER_OPTIONS configures the mock for a fault); READINGS_NO_MOCK_SHOWS lists, with the
// reason, the few readings no case can tell apart from another one.
//
// The runs of the correct-* files are not made twice: the readings each of them is the first to
// show are pinned in test/verdicts/self-test/readings.json, each correct-* file checks that its run
// still shows them (as it checks its verdict table), and the coverage test reads them from there.
// UPDATE_VERDICTS=1 on readings.test.ts runs them here and writes the file anew.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CaseResult, ConformanceCase } from '../../../src/harness/index.js';
import { requirements, type Requirement } from '../../../src/protocol/requirements.js';
import { serverCases } from '../../../suites/server/index.js';
import { runOnMock, type MockRunOptions, type SuiteTransport } from '../support.js';
import { problemLines } from './support.js';

/** `<requirement>#<reading number>`, the reading numbered from 1 as the catalog lists them. */
export type ReadingKey = `${string}#${number}`;

export function readingKey(requirement: string, reading: number): ReadingKey {
  return `${requirement}#${reading}`;
}

/** The server requirements whose accepted readings the mocks must show: testable, role server or both, with `accepts`. */
export function serverRequirementsWithReadings(): Requirement[] {
  return requirements()
    .list()
    .filter((r) => r.accepts !== undefined && (r.role === 'server' || r.role === 'both') && r.testable === true && r.withdrawn === undefined);
}

/** Every accepted reading of those requirements. */
export function acceptedReadings(): ReadingKey[] {
  return serverRequirementsWithReadings().flatMap((r) => (r.accepts ?? []).map((_, index) => readingKey(r.id, index + 1)));
}

/** The readings the cases of `results` saw (their ctx.reading checks). */
export function observedReadings(results: readonly CaseResult[]): Set<ReadingKey> {
  const seen = new Set<ReadingKey>();
  for (const result of results) for (const check of result.checks) if (check.reading !== undefined) seen.add(readingKey(check.requirement, check.reading));
  return seen;
}

/** The readings each MOCK_RUNS run is the first to show, by run name (test/verdicts/self-test/readings.json). */
const PINNED_READINGS_FILE = fileURLToPath(new URL('../../verdicts/self-test/readings.json', import.meta.url));

export function pinnedReadings(): Record<string, ReadingKey[]> {
  return existsSync(PINNED_READINGS_FILE) ? (JSON.parse(readFileSync(PINNED_READINGS_FILE, 'utf8')) as Record<string, ReadingKey[]>) : {};
}

/** Pins, for each run (in MOCK_RUNS order), the readings it saw that no run before it saw. */
export function writePinnedReadings(seenByRun: ReadonlyMap<string, ReadonlySet<ReadingKey>>): void {
  const pinned: Record<string, ReadingKey[]> = {};
  const before = new Set<ReadingKey>();
  for (const run of MOCK_RUNS) {
    const seen = seenByRun.get(run.name) ?? new Set<ReadingKey>();
    pinned[run.name] = [...seen].filter((key) => !before.has(key)).sort();
    for (const key of seen) before.add(key);
  }
  writeFileSync(PINNED_READINGS_FILE, `${JSON.stringify(pinned, null, 2)}\n`);
}

/**
 * For a correct-* file whose run is MOCK_RUNS' `runName`: one line per reading pinned for that run
 * that `results` (its run with the first seed) did not show.
 */
export function pinnedReadingsNotSeen(runName: string, results: readonly CaseResult[]): string[] {
  if (!MOCK_RUNS.some((run) => run.name === runName)) throw new TypeError(`no run of MOCK_RUNS is named ${JSON.stringify(runName)}`);
  const seen = observedReadings(results);
  return (pinnedReadings()[runName] ?? [])
    .filter((key) => !seen.has(key))
    .map((key) => `reading ${key}, pinned for ${runName} in test/verdicts/self-test/readings.json, was not seen (UPDATE_VERDICTS=1 on readings.test.ts pins the readings anew)`);
}

/** One run of the cases that report readings against the mock: a correct-* file's, or a configuration's. */
export interface ReadingRun {
  name: string;
  transport: SuiteTransport;
  server?: MockRunOptions['server'];
  /** Only cases declaring one of these requirements run (a configuration's); default: every case reporting a reading. */
  requirements?: readonly string[];
}

/** The runs of the correct-* and correct-alt-* self-test files over WebTransport and Streamable HTTP (stdio follows, for what is still missing). */
export const MOCK_RUNS: readonly ReadingRun[] = [
  { name: 'the mock over WebTransport (cbor, json)', transport: 'wt', server: { encodings: ['cbor', 'json'] } },
  { name: 'the mock over WebTransport (json only)', transport: 'wt', server: { encodings: ['json'] } },
  { name: 'the mock over Streamable HTTP', transport: 'http' },
  { name: 'the alternate mock over WebTransport', transport: 'wt', server: { readings: 'alternate', encodings: ['cbor', 'json'] } },
  { name: 'the alternate mock over Streamable HTTP', transport: 'http', server: { readings: 'alternate' } },
];

/** The stdio runs (a process per case): only the cases of requirements whose readings the other runs did not show. */
export const STDIO_RUNS: readonly ReadingRun[] = [
  { name: 'the mock over stdio', transport: 'stdio' },
  { name: 'the alternate mock over stdio', transport: 'stdio', server: { readings: 'alternate' } },
];

const STATELESS_SECRET = 'self-test stateless token signing secret, 32+ bytes';

/** A wizard whose prompts let FLOW-VALID-2's and FLOW-VALID-3's readings show (fixtures/reading-probes.json). */
export const READING_PROBES_WIZARD = fileURLToPath(new URL('./fixtures/reading-probes.json', import.meta.url));

/**
 * Readings only a configured mock takes (a server that is not interactive, stateless, without
 * datagrams...): each configuration runs the cases declaring the requirements it is for, with the
 * recommended and the alternate readings.
 */
export const CONFIGURATION_RUNS: readonly ReadingRun[] = [
  ...(
    [
      { name: 'interactive mode off', transport: 'wt', server: { flow: { interactive: false } }, requirements: ['FLOW-CAP-7'] },
      {
        name: 'stateless sessions',
        transport: 'wt',
        server: { flow: { stateless: { secret: STATELESS_SECRET } } },
        requirements: ['FLOW-STATELESS-2', 'FLOW-STATELESS-4', 'FLOW-ERR-4', 'FLOW-STATE-5', 'FLOW-CANCEL-3'],
      },
      {
        name: 'stateless sessions, the token as base64url segments joined by dots',
        transport: 'wt',
        server: { flow: { stateless: { secret: STATELESS_SECRET, form: 'segments' } } },
        requirements: ['FLOW-STATELESS-2'],
      },
      { name: 'datagrams not supported', transport: 'wt', server: { limits: { datagramsSupported: false } }, requirements: ['WT-DGRAM-5'] },
      // The shipped wizards' patterns are anchored and their required text prompts have a minimum length.
      { name: 'with the reading-probes wizard', transport: 'wt', server: { wizards: [READING_PROBES_WIZARD] }, requirements: ['FLOW-VALID-2', 'FLOW-VALID-3'] },
      { name: 'refusing integer ids the headers cannot carry with id null', transport: 'wt', server: { bindingReadings: { unfitNumericIds: 'refuse-null' } }, requirements: ['WT-ID-3'] },
      { name: 'with FastWorkflow traces attached, never streamed', transport: 'http', server: { fastworkflowReadings: { traceDelivery: 'attached' } }, requirements: ['FW-STREAM-1'] },
      { name: 'with FastWorkflow statuses stated in the text', transport: 'http', server: { fastworkflowReadings: { failureStyle: 'text' } }, requirements: ['FW-ERR-4'] },
    ] satisfies ReadingRun[]
  ).flatMap((run): ReadingRun[] => [
    { ...run, name: `the mock, ${run.name}` },
    { ...run, name: `the alternate mock, ${run.name}`, server: { ...run.server, readings: 'alternate' } },
  ]),
];

/**
 * Readings no case can observe, with the reason (the self-test checks that each stays unobserved
 * and still exists in the catalog, so the list stays exact).
 */
export const READINGS_NO_MOCK_SHOWS: Readonly<Record<ReadingKey, string>> = {
  'WT-DGRAM-3#1':
    'a client datagram with non-zero flags that the server drops looks, from the client, like one it takes as usual (reading 2): a client datagram the server takes changes nothing a client sees',
  'WT-DGRAM-3#2': 'see WT-DGRAM-3#1: the alternate mock takes it (reservedFlags: ignore), but no case can tell it from dropping',
};

/** The cases that report readings: those declaring a requirement with accepted readings. */
export function readingCases(only?: readonly string[]): ConformanceCase[] {
  const wanted = new Set(only ?? serverRequirementsWithReadings().map((r) => r.id));
  return serverCases().filter((c) => c.requirements.some((r) => wanted.has(r)));
}

/** Runs `run`'s cases (or `cases`) once; returns what they saw and the problems (FAIL, WARN, TIMEOUT, ERROR), one line each. */
export async function readingsOf(run: ReadingRun, cases: readonly ConformanceCase[] = readingCases(run.requirements)): Promise<{ seen: Set<ReadingKey>; problems: string[] }> {
  if (cases.length === 0) return { seen: new Set(), problems: [] };
  const result = await runOnMock(cases, {
    transport: run.transport,
    ...(run.server ? { server: run.server } : {}),
    run: { seed: 20261126, timeoutScale: run.transport === 'stdio' ? 5 : 2 },
  });
  const applied = result.result.cases.filter((c) => c.verdict !== 'SKIPPED');
  return { seen: observedReadings(applied), problems: problemLines(applied).map((line) => `${run.name}: ${line}`) };
}
