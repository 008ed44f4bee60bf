// What a conformance run produces: the data model shared by the runner (src/harness) and every
// reporter (src/report). Plain data only, so a run serialises to JSON and back unchanged.
import type { RequirementLevel } from '../protocol/requirements.js';
import type { TranscriptEntry } from '../transport/transcript.js';

export type { RequirementLevel };

/**
 * PASS: every check held. FAIL: a MUST broken. WARN: a SHOULD broken (FAIL under --strict).
 * INFO: behaviour the documents leave open, reported (e.g. which accepted reading the target chose).
 * NOT_APPLICABLE: the target declared nothing this case needs (the reason says what).
 * SKIPPED: selected but not run (the run was interrupted first). TIMEOUT: the case ran past its limit.
 * ERROR: the harness itself broke (a bug here, not in the target).
 */
export const VERDICTS = ['PASS', 'FAIL', 'WARN', 'INFO', 'NOT_APPLICABLE', 'SKIPPED', 'TIMEOUT', 'ERROR'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One assertion inside a case, tied to the requirement it checks. */
export interface CheckResult {
  requirement: string;
  level: RequirementLevel;
  verdict: Verdict;
  /** What was checked, in a sentence. */
  message: string;
  expected?: unknown;
  actual?: unknown;
  /**
   * Set by `ctx.reading`: which of the requirement's accepted readings (its `accepts`, numbered
   * from 1, the recommended one first) the target was seen to take. Always an INFO check.
   */
  reading?: number;
}

/**
 * Time a case spent waiting for nothing to happen: a silence window it waited out (nothing was
 * owed, and nothing came), a deadline that passed without the awaited message, or a sleep (a
 * session left to expire). Waits that ended because the message came are not recorded.
 */
export interface CaseWait {
  kind: 'silence' | 'deadline' | 'sleep';
  /** What was waited for, in a few words. */
  what: string;
  /** How long, in milliseconds (after --timeout-scale). */
  ms: number;
}

export interface CaseResult {
  /** Stable case ID, e.g. `negotiation/initialize-must-be-json`. */
  id: string;
  suite: string;
  title: string;
  /** Requirement IDs the case checks (from suites/requirements.json). */
  requirements: string[];
  /** The strongest level among the requirements. */
  level: RequirementLevel;
  verdict: Verdict;
  /** Why the verdict, for NOT_APPLICABLE, SKIPPED, TIMEOUT, ERROR and failures. */
  reason?: string;
  /** The requirement text of the first failed check, quoted. */
  requirementText?: string;
  checks: CheckResult[];
  /** Milliseconds since the Unix epoch. */
  startedAt: number;
  durationMs: number;
  /** The case's time limit after --timeout-scale. */
  timeLimitMs: number;
  /** Transcript excerpt (failing, timed-out and erroring cases). */
  transcript?: TranscriptEntry[];
  /** A command line that re-runs exactly this case (with seed and path where input was generated). */
  rerun: string;
  /** fast-check seed and path when the case generated input. */
  seed?: number;
  path?: string;
  /** What the case waited out (silence windows, passed deadlines, sleeps), in order; absent when nothing. */
  waits?: CaseWait[];
  /** Set when a baseline file lists this case: expected to fail, or listed but now passing. */
  baseline?: 'expected-failure' | 'stale';
  /** The baseline's reason for listing this case (with `baseline`). */
  baselineReason?: string;
}

export type VerdictCounts = Record<Verdict, number> & { total: number };

export interface RunResult {
  tool: { name: string; version: string };
  /** What was tested: URL or command, transport, and what it declared. */
  target: {
    description: string;
    transport: string;
    /** What was tested: a server (default) or a client. */
    role?: 'server' | 'client';
    serverInfo?: unknown;
    /** Client runs: the clientInfo the client sent. */
    clientInfo?: unknown;
    protocolVersion?: string;
    capabilities?: unknown;
  };
  /** Options the run used, for the report header (filters, strict, workers, shard...). */
  options: Record<string, unknown>;
  startedAt: number;
  durationMs: number;
  /** The selected cases (--suite/--case/--exclude/--shard), in registry order. */
  cases: CaseResult[];
  summary: VerdictCounts;
  /** Registered cases the filters left out: not in `cases`, so merged shard reports count each case once. */
  notSelected?: number;
  /** Set when the run was interrupted (Ctrl-C): the cases it did not finish are SKIPPED "interrupted". */
  interrupted?: boolean;
  /** Set when the run stopped before its cases ran (target unreachable, pre-flight failed): why. */
  error?: { code: string; message: string };
  /** 0 all required cases pass; 1 a conformance failure; 2 bad usage, a harness error or an interrupted run. */
  exitCode: 0 | 1 | 2;
}

export function emptyCounts(): VerdictCounts {
  const counts = { total: 0 } as VerdictCounts;
  for (const verdict of VERDICTS) counts[verdict] = 0;
  return counts;
}

export function countVerdicts(cases: readonly Pick<CaseResult, 'verdict'>[]): VerdictCounts {
  const counts = emptyCounts();
  for (const result of cases) {
    counts[result.verdict]++;
    counts.total++;
  }
  return counts;
}
