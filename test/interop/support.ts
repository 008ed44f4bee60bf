// Runs server suites against a real third-party peer and compares the outcome with what
// docs/interop.md says about that peer: the exact set of cases that FAIL or WARN, each tied to a
// finding (a `### <ID>: ...` heading of docs/interop.md) and to the requirements its failed checks cite.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaseRegistry, httpTarget, runConformance, stdioTarget, type CaseResult, type RunResult, type Target } from '../../src/harness/index.js';
import { SERVER_CASE_MODULES } from '../../suites/server/index.js';
import type { RunningPeer } from './peer-process.js';
import { checkVerdictTable } from '../support/verdict-tables.js';

/** Liveness bound of one interop test (never a timing assertion; each file stays well below it). */
export const INTEROP_TIMEOUT_MS = 240_000;

/** One expected FAIL or WARN: the verdict, the requirements its failed checks cite, and the findings of docs/interop.md that explain them. */
export interface ExpectedDeviation {
  verdict: 'FAIL' | 'WARN';
  requirements: readonly string[];
  findings: readonly string[];
}

export type ExpectedDeviations = Readonly<Record<string, ExpectedDeviation>>;

/**
 * What a peer is expected to get: the cases that FAIL or WARN. Each violation is judged once, by
 * the case that owns its requirement (profile.md §2), so every deviation belongs to one case.
 */
export interface PeerExpectation {
  deviations: ExpectedDeviations;
  /**
   * Deviations a case shows on some runs and not on others because what it watches for arrives
   * after its observation window on a loaded machine: each is expected exactly when the case's
   * failed checks cite all of its requirements. Every entry is a case defect reported to its area.
   */
  unsettled?: ExpectedDeviations;
}

/** Verdicts a real peer may get without a finding. */
const QUIET = new Set(['PASS', 'INFO', 'NOT_APPLICABLE', 'SKIPPED']);

/**
 * Deadlines are stretched (only waits get longer, never a timing assertion): 3x where the peer is
 * one running process, 4x over stdio, where every case first starts node and the peer, which on a
 * loaded machine alone can take seconds. Other test files run at the same time.
 */
export const INTEROP_TIMEOUT_SCALE = { process: 3, stdio: 4 } as const;

/**
 * Runs the named server case modules against `target`: 4 workers, deadlines stretched by
 * INTEROP_TIMEOUT_SCALE for the target's transport, and a fixed fast-check seed, so a generated
 * counterexample is the same on every run.
 */
export async function runModules(target: Target, modules: readonly string[], options: { timeoutScale?: number } = {}): Promise<RunResult> {
  const registry = new CaseRegistry();
  for (const name of modules) {
    const cases = SERVER_CASE_MODULES[name];
    if (cases === undefined) throw new TypeError(`no server case module named ${JSON.stringify(name)} (known: ${Object.keys(SERVER_CASE_MODULES).join(', ')})`);
    registry.registerAll(cases);
  }
  const timeoutScale = options.timeoutScale ?? (target.describe().transport === 'stdio' ? INTEROP_TIMEOUT_SCALE.stdio : INTEROP_TIMEOUT_SCALE.process);
  return runConformance({ registry, target, workers: 4, timeoutScale, seed: 20_261_122 });
}

/** What a run says about each case that did not pass quietly: verdict and the requirements of its failed checks. */
export function deviationsOf(result: RunResult): Record<string, { verdict: string; requirements: string[] }> {
  return Object.fromEntries(
    result.cases
      .filter((c) => !QUIET.has(c.verdict))
      .map((c) => [c.id, { verdict: c.verdict, requirements: failedRequirements(c) }]),
  );
}

function failedRequirements(c: CaseResult): string[] {
  return [...new Set(c.checks.filter((k) => k.verdict === 'FAIL' || k.verdict === 'WARN').map((k) => k.requirement))].sort();
}

/** The expected table in the shape `deviationsOf` returns, limited to the cases `result` ran. */
export function expectedShape(expected: PeerExpectation, result: RunResult): Record<string, { verdict: string; requirements: string[] }> {
  const shape = new Map<string, { verdict: string; requirements: Set<string> }>();
  const add = (id: string, e: ExpectedDeviation) => {
    const entry = shape.get(id) ?? { verdict: 'WARN', requirements: new Set<string>() };
    if (e.verdict === 'FAIL') entry.verdict = 'FAIL';
    for (const r of e.requirements) entry.requirements.add(r);
    shape.set(id, entry);
  };
  const ran = new Map(result.cases.map((c) => [c.id, c]));
  for (const [id, e] of Object.entries(expected.deviations)) if (ran.has(id)) add(id, e);
  for (const [id, e] of Object.entries(expected.unsettled ?? {})) {
    const c = ran.get(id);
    if (c && e.requirements.every((r) => failedRequirements(c).includes(r))) add(id, e);
  }
  return Object.fromEntries([...shape].map(([id, e]) => [id, { verdict: e.verdict, requirements: [...e.requirements].sort() }]));
}

/** Every expected deviation of a peer, settled or not, by case. */
export function allDeviations(expected: PeerExpectation): [string, ExpectedDeviation][] {
  return [...Object.entries(expected.deviations), ...Object.entries(expected.unsettled ?? {})];
}

/** A readable line per case that did not pass quietly, for assertion messages. */
export function describeDeviations(result: RunResult): string {
  return result.cases
    .filter((c) => !QUIET.has(c.verdict))
    .map((c) => `${c.id} ${c.verdict} [${failedRequirements(c).join(', ')}]: ${(c.reason ?? '').replace(/\s+/g, ' ').slice(0, 300)}`)
    .join('\n');
}

const interopDoc = fileURLToPath(new URL('../../docs/interop.md', import.meta.url));

/** The finding IDs of docs/interop.md (`### <ID>: title` headings), each with the requirement IDs its heading names. */
export function documentedFindings(): Map<string, Set<string>> {
  const findings = new Map<string, Set<string>>();
  for (const match of readFileSync(interopDoc, 'utf8').matchAll(/^### ([A-Z]+-\d+): (.*)$/gm)) {
    findings.set(match[1]!, new Set(match[2]!.match(/\b(?:CORE|WT|FLOW|FW)-[A-Z]+-\d+\b/g) ?? []));
  }
  return findings;
}

/** Each expected deviation whose findings are missing from docs/interop.md or do not name its requirements. */
export function undocumented(expected: PeerExpectation): string[] {
  const findings = documentedFindings();
  return allDeviations(expected).flatMap(([id, e]) => {
    const absent = e.findings.filter((f) => !findings.has(f));
    if (absent.length > 0 || e.findings.length === 0) return [`${id}: finding(s) ${absent.join(', ') || '(none listed)'} not a heading of docs/interop.md`];
    const named = new Set(e.findings.flatMap((f) => [...findings.get(f)!]));
    const missing = e.requirements.filter((r) => !named.has(r));
    return missing.length > 0 ? [`${id}: the headings of ${e.findings.join(', ')} do not name ${missing.join(', ')}`] : [];
  });
}

/** The run passed somewhere and failed or warned exactly where `expected` (docs/interop.md) says. */
export function expectDocumentedDeviations(result: RunResult, expected: PeerExpectation): void {
  expect(result.summary.PASS).toBeGreaterThan(0);
  expect(deviationsOf(result), describeDeviations(result)).toEqual(expectedShape(expected, result));
  // Every other verdict too (PASS, INFO, NOT_APPLICABLE), pinned per test file in test/verdicts/interop/.
  const file = basename(expect.getState().testPath ?? 'unknown.test.ts').replace(/\.test\.ts$/, '');
  const changes = checkVerdictTable(`interop/${file}`, 'verdicts', result.cases);
  expect(changes, `verdicts differ from test/verdicts/interop/${file}.json:\n  ${changes.join('\n  ')}`).toEqual([]);
}

/**
 * One interop test file: runs `modules` against a real peer and expects exactly `expected`. An
 * HTTP peer is started once for the file (`start`) and stopped after it; a stdio peer is a command
 * the target spawns per case.
 */
export function describePeer(
  title: string,
  options: { modules: readonly string[]; expected: PeerExpectation } & ({ start: () => Promise<RunningPeer> } | { stdio: string }),
): void {
  let peer: RunningPeer | undefined;
  if ('start' in options) {
    beforeAll(async () => {
      peer = await options.start();
    }, 60_000);
    afterAll(async () => {
      await peer?.close();
    });
  }
  describe(title, () => {
    it(
      'fails or warns exactly where docs/interop.md says, and nowhere else',
      async () => {
        const target = 'stdio' in options ? stdioTarget(options.stdio) : httpTarget(peer!.url);
        const result = await runModules(target, options.modules);
        expectDocumentedDeviations(result, options.expected);
      },
      INTEROP_TIMEOUT_MS,
    );
  });
}
