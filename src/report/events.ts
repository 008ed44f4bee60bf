// What a runner tells a live reporter while a run goes on.
import type { CaseResult, RunResult } from '../harness/result.js';

/**
 * `run-start` is optional: when a runner sends it, the console shows progress against the plan
 * (`[3/12]` per suite). case-start, case-end and then run-end (or run-error, when the run could
 * not finish) are the contract every runner emits.
 */
export type ReportEvent =
  | { type: 'run-start'; planned: { suite: string; caseId: string }[] }
  | { type: 'case-start'; caseId: string; suite: string }
  | { type: 'case-end'; result: CaseResult }
  | { type: 'run-end'; result: RunResult }
  /** The run stopped without a result (e.g. the target was unreachable): the reporter finishes with the error. */
  | { type: 'run-error'; error: { code: string; message: string } };

/** Anything that consumes run events (the console reporter, a test spy...). */
export interface ReportListener {
  handle(event: ReportEvent): void;
}
