// The runner: discovers the target once, then runs the selected cases on fresh connections, up to
// `workers` at a time. Each case gets a verdict within its limit plus a grace period, whatever the
// target does: the limit aborts the case's signal and closes its connection, and the runner stops
// waiting for a case that still has not returned after the grace period.
import { randomInt } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { judgeTranscript } from '../judge/index.js';
import { SchemaRegistry } from '../schema/registry.js';
import type { CloseInfo, Connection } from '../transport/connection.js';
import { ConnectFailedError, ConnectionError } from '../transport/errors.js';
import { boundValue, checkMessageLimit, DEFAULT_MAX_MESSAGE_BYTES } from '../transport/message-bound.js';
import { applyBaseline, exitCodeFor, type Baseline } from './baseline.js';
import { DEFAULT_WORKERS, type CaseSession, type ClientProcess, type Discovery, type RegisteredCase, type Target, type TargetDescription } from './case.js';
import { CaseRun } from './context.js';
import { CaseTimeoutError, RunInterruptedError, RunOptionsError, TargetUnreachableError } from './errors.js';
import { applicability, INTERRUPTED_BEFORE_START, judgeCase, type CaseJudgement, type CaseOutcome, type JudgeCaseOptions } from './judge-case.js';
import type { CaseRegistry } from './registry.js';
import { countVerdicts, type CaseResult, type CheckResult, type RunResult } from './result.js';
import { preflight } from './preflight.js';
import { peerEvidence } from './peer-evidence.js';
import { rerunCommand } from './rerun.js';
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
  /** Cases run at the same time. Default: the target's defaultWorkers, else DEFAULT_WORKERS (4). */
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
  /**
   * Bytes of one value a check keeps as its expected or actual (a case may put a whole message
   * there): a larger value is kept as its size, SHA-256 and first characters. Default 64 KiB; the
   * targets' transcripts take the same limit (TranscriptOptions.maxMessageBytes).
   */
  maxMessageBytes?: number;
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

/** Waits a case may have pending on its signal at once before Node warns of a listener leak. */
const CASE_SIGNAL_LISTENERS = 1000;
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

/** Cases run at the same time in this run. */
function workersOf(options: RunOptions): number {
  return options.workers ?? options.target.defaultWorkers ?? DEFAULT_WORKERS;
}

function checkOptions(options: RunOptions): void {
  const { timeoutScale = 1, graceMs = 2000 } = options;
  const workers = workersOf(options);
  if (!Number.isInteger(workers) || workers < 1) throw new RunOptionsError(`workers must be a positive integer, got ${workers}`);
  if (!Number.isFinite(timeoutScale) || timeoutScale <= 0) throw new RunOptionsError(`timeoutScale must be a positive number, got ${timeoutScale}`);
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RunOptionsError(`graceMs must be zero or positive, got ${graceMs}`);
  if (options.seed !== undefined && !Number.isInteger(options.seed)) throw new RunOptionsError(`seed must be an integer, got ${options.seed}`);
  if (options.path !== undefined && options.seed === undefined) throw new RunOptionsError('--path replays a counterexample and needs --seed');
  if (options.maxMessageBytes !== undefined) {
    try {
      checkMessageLimit(options.maxMessageBytes);
    } catch (error) {
      throw new RunOptionsError((error as Error).message);
    }
  }
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
  maxMessageBytes: number;
}

/** A check as its case result keeps it: expected and actual held to the message limit. */
function keptCheck(check: CheckResult, limit: number): CheckResult {
  const kept = { ...check };
  if ('expected' in kept) kept.expected = boundValue(kept.expected, limit);
  if ('actual' in kept) kept.actual = boundValue(kept.actual, limit);
  return kept;
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
  const judge = (checks: readonly CheckResult[], outcome: CaseOutcome, extra: Pick<JudgeCaseOptions, 'evidence' | 'findings'> = {}): CaseJudgement =>
    judgeCase(checks, outcome, { caseId: c.id, requirements: c.requirements, catalog: env.options.registry.requirements, strict: env.options.strict ?? false, ...extra });
  const finish = (judgement: CaseJudgement): CaseResult => {
    result.verdict = judgement.verdict;
    // The checks the judgement added (a failed precondition's actual) are held to the limit too.
    result.checks = judgement.checks.map((check) => keptCheck(check, env.maxMessageBytes));
    if (judgement.reason !== undefined) result.reason = judgement.reason;
    if (judgement.requirementText !== undefined) result.requirementText = judgement.requirementText;
    result.durationMs = Date.now() - startedAt;
    return result;
  };
  const unfit = applicability(c, env.discovery, env.target);
  if (unfit) return finish(judge([], unfit));

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
      // A second connection to a server target (ctx.openConnection); a client under test connects to us instead.
      ...(env.target.role !== 'client' ? { connect: (signal: AbortSignal) => target.connect(signal) } : {}),
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
  if (run) await within(run.closeOpened(timedOut ? 'case time limit reached' : 'case finished'), env.graceMs);
  // What a client target started for the case (its listener, the client process) stops with it;
  // a session still opening when the case was abandoned is disposed whenever it opens.
  const opened = opening as Promise<CaseSession> | undefined;
  if (opened) await within(opened.then((session) => session.dispose(), () => undefined), env.graceMs + DISPOSE_LIMIT_MS);

  // A copy: a case abandoned past its grace may still record checks, and must not change the result.
  // Values are held to the message limit, so a huge answer is not kept until the end of the run.
  const checks: CheckResult[] = run ? run.checks.map((check) => keptCheck(check, env.maxMessageBytes)) : [];
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

  const ended: CaseOutcome = timedOut
    ? { kind: 'timed-out', limitMs: limit, abandoned: outcome === 'abandoned', graceMs: env.graceMs }
    : interrupted
      ? { kind: 'interrupted' }
      : outcome !== 'abandoned' && !outcome.ok
        ? { kind: 'threw', error: outcome.error }
        : { kind: 'returned' };
  const peer = env.target.role === 'client' ? 'client' : 'server';
  const judged: Connection | undefined = connection;
  const judgement = judge(checks, ended, {
    evidence: () => (judged ? peerEvidence(judged, closedInfo, endedFirst, peer) : undefined),
    ...(judged && env.schemas ? { findings: () => caseFindings(env, c, judged) } : {}),
  });
  if (judged && judgement.excerpt) result.transcript = excerpt(judged, env.options.excerptEntries ?? 40, judgement.excerpt.around);
  return finish(judgement);
}

/** What the schemas find in a case's transcript: the target's messages, and the harness's unless the case sends invalid ones on purpose. */
function caseFindings(env: Env, c: RegisteredCase, connection: Connection) {
  return judgeTranscript(env.schemas as SchemaRegistry, env.options.registry.requirements, connection.transcript.entries(), {
    directions: c.sendsInvalid ? ['received'] : ['sent', 'received'],
    targetRole: env.target.role ?? 'server',
    webTransport: env.target.transport === 'webtransport',
  });
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
    workers: workersOf(options),
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
  const env: Env = {
    options,
    target,
    discovery,
    scale,
    graceMs,
    seed: options.seed ?? randomInt(0, 2 ** 31 - 1),
    schemas,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  };

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
  const settled = await runPool(queue, workersOf(options), runOne, interrupt);
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
