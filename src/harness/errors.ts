// Errors of the harness layer: one class per failure, each with a stable string `code`. The CLI
// maps every HarnessError to exit code 2 (bad usage or a broken harness, never the target's fault).

export class HarnessError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A case definition that cannot be registered (bad ID, no requirements, bad time limit...). */
export class InvalidCaseError extends HarnessError {
  readonly caseId: string;
  constructor(caseId: string, message: string) {
    super('CASE_INVALID', `case ${JSON.stringify(caseId)}: ${message}`);
    this.caseId = caseId;
  }
}

/** A case cites a requirement ID that the catalog does not define. */
export class CaseUnknownRequirementError extends HarnessError {
  readonly caseId: string;
  readonly requirement: string;
  constructor(caseId: string, requirement: string, options?: { cause?: unknown }) {
    super('CASE_UNKNOWN_REQUIREMENT', `case ${JSON.stringify(caseId)} cites requirement ${JSON.stringify(requirement)}, which is not in the requirement catalog`, options);
    this.caseId = caseId;
    this.requirement = requirement;
  }
}

/** Two cases with the same ID. */
export class DuplicateCaseError extends HarnessError {
  readonly caseId: string;
  constructor(caseId: string) {
    super('CASE_DUPLICATE', `a case with ID ${JSON.stringify(caseId)} is already registered`);
    this.caseId = caseId;
  }
}

/** `registry.get` for an ID that no case has. */
export class UnknownCaseError extends HarnessError {
  readonly caseId: string;
  constructor(caseId: string, suggestions: readonly string[] = []) {
    super('CASE_UNKNOWN', `no case has the ID ${JSON.stringify(caseId)}${suggestions.length ? ` (did you mean ${suggestions.join(', ')}?)` : ''}`);
    this.caseId = caseId;
  }
}

/** A filter option that cannot be used (malformed shard, empty glob, unknown suite...). */
export class InvalidFilterError extends HarnessError {
  readonly option: string;
  constructor(option: string, message: string) {
    super('FILTER_INVALID', `${option}: ${message}`);
    this.option = option;
  }
}

/** The filters selected no case at all (the CLI exits 2). */
export class NoCasesSelectedError extends HarnessError {
  constructor(detail: string) {
    super('NO_CASES_SELECTED', `no case matches the filters (${detail})`);
  }
}

/** A baseline file that is unreadable, not JSON, not of the documented shape, or names unknown cases. */
export class BaselineError extends HarnessError {
  readonly file: string | undefined;
  /** JSON pointer of the offending value ('' for the whole document). */
  readonly pointer: string;
  constructor(message: string, pointer: string, file?: string, options?: { cause?: unknown }) {
    super('BASELINE_INVALID', `${file ?? 'baseline'}${pointer ? ` at ${pointer}` : ''}: ${message}`, options);
    this.file = file;
    this.pointer = pointer;
  }
}

/** A run option out of range (workers, timeoutScale, grace...). */
export class RunOptionsError extends HarnessError {
  constructor(message: string) {
    super('RUN_OPTIONS_INVALID', message);
  }
}

/**
 * A case used the harness wrongly (checked a requirement it does not declare, recorded no check,
 * sent a message that breaks the schemas without saying it meant to). The case gets ERROR.
 */
export class CaseMisuseError extends HarnessError {
  constructor(message: string) {
    super('CASE_MISUSE', message);
  }
}

/** The case ran past its time limit; the runner aborts the case's signal with this reason. */
export class CaseTimeoutError extends HarnessError {
  readonly timeLimitMs: number;
  constructor(timeLimitMs: number) {
    super('CASE_TIMEOUT', `the case ran past its time limit of ${timeLimitMs} ms`);
    this.timeLimitMs = timeLimitMs;
  }
}

/** Discovery could not reach the target at all (the CLI exits 2: nothing can be tested). */
export class TargetUnreachableError extends HarnessError {
  /** `hint`: what to try, added to the message (e.g. pass the certificate hash). */
  constructor(description: string, options?: { cause?: unknown; hint?: string }) {
    const detail = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    const hint = options?.hint ? `; ${options.hint}` : '';
    super('TARGET_UNREACHABLE', `cannot connect to ${description}${hint ? detail.replace(/\.$/, '') : detail}${hint}`, options);
  }
}

/**
 * The pre-flight initialize showed that the target cannot be tested: it answered what no MCP
 * endpoint answers (an HTML 404, say), or it stopped before answering (a stdio command that exited
 * at once). The message says what came back; the CLI exits 2.
 */
export class PreflightFailedError extends HarnessError {
  constructor(message: string) {
    super('PREFLIGHT_FAILED', message);
  }
}

/**
 * The target broke a step a case needs before it can check anything (initialize answered an
 * error, a session could not be started). Thrown by a case, it is the target's doing: the case
 * fails `requirement` (the broken step's requirement, or the case's first one when absent).
 */
export class TargetPreconditionError extends HarnessError {
  readonly requirement: string | undefined;
  readonly actual: unknown;
  constructor(message: string, options: { requirement?: string; actual?: unknown } = {}) {
    super('PRECONDITION_FAILED', message);
    this.requirement = options.requirement;
    this.actual = options.actual;
  }
}

/** The run was interrupted (its `signal` aborted, Ctrl-C in the CLI): running cases are aborted with this. */
export class RunInterruptedError extends HarnessError {
  constructor() {
    super('RUN_INTERRUPTED', 'the run was interrupted');
  }
}

/** A target option that cannot be used: `option` as the command line spells it (`--url`), `detail` what is wrong. */
export class TargetOptionError extends HarnessError {
  readonly option: string;
  readonly detail: string;
  constructor(option: string, detail: string, options?: { cause?: unknown }) {
    super('TARGET_OPTION_INVALID', `${option}: ${detail}`, options);
    this.option = option;
    this.detail = detail;
  }
}
