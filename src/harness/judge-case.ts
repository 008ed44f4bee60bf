// How a case's verdict is decided, apart from running it: whether the case applies to the target,
// and, from the checks it recorded and how it ended (returned, threw, ran past its limit, was
// interrupted), its verdict, the reason shown with it and the checks the runner adds (a failed
// precondition, a case cut short, the schema findings of its transcript). Pure: the runner does
// the running (connections, timers, disposal) and hands the outcome over.
import type { TranscriptFinding } from '../judge/index.js';
import { failureVerdict, type Requirements } from '../protocol/requirements.js';
import { ConnectionError } from '../transport/errors.js';
import type { Discovery, RegisteredCase, TargetDescription } from './case.js';
import { CaseMisuseError, TargetPreconditionError } from './errors.js';
import type { PeerEvidence } from './peer-evidence.js';
import { describeValue, failureReason } from './reason.js';
import type { CheckResult, Verdict } from './result.js';
import { schemaChecks } from './schema-check.js';

/** Reasons of the cases an interrupted run did not finish. */
export const INTERRUPTED_WHILE_RUNNING = 'interrupted: the run was stopped while this case ran (no verdict)';
export const INTERRUPTED_BEFORE_START = 'interrupted: the run was stopped before this case started';

/** How a case ended (or why it did not run). */
export type CaseOutcome =
  /** It does not apply to the target: the reason says what it needs. */
  | { kind: 'not-applicable'; reason: string }
  /** It has an applicability rule, and discovery failed: what the target declares is unknown. */
  | { kind: 'discovery-failed'; error: { code: string; message: string } }
  /** Its applicability rule threw. */
  | { kind: 'applicability-threw'; error: unknown }
  /** The run was interrupted while it ran (before its limit). */
  | { kind: 'interrupted' }
  /** It ran past its limit; `abandoned`: it had still not returned `graceMs` later. */
  | { kind: 'timed-out'; limitMs: number; abandoned: boolean; graceMs: number }
  | { kind: 'returned' }
  | { kind: 'threw'; error: unknown };

export interface JudgeCaseOptions {
  /** The case's ID, for the reason of a case that recorded nothing. */
  caseId: string;
  /** The requirements the case declares; the first is the one a case cut short fails. */
  requirements: readonly string[];
  catalog: Requirements;
  /** WARN becomes FAIL (--strict). */
  strict?: boolean;
  /** What the peer did that the harness saw on its own; asked for only when a case returned without a check or lost its connection. */
  evidence?: () => PeerEvidence | undefined;
  /** The schema findings of the case's transcript; asked for unless the case is an ERROR. */
  findings?: () => readonly TranscriptFinding[];
}

export interface CaseJudgement {
  verdict: Verdict;
  reason?: string;
  /** The case's checks followed by those the judgement added. */
  checks: CheckResult[];
  /** The requirement text of the first failed check. */
  requirementText?: string;
  /** A transcript excerpt belongs to the result: around this transcript position when only schema findings failed. */
  excerpt?: { around?: number };
}

const VERDICT_RANK: Partial<Record<Verdict, number>> = { PASS: 0, INFO: 1, WARN: 2, FAIL: 3, ERROR: 4 };

/** Whether case `c` applies to the target: undefined when it does, else the outcome that says why not. */
export function applicability(c: Pick<RegisteredCase, 'transports' | 'applies'>, discovery: Discovery, target: TargetDescription): CaseOutcome | undefined {
  if (c.transports && !c.transports.includes(target.transport)) {
    return { kind: 'not-applicable', reason: `needs transport ${c.transports.join(' or ')}; the target uses ${target.transport}` };
  }
  if (!c.applies) return undefined;
  if (discovery.error) return { kind: 'discovery-failed', error: discovery.error };
  let applicable: true | string;
  try {
    applicable = c.applies(discovery, target);
  } catch (error) {
    return { kind: 'applicability-threw', error };
  }
  return applicable === true ? undefined : { kind: 'not-applicable', reason: applicable };
}

/** A failed check of `requirement` (or the case's first), at that requirement's level. */
function failedCheck(options: JudgeCaseOptions, requirement: string | undefined, message: string, extra: Pick<CheckResult, 'expected' | 'actual'> = {}): CheckResult {
  const id = requirement !== undefined && options.catalog.has(requirement) ? requirement : (options.requirements[0] as string);
  const level = options.catalog.get(id).level;
  return { requirement: id, level, verdict: failureVerdict(level), message, ...extra };
}

function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : `the case threw ${String(error)}`;
}

/** The verdict of a case from the checks it recorded and how it ended. */
export function judgeCase(recorded: readonly CheckResult[], outcome: CaseOutcome, options: JudgeCaseOptions): CaseJudgement {
  const checks = [...recorded];
  switch (outcome.kind) {
    case 'not-applicable':
      return { verdict: 'NOT_APPLICABLE', reason: outcome.reason, checks };
    case 'applicability-threw':
      return { verdict: 'ERROR', reason: `the applicability rule threw: ${(outcome.error as Error)?.stack ?? String(outcome.error)}`, checks };
    case 'discovery-failed': {
      const check = failedCheck(options, undefined, 'discovery failed, so what the target declares is unknown', {
        expected: 'initialize answered with a result',
        actual: `${outcome.error.code}: ${outcome.error.message}`,
      });
      return { verdict: check.verdict, reason: `discovery failed: ${outcome.error.message}`, checks: [...checks, check] };
    }
    case 'interrupted':
      return { verdict: 'SKIPPED', reason: INTERRUPTED_WHILE_RUNNING, checks };
    default:
      break;
  }

  let verdict: Verdict | undefined;
  let reason: string | undefined;
  /** The runner's own check for a step the target broke: its message already says what failed. */
  let preconditionCheck: CheckResult | undefined;
  if (outcome.kind === 'timed-out') {
    verdict = 'TIMEOUT';
    reason = `the case ran past its time limit of ${outcome.limitMs} ms${outcome.abandoned ? ` and had not returned ${outcome.graceMs} ms later` : ''}`;
  } else if (outcome.kind === 'threw') {
    const error = outcome.error;
    if (error instanceof TargetPreconditionError) {
      preconditionCheck = failedCheck(options, error.requirement, `precondition failed: ${error.message}`, error.actual !== undefined ? { actual: error.actual } : {});
      checks.push(preconditionCheck);
    } else if (error instanceof ConnectionError) {
      // The target's doing: the checks decide, and a case cut short fails its first requirement.
      if (!checks.some((check) => check.verdict === 'FAIL' || check.verdict === 'WARN')) {
        const evidence = options.evidence?.();
        checks.push(
          failedCheck(options, undefined, `the case could not finish${evidence ? ` (${evidence.text})` : ''}`, {
            expected: 'the connection to stay usable until the case ended',
            actual: { code: error.code, message: error.message },
          }),
        );
      }
    } else {
      verdict = 'ERROR';
      reason = errorText(error);
    }
  } else if (checks.length === 0) {
    // The peer may have taken the case off its path before anything could be judged (frames the
    // harness refused, a session it closed, a client that ended): that is the case's failed
    // precondition, charged to what the peer broke when a refusal says so. Otherwise the case is at fault.
    const evidence = options.evidence?.();
    if (evidence) checks.push(failedCheck(options, evidence.requirement, `precondition failed: the case ended before it could judge anything: ${evidence.text}`));
    else {
      verdict = 'ERROR';
      reason = new CaseMisuseError(`case ${options.caseId} returned without recording any check`).message;
    }
  }
  const violations = verdict !== 'ERROR' && options.findings ? schemaChecks(options, options.catalog, options.findings()) : [];
  checks.push(...violations.map((v) => v.check));

  if (options.strict) {
    for (const check of checks) if (check.verdict === 'WARN') check.verdict = 'FAIL';
  }
  if (verdict === undefined) {
    let worst: CheckResult | undefined;
    for (const check of checks) {
      // A note about a requirement the case does not declare (a schema finding another case judges) leaves its verdict alone.
      if (check.verdict === 'INFO' && !options.requirements.includes(check.requirement)) continue;
      if (worst === undefined || (VERDICT_RANK[check.verdict] ?? 0) > (VERDICT_RANK[worst.verdict] ?? 0)) worst = check;
    }
    verdict = worst?.verdict ?? 'PASS';
    // A check that did not hold says what it expected and what came; an INFO names the reading taken.
    if (worst && verdict !== 'PASS') {
      const said = worst === preconditionCheck ? `${worst.message}${'actual' in worst ? `: got ${describeValue(worst.actual)}` : ''}` : failureReason(worst);
      reason = (verdict === 'INFO' ? worst.message : said) + (options.strict && worst.level === 'SHOULD' ? ' (a SHOULD, failed under --strict)' : '');
    }
  }
  const judgement: CaseJudgement = { verdict, checks, ...(reason !== undefined ? { reason } : {}) };
  const firstFailed = checks.find((check) => check.verdict === 'FAIL' || check.verdict === 'WARN' || check.verdict === 'ERROR');
  if (firstFailed && options.catalog.has(firstFailed.requirement)) judgement.requirementText = options.catalog.get(firstFailed.requirement).text;
  if (verdict === 'FAIL' || verdict === 'WARN' || verdict === 'TIMEOUT' || verdict === 'ERROR') {
    const failed = (k: CheckResult) => k.verdict !== 'PASS' && k.verdict !== 'INFO';
    const fromSchema = new Set(violations.map((v) => v.check));
    const otherFailure = checks.some((k) => failed(k) && !fromSchema.has(k));
    const firstSchemaFailure = violations.find((v) => failed(v.check));
    const around = otherFailure || verdict === 'TIMEOUT' ? undefined : firstSchemaFailure?.seq;
    judgement.excerpt = around === undefined ? {} : { around };
  }
  return judgement;
}
