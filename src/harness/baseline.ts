// The baseline file: cases a target is known to fail, `{"version":1,"expectedFailures":{caseId: reason}}`.
// A listed case that fails does not fail the run; a listed case that now passes is reported stale.
import { readFileSync } from 'node:fs';
import { BaselineError } from './errors.js';
import type { CaseResult, Verdict } from './result.js';

export interface Baseline {
  version: 1;
  expectedFailures: Record<string, string>;
}

/** Verdicts a baseline entry covers (the target's failures, never the harness's own ERROR). */
const EXPECTED_FAILURE_VERDICTS: ReadonlySet<Verdict> = new Set(['FAIL', 'WARN', 'TIMEOUT']);
/** Verdicts that make a listed case stale: it ran and no longer fails. */
const STALE_VERDICTS: ReadonlySet<Verdict> = new Set(['PASS', 'INFO']);

/** Checks a parsed baseline; `knownCases`, when given, rejects entries naming no registered case. */
export function parseBaseline(data: unknown, file?: string, knownCases?: (id: string) => boolean): Baseline {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new BaselineError('the baseline must be a JSON object', '', file);
  const document = data as Record<string, unknown>;
  for (const key of Object.keys(document)) {
    if (key !== 'version' && key !== 'expectedFailures') throw new BaselineError(`unknown field "${key}"`, `/${key}`, file);
  }
  if (document.version !== 1) throw new BaselineError(`unsupported version ${JSON.stringify(document.version)} (expected 1)`, '/version', file);
  const entries = document.expectedFailures;
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
    throw new BaselineError('"expectedFailures" must be an object mapping case IDs to reasons', '/expectedFailures', file);
  }
  const expectedFailures: Record<string, string> = {};
  for (const [caseId, reason] of Object.entries(entries as Record<string, unknown>)) {
    const pointer = `/expectedFailures/${caseId.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (typeof reason !== 'string' || reason.trim() === '') throw new BaselineError('the reason must be a non-empty string', pointer, file);
    if (knownCases && !knownCases(caseId)) throw new BaselineError(`no case has the ID ${JSON.stringify(caseId)}`, pointer, file);
    expectedFailures[caseId] = reason;
  }
  return { version: 1, expectedFailures };
}

export function readBaseline(path: string, knownCases?: (id: string) => boolean): Baseline {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new BaselineError(`cannot read the file (${(cause as Error).message})`, '', path, { cause });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new BaselineError(`not valid JSON (${(cause as Error).message})`, '', path, { cause });
  }
  return parseBaseline(data, path, knownCases);
}

/**
 * Marks each listed case that ran: `expected-failure` when it still fails, `stale` when it now
 * passes; either way the baseline's reason is kept with it (`baselineReason`).
 */
export function applyBaseline(result: CaseResult, baseline: Baseline | undefined): void {
  if (!baseline || !Object.hasOwn(baseline.expectedFailures, result.id)) return;
  if (EXPECTED_FAILURE_VERDICTS.has(result.verdict)) result.baseline = 'expected-failure';
  else if (STALE_VERDICTS.has(result.verdict)) result.baseline = 'stale';
  else return;
  result.baselineReason = baseline.expectedFailures[result.id]!;
}

/** How the baseline fared in a run: listed cases that still fail, and listed cases that now pass. */
export function baselineCounts(cases: readonly Pick<CaseResult, 'baseline'>[]): { expectedFailures: number; stale: number } {
  let expectedFailures = 0;
  let stale = 0;
  for (const c of cases) {
    if (c.baseline === 'expected-failure') expectedFailures++;
    else if (c.baseline === 'stale') stale++;
  }
  return { expectedFailures, stale };
}

/** A baseline listing every failing case of a run (to start one from the current state). */
export function baselineFromResults(cases: readonly CaseResult[]): Baseline {
  const expectedFailures: Record<string, string> = {};
  for (const c of cases) {
    if (EXPECTED_FAILURE_VERDICTS.has(c.verdict)) expectedFailures[c.id] = c.reason ?? c.verdict;
  }
  return { version: 1, expectedFailures };
}

export interface ExitCodeOptions {
  /** A stale baseline entry (a listed case that now passes) fails the run (`--fail-on-stale`). */
  failOnStale?: boolean;
  /** The run was stopped before every selected case ran (Ctrl-C): no verdict, so never 0. */
  interrupted?: boolean;
}

/**
 * 0 all required cases pass; 1 a conformance failure not covered by the baseline (or, with
 * `failOnStale`, a stale baseline entry); 2 a harness error or an interrupted run.
 */
export function exitCodeFor(cases: readonly CaseResult[], options: ExitCodeOptions = {}): 0 | 1 | 2 {
  if (options.interrupted || cases.some((c) => c.verdict === 'ERROR')) return 2;
  const failing = cases.some((c) => (c.verdict === 'FAIL' || c.verdict === 'TIMEOUT') && c.baseline !== 'expected-failure');
  const stale = options.failOnStale === true && cases.some((c) => c.baseline === 'stale');
  return failing || stale ? 1 : 0;
}
