// Runs server suites against a real third-party peer and compares the outcome with what
// docs/interop.md says about that peer: the exact set of cases that FAIL or WARN, each tied to a
// finding (a `### <ID>: ...` heading of docs/interop.md) and to the requirements its failed checks cite.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { CaseRegistry, runConformance, type CaseResult, type RunResult, type Target } from '../../src/harness/index.js';
import { SERVER_CASE_MODULES } from '../../suites/server/index.js';

/** Liveness bound of one interop test (never a timing assertion; each file stays well below it). */
export const INTEROP_TIMEOUT_MS = 240_000;

/** One expected FAIL or WARN: the verdict, the requirements its failed checks cite, and the findings of docs/interop.md that explain them. */
export interface ExpectedDeviation {
  verdict: 'FAIL' | 'WARN';
  requirements: readonly string[];
  findings: readonly string[];
}

export type ExpectedDeviations = Readonly<Record<string, ExpectedDeviation>>;

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
export function expectedShape(expected: ExpectedDeviations, result: RunResult): Record<string, { verdict: string; requirements: string[] }> {
  const ran = new Set(result.cases.map((c) => c.id));
  return Object.fromEntries(
    Object.entries(expected)
      .filter(([id]) => ran.has(id))
      .map(([id, e]) => [id, { verdict: e.verdict, requirements: [...e.requirements].sort() }]),
  );
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
export function undocumented(expected: ExpectedDeviations): string[] {
  const findings = documentedFindings();
  return Object.entries(expected).flatMap(([id, e]) => {
    const absent = e.findings.filter((f) => !findings.has(f));
    if (absent.length > 0 || e.findings.length === 0) return [`${id}: finding(s) ${absent.join(', ') || '(none listed)'} not a heading of docs/interop.md`];
    const named = new Set(e.findings.flatMap((f) => [...findings.get(f)!]));
    const missing = e.requirements.filter((r) => !named.has(r));
    return missing.length > 0 ? [`${id}: the headings of ${e.findings.join(', ')} do not name ${missing.join(', ')}`] : [];
  });
}

/** The run passed somewhere and failed or warned exactly where `expected` (docs/interop.md) says. */
export function expectDocumentedDeviations(result: RunResult, expected: ExpectedDeviations): void {
  expect(result.summary.PASS).toBeGreaterThan(0);
  expect(deviationsOf(result), describeDeviations(result)).toEqual(expectedShape(expected, result));
}
