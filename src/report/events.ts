// What a runner tells a live reporter while a run goes on.
import type { CaseResult, RunResult } from '../harness/result.js';

/**
 * `run-start` is optional: when a runner sends it, the console shows progress against the plan
 * (`[3/12]` per suite). The other three are the contract every runner emits.
 */
export type ReportEvent =
  | { type: 'run-start'; planned: { suite: string; caseId: string }[] }
  | { type: 'case-start'; caseId: string; suite: string }
  | { type: 'case-end'; result: CaseResult }
  | { type: 'run-end'; result: RunResult };

/** Anything that consumes run events (the console reporter, a test spy...). */
export interface ReportListener {
  handle(event: ReportEvent): void;
}
