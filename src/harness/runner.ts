// The runner: discovers the target once, then runs the selected cases on fresh connections, up to
// `workers` at a time. Each case gets a verdict within its limit plus a grace period, whatever the
// target does: the limit aborts the case's signal and closes its connection, and the runner stops
// waiting for a case that still has not returned after the grace period.
import { randomInt } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { failureVerdict, type Requirements } from '../protocol/requirements.js';
import { SchemaRegistry } from '../schema/registry.js';
import type { CloseInfo, Connection } from '../transport/connection.js';
import { ConnectFailedError, ConnectionError } from '../transport/errors.js';
import { applyBaseline, exitCodeFor, type Baseline } from './baseline.js';
import type { CaseSession, ClientProcess, Discovery, RegisteredCase, Target, TargetDescription } from './case.js';
import { CaseRun } from './context.js';
import { CaseMisuseError, CaseTimeoutError, RunInterruptedError, RunOptionsError, TargetPreconditionError, TargetUnreachableError } from './errors.js';
import type { CaseRegistry } from './registry.js';
import { countVerdicts, type CaseResult, type CheckResult, type RunResult, type Verdict } from './result.js';
import { describeValue, failureReason } from './reason.js';
import { preflight } from './preflight.js';
import { peerEvidence } from './peer-evidence.js';
import { rerunCommand } from './rerun.js';
import { validateTranscript, type TranscriptFinding } from './schema-check.js';
import { selectCases, type CaseFilters, type Selection } from './selection.js';

/**
 * Progress events, in the shape src/report/events.ts's ReportEvent expects (so a reporter's
 * `handle` can be passed as `onEvent`). Cases left out by filters get no events and are not in
 * the run result (only their number, `notSelected`).
 */
export type RunEvent =
  | { type: 'run-start'; planned: { suite: string; caseId: string }[] }
  | { type: 'case-start'; caseId: string; suite: string }
  | { type: 'case-end'; result: CaseResult }
  | { type: 'run-end'; result: RunResult }
  /** The run stopped without a result (target unreachable, schemas unloadable...); the error follows as a rejection. */
  | { type: 'run-error'; error: { code: string; message: string } };

export interface RunOptions {
  registry: CaseRegistry;
  target: Target;
  filters?: CaseFilters;
  /** Cases run at the same time. Default 4. */
  workers?: number;
  /** Multiplies every time limit and deadline. Default 1. */
  timeoutScale?: number;
  /** WARN becomes FAIL. */
  strict?: boolean;
  baseline?: Baseline;
  /** A stale baseline entry (a listed case that now passes) fails the run. */
  failOnStale?: boolean;
  /** fast-check seed for every property in the run. Default: random, reported per case. */
  seed?: number;
  /** fast-check path to replay (only with one selected case and `seed`). */
  path?: string;
  /** How long after a limit the runner still waits for a case to return. Default 2000 ms (scaled). */
  graceMs?: number;
  /** Deadline of discovery before scaling. Default 15000 ms. */
  discoveryTimeoutMs?: number;
  /** Validate every message against the schemas. Default true. */
  validateSchemas?: boolean;
  /**
   * One initialize on its own connection before discovery (server targets): a target that cannot be
   * tested (refused, an HTML 404, a command that exits at once) ends the run with one
   * TargetUnreachableError or PreflightFailedError instead of a failure per case. Default true.
   */
  preflight?: boolean;
  /** The schema registry (loaded from schemas/ when omitted). */
  schemas?: SchemaRegistry;
  /** Transcript entries kept on failing, timed-out and erroring cases. Default 40. */
  excerptEntries?: number;
  /** The CLI command rerun commands start with. Default 'server'. */
  command?: string;
  /**
   * Interrupts the run (Ctrl-C in the CLI): no further case starts, running cases are aborted, and
   * the run resolves with what finished; the rest is SKIPPED "interrupted" and `interrupted` is set.
   */
  signal?: AbortSignal;
  tool?: { name: string; version: string };
  onEvent?: (event: RunEvent) => void;
}

const VERDICT_RANK: Partial<Record<Verdict, number>> = { PASS: 0, INFO: 1, WARN: 2, FAIL: 3, ERROR: 4 };
/** Waits a case may have pending on its signal at once before Node warns of a listener leak. */
const CASE_SIGNAL_LISTENERS = 1000;
/** Reasons of the cases an interrupted run did not finish. */
export const INTERRUPTED_WHILE_RUNNING = 'interrupted: the run was stopped while this case ran (no verdict)';
export const INTERRUPTED_BEFORE_START = 'interrupted: the run was stopped before this case started';
/**
 * How long the runner waits for a case session's disposal (which settles within its own bound,
 * CaseSession.dispose) before going on without it, so that a target breaking that contract cannot
 * stall the run.
 */
const DISPOSE_LIMIT_MS = 30_000;

let sharedSchemas: SchemaRegistry | undefined;

/** A timer promise that can be cancelled (so no timer outlives the run). */
function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Awaits `promise` for at most `ms`; returns undefined on timeout. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  const timer = delay(ms);
  try {
    return await Promise.race([promise.then((value) => ({ value })), timer.promise.then(() => undefined)]);
  } finally {
    timer.cancel();
  }
}

function checkOptions(options: RunOptions): void {
  const { workers = 4, timeoutScale = 1, graceMs = 2000 } = options;
  if (!Number.isInteger(workers) || workers < 1) throw new RunOptionsError(`workers must be a positive integer, got ${workers}`);
  if (!Number.isFinite(timeoutScale) || timeoutScale <= 0) throw new RunOptionsError(`timeoutScale must be a positive number, got ${timeoutScale}`);
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RunOptionsError(`graceMs must be zero or positive, got ${graceMs}`);
  if (options.seed !== undefined && !Number.isInteger(options.seed)) throw new RunOptionsError(`seed must be an integer, got ${options.seed}`);
  if (options.path !== undefined && options.seed === undefined) throw new RunOptionsError('--path replays a counterexample and needs --seed');
}

/** Runs discovery with a deadline; unreachable targets end the run, other failures are recorded. */
async function discover(target: Target, limitMs: number, graceMs: number, timeoutScale: number, interrupt?: AbortSignal): Promise<Discovery> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new CaseTimeoutError(limitMs)), limitMs);
  const onInterrupt = () => controller.abort(new RunInterruptedError());
  interrupt?.addEventListener('abort', onInterrupt, { once: true });
  try {
    if (interrupt?.aborted) return { error: { code: 'RUN_INTERRUPTED', message: 'the run was interrupted before discovery' } };
    const outcome = await within(
      target.discover(controller.signal, { timeoutScale }).then(
        (discovery) => ({ discovery }),
        (error: unknown) => ({ error }),
      ),
      limitMs + graceMs,
    );
    if (!outcome) return { error: { code: 'DISCOVERY_TIMEOUT', message: `discovery did not finish within ${limitMs} ms` } };
    if ('discovery' in outcome.value) return outcome.value.discovery;
    const error = outcome.value.error;
    if (error instanceof TargetUnreachableError) throw error;
    if (error instanceof ConnectFailedError) throw new TargetUnreachableError(target.describe().description, { cause: error });
    if (error instanceof CaseTimeoutError) return { error: { code: 'DISCOVERY_TIMEOUT', message: `discovery did not finish within ${limitMs} ms` } };
    if (interrupt?.aborted) return { error: { code: 'RUN_INTERRUPTED', message: 'the run was interrupted during discovery' } };
    if (error instanceof ConnectionError) return { error: { code: error.code, message: error.message } };
    throw error;
  } finally {
    clearTimeout(timer);
    interrupt?.removeEventListener('abort', onInterrupt);
  }
}

interface Env {
  options: RunOptions;
  target: TargetDescription;
  discovery: Discovery;
  scale: number;
  graceMs: number;
  seed: number;
  schemas: SchemaRegistry | undefined;
}

function baseResult(c: RegisteredCase, env: Env, startedAt: number): CaseResult {
  return {
    id: c.id,
    suite: c.suite,
    title: c.title,
    requirements: [...c.requirements],
    level: c.level,
    verdict: 'PASS',
    checks: [],
    startedAt,
    durationMs: 0,
    timeLimitMs: c.timeLimitMs * env.scale,
    rerun: rerunCommand({
      targetArgs: env.target.rerunArgs,
      caseId: c.id,
      timeoutScale: env.scale,
      ...(env.options.command !== undefined ? { command: env.options.command } : {}),
      ...(env.options.strict ? { strict: true } : {}),
    }),
  };
}

/** A failed check of the case's first requirement, at that requirement's level. */
function primaryFailure(c: RegisteredCase, env: Env, message: string, expected: unknown, actual: unknown): CheckResult {
  const requirement = c.requirements[0] as string;
  const level = env.options.registry.requirements.get(requirement).level;
  return { requirement, level, verdict: failureVerdict(level), message, expected, actual };
}

/**
 * Schema checks of the case's transcript, each with the transcript position of the message. A
 * broken shape the target sent is a FAIL or WARN (its requirement's level) only in a case that
 * declares the requirement it breaks; every other case that sees the message notes it (an INFO
 * check of that requirement, which leaves the case's verdict alone), so one bad message counts once. Members the documents do not name are INFO notes (rule 4). A message
 * the harness sent that breaks a shape is a bug in the case (ERROR), unless it declares sendsInvalid.
 */
function schemaChecks(c: RegisteredCase, env: Env, connection: Connection): { check: CheckResult; seq: number }[] {
  if (!env.schemas) return [];
  const catalog = env.options.registry.requirements;
  const directions: ('sent' | 'received')[] = c.sendsInvalid ? ['received'] : ['sent', 'received'];
  const findings = validateTranscript(env.schemas, catalog, connection.transcript.entries(), {
    directions,
    targetRole: env.target.role ?? 'server',
    webTransport: env.target.transport === 'webtransport',
  });
  const checks: { check: CheckResult; seq: number }[] = [];
  for (const finding of findings) {
    const check = schemaCheck(c, catalog, finding);
    if (check) checks.push({ check, seq: finding.seq });
  }
  return checks;
}

/** The check one schema finding gives in case `c` (none for extra members the harness itself sent). */
function schemaCheck(c: RegisteredCase, catalog: Requirements, finding: TranscriptFinding): CheckResult | undefined {
  const sent = finding.direction === 'sent';
  if (sent && finding.kind === 'extra-members') return undefined;
  const method = (finding.message as { method?: unknown }).method;
  const name = typeof method === 'string' ? method : `response ${JSON.stringify((finding.message as { id?: unknown }).id)}`;
  const what = `${sent ? 'the harness sent' : 'the target sent'} ${name} (transcript #${finding.seq})`;
  const requirement = finding.requirement ?? finding.annotated[0] ?? (c.requirements[0] as string);
  const level = catalog.get(requirement).level;
  if (finding.kind === 'extra-members') {
    return {
      requirement,
      level,
      verdict: 'INFO',
      message: `${what} with member(s) the documents do not name: ${finding.extraMembers.map((m) => m.pointer).join(', ')} (schema ${finding.schema}); allowed, noted`,
      actual: { extraMembers: finding.extraMembers.map((m) => m.pointer), message: finding.message },
    };
  }
  const issue = finding.issues[0];
  const where = finding.pointer === '' ? '(the message itself)' : finding.pointer;
  const broken = `${what} breaking schema ${finding.schema} at ${where}: ${issue?.message ?? 'invalid'}`;
  const actual = { pointer: finding.pointer, keyword: issue?.keyword, issues: finding.issues.slice(0, 5), message: finding.message };
  const expected = `valid against ${finding.schema}`;
  if (sent) {
    return { requirement, level, verdict: 'ERROR', message: `${broken} (a bug in the case: declare sendsInvalid if it is deliberate)`, expected, actual };
  }
  if (finding.requirement === undefined) {
    return { requirement, level, verdict: 'INFO', message: `${broken} (no requirement of the catalog owns this place: noted, not judged)`, expected, actual };
  }
  if (!c.requirements.includes(finding.requirement)) {
    return { requirement, level, verdict: 'INFO', message: `${broken} (seen; judged by the cases that check ${finding.requirement})`, expected, actual };
  }
  return { requirement, level, verdict: failureVerdict(level), message: broken, expected, actual };
}

/**
 * The transcript entries a reader needs: the last `count`, or, when the only failures are schema
 * violations, the entries around the first violating message.
 */
function excerpt(connection: Connection, count: number, aroundSeq: number | undefined) {
  const entries = connection.transcript.entries();
  if (aroundSeq === undefined) return connection.transcript.excerpt(count);
  const index = entries.findIndex((entry) => entry.seq === aroundSeq);
  if (index < 0) return connection.transcript.excerpt(count);
  const start = Math.max(0, Math.min(index - Math.floor(count / 2), entries.length - count));
  return entries.slice(start, start + count);
}

async function runCase(c: RegisteredCase, env: Env, onSleep?: (asleep: boolean) => void): Promise<CaseResult> {
  const startedAt = Date.now();
  const result = baseResult(c, env, startedAt);
  const finish = (verdict: Verdict, reason?: string): CaseResult => {
    result.verdict = verdict;
    if (reason !== undefined) result.reason = reason;
    result.durationMs = Date.now() - startedAt;
    return result;
  };
  // Applicability.
  if (c.transports && !c.transports.includes(env.target.transport)) {
    return finish('NOT_APPLICABLE', `needs transport ${c.transports.join(' or ')}; the target uses ${env.target.transport}`);
  }
  if (c.applies) {
    if (env.discovery.error) {
      result.checks.push(
        primaryFailure(c, env, 'discovery failed, so what the target declares is unknown', 'initialize answered with a result', `${env.discovery.error.code}: ${env.discovery.error.message}`),
      );
      return finish(result.checks[0]!.verdict, `discovery failed: ${env.discovery.error.message}`);
    }
    let applicable: true | string;
    try {
      applicable = c.applies(env.discovery, env.target);
    } catch (error) {
      return finish('ERROR', `the applicability rule threw: ${(error as Error)?.stack ?? String(error)}`);
    }
    if (applicable !== true) return finish('NOT_APPLICABLE', applicable);
  }

  const limit = c.timeLimitMs * env.scale;
  const controller = new AbortController();
  // A case may wait on many things at once (many requests in flight, each with its own wait).
  setMaxListeners(CASE_SIGNAL_LISTENERS, controller.signal);
  // An interrupted run aborts the cases still running; their results say so (SKIPPED), not a verdict.
  const interrupt = env.options.signal;
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    controller.abort(new RunInterruptedError());
    if (connection) void connection.close('run interrupted').catch(() => undefined);
  };
  interrupt?.addEventListener('abort', onInterrupt, { once: true });
  let timedOut = false;
  let connection: Connection | undefined;
  let closedInfo: CloseInfo | undefined;
  let client: ClientProcess | undefined;
  let run: CaseRun | undefined;
  // The grace period starts when the limit is reached, not with the case.
  let grace: ReturnType<typeof delay> | undefined;
  let onTimeout!: (abandoned: Promise<'abandoned'>) => void;
  const timeout = new Promise<Promise<'abandoned'>>((resolve) => (onTimeout = resolve));
  const timer = setTimeout(() => {
    timedOut = true;
    grace = delay(env.graceMs);
    controller.abort(new CaseTimeoutError(limit));
    if (connection) void connection.close('case time limit reached').catch(() => undefined);
    onTimeout(grace.promise.then(() => 'abandoned' as const));
  }, limit);

  let opening: Promise<CaseSession> | undefined;
  const body = (async () => {
    const target = env.options.target;
    opening = target.openCase
      ? target.openCase(controller.signal, c, { timeoutScale: env.scale })
      : target.connect(controller.signal).then((opened): CaseSession => ({ connection: opened, dispose: async () => undefined }));
    const session = await opening;
    connection = session.connection;
    client = session.client;
    void connection.closed.then((info) => (closedInfo = info));
    if (timedOut) {
      await connection.close('case time limit reached');
      throw controller.signal.reason;
    }
    run = new CaseRun({
      ...(session.client ? { client: session.client } : {}),
      case: c,
      connection,
      signal: controller.signal,
      discovery: env.discovery,
      target: env.target,
      requirements: env.options.registry.requirements,
      timeoutScale: env.scale,
      seed: env.seed,
      ...(env.options.path !== undefined ? { path: env.options.path } : {}),
      ...(onSleep ? { onSleep } : {}),
    });
    await c.run(run);
  })();
  const settled = body.then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const outcome = await Promise.race([settled, timeout.then((abandoned) => Promise.race([settled, abandoned]))]);
  clearTimeout(timer);
  interrupt?.removeEventListener('abort', onInterrupt);
  grace?.cancel();
  // A client that ended on its own, before the runner stopped it below, is evidence about the case.
  const endedFirst = client?.exitStatus !== undefined ? client : undefined;
  if (connection) await within(connection.close(timedOut ? 'case time limit reached' : 'case finished').catch(() => undefined), env.graceMs);
  // What a client target started for the case (its listener, the client process) stops with it;
  // a session still opening when the case was abandoned is disposed whenever it opens.
  const opened = opening as Promise<CaseSession> | undefined;
  if (opened) await within(opened.then((session) => session.dispose(), () => undefined), env.graceMs + DISPOSE_LIMIT_MS);

  // A copy: a case abandoned past its grace may still record checks, and must not change the result.
  const checks: CheckResult[] = run ? [...run.checks] : [];
  result.checks = checks;
  if (run && run.waits.length > 0) result.waits = [...run.waits];
  if (run?.propertyRun) {
    result.seed = run.propertyRun.seed;
    if (run.propertyRun.path !== undefined) result.path = run.propertyRun.path;
    result.rerun = rerunCommand({
      targetArgs: env.target.rerunArgs,
      caseId: c.id,
      seed: run.propertyRun.seed,
      ...(run.propertyRun.path !== undefined ? { path: run.propertyRun.path } : {}),
      timeoutScale: env.scale,
      ...(env.options.command !== undefined ? { command: env.options.command } : {}),
      ...(env.options.strict ? { strict: true } : {}),
    });
  }

  if (interrupted && !timedOut) return finish('SKIPPED', INTERRUPTED_WHILE_RUNNING);

  let verdict: Verdict | undefined;
  let reason: string | undefined;
  /** The runner's own check for a step the target broke: its message already says what failed. */
  let preconditionCheck: CheckResult | undefined;
  if (timedOut) {
    verdict = 'TIMEOUT';
    reason = `the case ran past its time limit of ${limit} ms${outcome === 'abandoned' ? ` and had not returned ${env.graceMs} ms later` : ''}`;
  } else if (outcome !== 'abandoned' && !outcome.ok) {
    const error = outcome.error;
    if (error instanceof TargetPreconditionError) {
      const catalog = env.options.registry.requirements;
      const requirement = error.requirement !== undefined && catalog.has(error.requirement) ? error.requirement : (c.requirements[0] as string);
      const level = catalog.get(requirement).level;
      preconditionCheck = { requirement, level, verdict: failureVerdict(level), message: `precondition failed: ${error.message}`, ...(error.actual !== undefined ? { actual: error.actual } : {}) };
      checks.push(preconditionCheck);
    } else if (error instanceof ConnectionError) {
      // The target's doing: the checks decide, and a case cut short fails its first requirement.
      if (!checks.some((check) => check.verdict === 'FAIL' || check.verdict === 'WARN')) {
        const evidence = connection ? peerEvidence(connection, closedInfo, endedFirst, env.target.role === 'client' ? 'client' : 'server') : undefined;
        checks.push(
          primaryFailure(c, env, `the case could not finish${evidence ? ` (${evidence.text})` : ''}`, 'the connection to stay usable until the case ended', {
            code: error.code,
            message: error.message,
          }),
        );
      }
    } else {
      verdict = 'ERROR';
      reason = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : `the case threw ${String(error)}`;
    }
  } else if (checks.length === 0) {
    // The peer may have taken the case off its path before anything could be judged (frames the
    // harness refused, a session it closed, a client that ended): that is the case's failed
    // precondition, charged to what the peer broke when a refusal says so. Otherwise the case is at fault.
    const evidence = connection ? peerEvidence(connection, closedInfo, endedFirst, env.target.role === 'client' ? 'client' : 'server') : undefined;
    if (evidence) {
      const catalog = env.options.registry.requirements;
      const requirement = evidence.requirement !== undefined && catalog.has(evidence.requirement) ? evidence.requirement : (c.requirements[0] as string);
      const level = catalog.get(requirement).level;
      checks.push({ requirement, level, verdict: failureVerdict(level), message: `precondition failed: the case ended before it could judge anything: ${evidence.text}` });
    } else {
      verdict = 'ERROR';
      reason = new CaseMisuseError(`case ${c.id} returned without recording any check`).message;
    }
  }
  const violations = connection && env.schemas && verdict !== 'ERROR' ? schemaChecks(c, env, connection) : [];
  checks.push(...violations.map((v) => v.check));

  if (env.options.strict) {
    for (const check of checks) if (check.verdict === 'WARN') check.verdict = 'FAIL';
  }
  if (verdict === undefined) {
    let worst: CheckResult | undefined;
    for (const check of checks) {
      // A note about a requirement the case does not declare (a schema finding another case judges) leaves its verdict alone.
      if (check.verdict === 'INFO' && !c.requirements.includes(check.requirement)) continue;
      if (worst === undefined || (VERDICT_RANK[check.verdict] ?? 0) > (VERDICT_RANK[worst.verdict] ?? 0)) worst = check;
    }
    verdict = worst?.verdict ?? 'PASS';
    // A check that did not hold says what it expected and what came; an INFO names the reading taken.
    if (worst && verdict !== 'PASS') {
      const said = worst === preconditionCheck ? `${worst.message}${'actual' in worst ? `: got ${describeValue(worst.actual)}` : ''}` : failureReason(worst);
      reason = (verdict === 'INFO' ? worst.message : said) + (env.options.strict && worst.level === 'SHOULD' ? ' (a SHOULD, failed under --strict)' : '');
    }
  }
  const firstFailed = checks.find((check) => check.verdict === 'FAIL' || check.verdict === 'WARN' || check.verdict === 'ERROR');
  if (firstFailed && env.options.registry.requirements.has(firstFailed.requirement)) {
    result.requirementText = env.options.registry.requirements.get(firstFailed.requirement).text;
  }
  if (connection && (verdict === 'FAIL' || verdict === 'WARN' || verdict === 'TIMEOUT' || verdict === 'ERROR')) {
    const failed = (k: CheckResult) => k.verdict !== 'PASS' && k.verdict !== 'INFO';
    const fromSchema = new Set(violations.map((v) => v.check));
    const otherFailure = checks.some((k) => failed(k) && !fromSchema.has(k));
    const firstSchemaFailure = violations.find((v) => failed(v.check));
    result.transcript = excerpt(connection, env.options.excerptEntries ?? 40, otherFailure || verdict === 'TIMEOUT' ? undefined : firstSchemaFailure?.seq);
  }
  return finish(verdict, reason);
}

/**
 * Runs a conformance run end to end. Throws HarnessError subclasses for bad usage (no case
 * selected, bad options, unreachable target); everything the target does ends up in the result.
 */
export async function runConformance(options: RunOptions): Promise<RunResult> {
  checkOptions(options);
  const runStarted = Date.now();
  const scale = options.timeoutScale ?? 1;
  const graceMs = (options.graceMs ?? 2000) * scale;
  const all = options.registry.list();
  const selection = selectCases(all, options.filters);
  if (options.path !== undefined && selection.selected.length !== 1) {
    throw new RunOptionsError(`--path replays one case's counterexample; ${selection.selected.length} cases are selected`);
  }
  const target = options.target.describe();
  options.onEvent?.({ type: 'run-start', planned: selection.selected.map((c) => ({ suite: c.suite, caseId: c.id })) });
  // Every listener that saw run-start sees run-end or run-error, so each reporter can finish.
  try {
    return await runSelected(options, selection, target, runStarted, scale, graceMs);
  } catch (error) {
    const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'HARNESS_ERROR';
    options.onEvent?.({ type: 'run-error', error: { code, message: error instanceof Error ? error.message : String(error) } });
    throw error;
  }
}

/** The options a run used, as its result records them for the reports. */
function runOptionsRecord(options: RunOptions): Record<string, unknown> {
  return {
    workers: options.workers ?? 4,
    timeoutScale: options.timeoutScale ?? 1,
    strict: options.strict ?? false,
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.filters?.suites?.length ? { suites: [...options.filters.suites] } : {}),
    ...(options.filters?.cases?.length ? { cases: [...options.filters.cases] } : {}),
    ...(options.filters?.exclude?.length ? { exclude: [...options.filters.exclude] } : {}),
    ...(options.filters?.shard ? { shard: `${options.filters.shard.index}/${options.filters.shard.count}` } : {}),
    ...(options.baseline ? { baselineEntries: Object.keys(options.baseline.expectedFailures).length } : {}),
    ...(options.failOnStale ? { failOnStale: true } : {}),
  };
}

/**
 * The result of a run that stopped before its cases ran (the target unreachable, the pre-flight
 * failed): no case, the error at run level, exit code 2. Written as the reports of such a run, so
 * a CI step that uploads them finds them and shows why.
 */
export function stoppedRunResult(options: RunOptions, error: unknown, startedAt: number): RunResult {
  const target = options.target.describe();
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'HARNESS_ERROR';
  const registered = options.registry.size;
  let selected = registered;
  try {
    selected = selectCases(options.registry.list(), options.filters).selected.length;
  } catch {
    // filters that select nothing stop the run before it starts; the count is then moot
  }
  return {
    tool: options.tool ?? { name: 'mcp-flow-conformance', version: '0.1.0' },
    target: { description: target.description, transport: target.transport, ...(target.role !== undefined ? { role: target.role } : {}) },
    options: runOptionsRecord(options),
    startedAt,
    durationMs: Date.now() - startedAt,
    cases: [],
    summary: countVerdicts([]),
    notSelected: registered - selected,
    error: { code, message: error instanceof Error ? error.message : String(error) },
    exitCode: 2,
  };
}

/**
 * The order cases start in: those that sleep by design first (their sleep then overlaps the rest
 * of the run), the others in registry order. Not by time limit: the long limits belong to the
 * heavy cases (large streams, floods), which must not all start at once. Results keep the registry order.
 */
function startOrder(cases: readonly RegisteredCase[]): RegisteredCase[] {
  return [...cases.filter((c) => c.sleeps), ...cases.filter((c) => !c.sleeps)];
}

/**
 * Runs `queue` (taken from the front) with up to `workers` cases awake at a time: a case asleep
 * (`ctx.sleep`) gives its worker to the next case and takes one back when it wakes, without
 * waiting for it. Once `interrupt` aborts no further case starts; what was not started stays in
 * `queue`. Settles when every started case has.
 */
async function runPool(
  queue: RegisteredCase[],
  workers: number,
  run: (c: RegisteredCase, onSleep: (asleep: boolean) => void) => Promise<void>,
  interrupt: AbortSignal | undefined,
): Promise<PromiseSettledResult<void>[]> {
  let awake = 0;
  let wake: (() => void) | undefined;
  const changed = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const started: Promise<void>[] = [];
  while (queue.length > 0 && !interrupt?.aborted) {
    if (awake >= workers) {
      await new Promise<void>((resolve) => (wake = resolve));
      continue;
    }
    const c = queue.shift()!;
    awake++;
    let asleep = false;
    const onSleep = (sleeping: boolean) => {
      if (sleeping === asleep) return;
      asleep = sleeping;
      awake += sleeping ? -1 : 1;
      changed();
    };
    started.push(
      run(c, onSleep).finally(() => {
        if (!asleep) awake--;
        asleep = true;
        changed();
      }),
    );
  }
  return Promise.allSettled(started);
}

/** Discovery, then the selected cases on `workers` workers, then the run result (run-end). */
async function runSelected(
  options: RunOptions,
  selection: Selection,
  target: TargetDescription,
  runStarted: number,
  scale: number,
  graceMs: number,
): Promise<RunResult> {
  const schemas = options.validateSchemas === false ? undefined : (options.schemas ?? (sharedSchemas ??= SchemaRegistry.load()));
  const discoveryLimitMs = (options.discoveryTimeoutMs ?? 15_000) * scale;
  const interrupt = options.signal;
  if (options.preflight !== false && target.role !== 'client' && !interrupt?.aborted) {
    await preflight(options.target, { limitMs: discoveryLimitMs, ...(interrupt ? { signal: interrupt } : {}) });
  }
  const discovery = await discover(options.target, discoveryLimitMs, graceMs, scale, interrupt);
  const env: Env = { options, target, discovery, scale, graceMs, seed: options.seed ?? randomInt(0, 2 ** 31 - 1), schemas };

  const results = new Map<string, CaseResult>();
  const queue = startOrder(selection.selected);
  const runOne = async (c: RegisteredCase, onSleep: (asleep: boolean) => void): Promise<void> => {
    options.onEvent?.({ type: 'case-start', caseId: c.id, suite: c.suite });
    let result: CaseResult;
    try {
      result = await runCase(c, env, onSleep);
    } catch (error) {
      // Whatever broke while running one case is that case's ERROR; the other cases carry on.
      result = baseResult(c, env, Date.now());
      result.verdict = 'ERROR';
      result.reason = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : `the runner failed on this case: ${String(error)}`;
    }
    applyBaseline(result, options.baseline);
    results.set(c.id, result);
    options.onEvent?.({ type: 'case-end', result });
  };
  // allSettled: a case whose events still throw (a listener failing, say) does not end the run while
  // the others are mid-case; the first such error is raised once every case has stopped.
  const settled = await runPool(queue, options.workers ?? 4, runOne, interrupt);
  const failedWorker = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failedWorker) throw failedWorker.reason;

  for (const c of queue) {
    const skipped = baseResult(c, env, Date.now());
    skipped.verdict = 'SKIPPED';
    skipped.reason = INTERRUPTED_BEFORE_START;
    results.set(c.id, skipped);
  }
  // Only the selected cases: a shard's or a filtered run's reports list what ran, so merged shard
  // reports count each case once; the rest is a count (`notSelected`).
  const cases = selection.selected.map((c) => results.get(c.id) as CaseResult);
  const wasInterrupted = interrupt?.aborted === true;
  const runResult: RunResult = {
    tool: options.tool ?? { name: 'mcp-flow-conformance', version: '0.1.0' },
    target: {
      description: target.description,
      transport: target.transport,
      ...(target.role !== undefined ? { role: target.role } : {}),
      ...(discovery.serverInfo !== undefined ? { serverInfo: discovery.serverInfo } : {}),
      ...(discovery.clientInfo !== undefined ? { clientInfo: discovery.clientInfo } : {}),
      ...(discovery.protocolVersion !== undefined ? { protocolVersion: discovery.protocolVersion } : {}),
      ...(discovery.capabilities !== undefined ? { capabilities: discovery.capabilities } : {}),
    },
    options: {
      ...runOptionsRecord(options),
      seed: env.seed,
      ...(discovery.error ? { discoveryError: discovery.error } : {}),
    },
    startedAt: runStarted,
    durationMs: Date.now() - runStarted,
    cases,
    summary: countVerdicts(cases),
    notSelected: selection.skipped.length,
    ...(wasInterrupted ? { interrupted: true } : {}),
    exitCode: exitCodeFor(cases, { failOnStale: options.failOnStale ?? false, interrupted: wasInterrupted }),
  };
  options.onEvent?.({ type: 'run-end', result: runResult });
  return runResult;
}
