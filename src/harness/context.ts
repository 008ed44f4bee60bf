// What a running case holds: its connection, its signal, and the checks it recorded. The verdict
// of a failed check is the requirement's (MUST fails, SHOULD warns); a case never picks it.
import fc from 'fast-check';
import { isResponseTo, request } from '../protocol/jsonrpc.js';
import { failureVerdict, type Requirements } from '../protocol/requirements.js';
import type { Connection, ReceivedMessage } from '../transport/connection.js';
import { ConnectionClosedError, ConnectionTimeoutError } from '../transport/errors.js';
import type { CaseContext, CheckDetails, ClientProcess, Discovery, ExpectAnswerOptions, PropertyOptions, RegisteredCase, TargetDescription } from './case.js';
import { CaseMisuseError } from './errors.js';
import type { CheckResult } from './result.js';

/** Default answer deadline (before --timeout-scale), capped at half the case's own limit. */
export const DEFAULT_ANSWER_MS = 5_000;

export interface PropertyRun {
  seed: number;
  /** fast-check path of the counterexample (or the path the run was asked to replay). */
  path?: string;
}

export interface CaseRunOptions {
  case: RegisteredCase;
  connection: Connection;
  signal: AbortSignal;
  discovery: Discovery;
  target: TargetDescription;
  requirements: Requirements;
  timeoutScale: number;
  /** Client runs: the client process under test. */
  client?: ClientProcess;
  /** fast-check seed of the run; `path` replays one counterexample. */
  seed: number;
  path?: string;
  /** Opens another connection to the target (server runs); without it `openConnection` is a misuse. */
  connect?: (signal: AbortSignal) => Promise<Connection>;
}

/** The index of the one accepted reading whose text contains `words` (case-insensitive), or -1. */
function readingIndex(accepts: readonly string[], words: string): number {
  const wanted = words.toLowerCase();
  const matching = accepts.flatMap((text, index) => (text.toLowerCase().includes(wanted) ? [index] : []));
  return matching.length === 1 ? (matching[0] as number) : -1;
}

/** The CaseContext a case sees; the runner reads `checks` and `property` afterwards. */
export class CaseRun implements CaseContext {
  readonly caseId: string;
  readonly connection: Connection;
  readonly signal: AbortSignal;
  readonly discovery: Discovery;
  readonly target: TargetDescription;
  readonly client: ClientProcess | undefined;
  readonly timeLimitMs: number;
  readonly checks: CheckResult[] = [];
  /** Set once the case ran a property. */
  propertyRun: PropertyRun | undefined;
  readonly #case: RegisteredCase;
  readonly #requirements: Requirements;
  readonly #scale: number;
  readonly #seed: number;
  readonly #path: string | undefined;
  readonly #options: CaseRunOptions;
  /** Connections `openConnection` opened (shared with the contexts it returned). */
  readonly #opened: Connection[];
  #nextId = 1;

  /** `shared`: the checks and opened connections of the context this one is a second connection of. */
  constructor(options: CaseRunOptions, shared?: { checks: CheckResult[]; opened: Connection[] }) {
    this.#options = options;
    this.#opened = shared?.opened ?? [];
    if (shared) this.checks = shared.checks;
    this.#case = options.case;
    this.caseId = options.case.id;
    this.connection = options.connection;
    this.signal = options.signal;
    this.discovery = options.discovery;
    this.target = options.target;
    this.client = options.client;
    this.#requirements = options.requirements;
    this.#scale = options.timeoutScale;
    this.timeLimitMs = options.case.timeLimitMs * options.timeoutScale;
    this.#seed = options.seed;
    this.#path = options.path;
  }

  scaled(ms: number): number {
    return ms * this.#scale;
  }

  #declared(requirement: string): void {
    if (!this.#case.requirements.includes(requirement)) {
      throw new CaseMisuseError(
        `case ${this.caseId} checked ${requirement}, which it does not declare (declared: ${this.#case.requirements.join(', ')})`,
      );
    }
  }

  check(requirement: string, condition: boolean, details: CheckDetails): boolean {
    this.#declared(requirement);
    const level = this.#requirements.get(requirement).level;
    const result: CheckResult = { requirement, level, verdict: condition ? 'PASS' : failureVerdict(level), message: details.message };
    if ('expected' in details) result.expected = details.expected;
    if ('actual' in details) result.actual = details.actual;
    this.checks.push(result);
    return condition;
  }

  info(requirement: string, message: string, actual?: unknown): void {
    this.#declared(requirement);
    const level = this.#requirements.get(requirement).level;
    this.checks.push({ requirement, level, verdict: 'INFO', message, ...(actual !== undefined ? { actual } : {}) });
  }

  reading(requirement: string, which: number | string, note?: string, actual?: unknown): void {
    this.#declared(requirement);
    const { level, accepts } = this.#requirements.get(requirement);
    if (accepts === undefined) throw new CaseMisuseError(`case ${this.caseId} reported a reading of ${requirement}, which lists no accepted readings`);
    const index = typeof which === 'number' ? which - 1 : readingIndex(accepts, which);
    const text = accepts[index];
    if (text === undefined || index < 0) {
      throw new CaseMisuseError(
        `case ${this.caseId} reported reading ${JSON.stringify(which)} of ${requirement}, which lists: ${accepts.map((a, n) => `${n + 1}. ${a}`).join('; ')}`,
      );
    }
    const message = `reading ${index + 1} of ${requirement}${index === 0 ? ' (recommended)' : ''}: ${text}${note !== undefined ? ` (${note})` : ''}`;
    this.checks.push({ requirement, level, verdict: 'INFO', message, reading: index + 1, ...(actual !== undefined ? { actual } : {}) });
  }

  nextId(): number {
    return this.#nextId++;
  }

  async next(predicate?: (received: ReceivedMessage) => boolean, options: { timeoutMs?: number } = {}): Promise<ReceivedMessage> {
    return this.connection.next(predicate, {
      signal: this.signal,
      ...(options.timeoutMs !== undefined ? { timeoutMs: this.scaled(options.timeoutMs) } : {}),
    });
  }

  async expectAnswer(requirement: string, id: string | number, options: ExpectAnswerOptions = {}): Promise<Record<string, unknown> | undefined> {
    this.#declared(requirement);
    const base = options.timeoutMs ?? Math.min(DEFAULT_ANSWER_MS, this.#case.timeLimitMs / 2);
    const timeoutMs = this.scaled(base);
    const what = options.what ?? `request ${JSON.stringify(id)}`;
    try {
      const received = await this.connection.next((r) => isResponseTo(r.message, id), { timeoutMs, signal: this.signal });
      return received.message as Record<string, unknown>;
    } catch (error) {
      if (this.signal.aborted) throw error;
      if (error instanceof ConnectionTimeoutError) {
        this.check(requirement, false, { message: `no answer to ${what} within ${timeoutMs} ms`, expected: `a response with id ${JSON.stringify(id)}`, actual: 'no response' });
        return undefined;
      }
      if (error instanceof ConnectionClosedError) {
        this.check(requirement, false, {
          message: `the connection closed before ${what} was answered`,
          expected: `a response with id ${JSON.stringify(id)}`,
          actual: 'connection closed',
        });
        return undefined;
      }
      throw error;
    }
  }

  async request(
    requirement: string,
    method: string,
    params?: Record<string, unknown>,
    options: ExpectAnswerOptions = {},
  ): Promise<Record<string, unknown> | undefined> {
    this.#declared(requirement);
    const id = this.nextId();
    try {
      await this.connection.send(request(id, method, params));
    } catch (error) {
      if (error instanceof ConnectionClosedError) {
        this.check(requirement, false, { message: `the connection closed before ${method} could be sent`, actual: 'connection closed' });
        return undefined;
      }
      throw error;
    }
    return this.expectAnswer(requirement, id, { what: method, ...options });
  }

  async property<T>(
    requirement: string,
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<boolean | void>,
    options: PropertyOptions = {},
  ): Promise<boolean> {
    this.#declared(requirement);
    if (this.propertyRun) throw new CaseMisuseError(`case ${this.caseId} runs more than one property; one seed/path can only replay one`);
    this.propertyRun = { seed: this.#seed, ...(this.#path !== undefined ? { path: this.#path } : {}) };
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (value) => {
        this.signal.throwIfAborted();
        return predicate(value);
      }),
      { seed: this.#seed, numRuns: options.numRuns ?? 50, ...(this.#path !== undefined ? { path: this.#path } : {}) },
    );
    if (this.signal.aborted) throw this.signal.reason;
    if (!details.failed) {
      this.check(requirement, true, { message: `property held for ${details.numRuns} generated input(s) (seed ${this.#seed})` });
      return true;
    }
    const thrown = details.errorInstance;
    // A predicate that broke on its own (a bug in the case, not the target's answer) is the harness's ERROR.
    if (thrown instanceof TypeError || thrown instanceof ReferenceError) throw thrown;
    this.propertyRun = { seed: details.seed, ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}) };
    this.check(requirement, false, {
      message: `counterexample found (seed ${details.seed}, path ${details.counterexamplePath})${thrown instanceof Error ? `: ${thrown.message}` : ''}`,
      expected: 'the property holds for every generated input',
      actual: details.counterexample?.[0],
    });
    return false;
  }

  note(text: string): void {
    this.connection.transcript.event(text);
  }

  async openConnection(): Promise<CaseContext> {
    const connect = this.#options.connect;
    if (connect === undefined) throw new CaseMisuseError(`case ${this.caseId} asked for a second connection, which this target cannot open (a client under test connects to the harness)`);
    this.signal.throwIfAborted();
    const connection = await connect(this.signal);
    this.#opened.push(connection);
    this.note(`a second connection to the target was opened (${connection.kind})`);
    return new CaseRun({ ...this.#options, connection }, { checks: this.checks, opened: this.#opened });
  }

  /** Closes the connections `openConnection` opened (the runner calls it once the case ended). */
  async closeOpened(reason: string): Promise<void> {
    await Promise.all(this.#opened.splice(0).map((connection) => connection.close(reason).catch(() => undefined)));
  }
}
