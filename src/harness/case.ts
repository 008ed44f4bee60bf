// What a conformance case is, what it runs against (a Target) and what it can do while it runs
// (the CaseContext). Suites write `defineCase({...})`; the runner does the rest:
//
//   export default defineCase({
//     id: 'lifecycle/ping-answered', suite: 'lifecycle', title: 'ping is answered with {}',
//     requirements: ['CORE-LIFE-12'],
//     async run(ctx) {
//       const answer = await ctx.request('CORE-LIFE-12', 'ping');     // no answer -> FAIL of CORE-LIFE-12
//       if (answer) ctx.check('CORE-LIFE-12', isEmptyObject(answer.result),
//         { message: 'ping result is {}', expected: {}, actual: answer.result });
//     },
//   });
//
// Each case runs on a fresh connection that the runner opens and closes; every message on it is
// validated against the schemas afterwards. Pass `ctx.signal` to any wait of your own.
import type { Connection, ReceivedMessage, TransportKind } from '../transport/connection.js';
import type { CaseWait, RequirementLevel } from './result.js';

/** What the target declared, learnt once per run by `Target.discover()` (initialize + lists). */
export interface Discovery {
  /** The protocol version the initialize result named. */
  protocolVersion?: string;
  serverInfo?: unknown;
  /** `result.capabilities` of the initialize result. */
  capabilities?: Record<string, unknown>;
  instructions?: string;
  /** `result.transport` of the initialize result (WebTransport binding). */
  transport?: Record<string, unknown>;
  /** Names from tools/list, prompts/list, resources/list (first page), where declared. */
  tools?: string[];
  prompts?: string[];
  resources?: string[];
  /**
   * MCP Flow: the result of the `capabilities` method when the server answered it with an object
   * (absent when it answered an error or was not asked).
   */
  flowCapabilities?: Record<string, unknown>;
  /**
   * MCP Flow: tools that `interaction.start` accepted during discovery (each started session was
   * cancelled at once), or the names the user gave with --interactive-tool. Probed only when the
   * server advertises interactive support somewhere (C-14).
   */
  interactiveTools?: string[];
  /**
   * The slowest round trip (request sent to answer received, in ms) among discovery's requests
   * that ask for no work (not initialize, tools/call or interaction.*: context.ts
   * timesTargetSpeed): how fast the target answers, for windows that wait for nothing.
   */
  roundTripMs?: number;
  /** Set when discovery reached the target but did not complete (e.g. initialize answered an error). */
  error?: { code: string; message: string };
  /**
   * Client runs: `params.clientInfo` of the client's initialize. `protocolVersion`, `capabilities`
   * and `transport` then hold the client's `params.protocolVersion`, `params.capabilities` and
   * `params.transport` (what the client asked for and declared).
   */
  clientInfo?: unknown;
}

export interface TargetDescription {
  /** URL or command line, as the user gave it. */
  description: string;
  transport: TransportKind;
  /** What the implementation under test is. Default 'server'. */
  role?: 'server' | 'client';
  /** The arguments that point the CLI at this target again (`--url https://...`), used in rerun commands. */
  rerunArgs: string[];
}

/** The scenario a client under test runs for one case (docs/client-scenarios.md). */
export interface ClientScenario {
  /** `MCP_FLOW_SCENARIO`: `initialize`, `tools-call` or `interaction`. */
  name: string;
  /** `MCP_FLOW_CONTEXT` (JSON): the scenario's parameters. */
  context?: Record<string, unknown>;
}

/** Client runs: the process of the client under test. */
export interface ClientProcess {
  readonly pid: number | undefined;
  /** Resolves when the process ended. Never rejects. */
  readonly exited: Promise<ClientExit>;
  /** Set once the process ended. */
  readonly exitStatus: ClientExit | undefined;
  /** What the process wrote, line by line (the last lines when it wrote very many). */
  stdoutLines(): readonly string[];
  stderrLines(): readonly string[];
}

export interface ClientExit {
  code: number | null;
  signal: string | null;
}

/** One case's connection and whatever else the target started for it. */
export interface CaseSession {
  connection: Connection;
  /** Client runs: the client process the session belongs to. */
  client?: ClientProcess;
  /**
   * Stops what the target started for the case; the runner calls it after closing the connection.
   * Never rejects, and settles within a bound of its own: afterwards nothing the case started
   * (listener, session, timer, process) keeps the harness running.
   */
  dispose(): Promise<void>;
}

/** The implementation under test. Every case gets a fresh connection from `connect` (or `openCase`). */
export interface Target {
  describe(): TargetDescription;
  /** Opens a new connection (no initialize). Rejects with a ConnectionError when it cannot. */
  connect(signal: AbortSignal): Promise<Connection>;
  /**
   * Opens the session of one case, when the target needs to know which (a client target starts the
   * case's scenario). Rejects with a ConnectionError when it cannot. Default: `connect`.
   */
  openCase?(signal: AbortSignal, c: RegisteredCase, run: { timeoutScale: number }): Promise<CaseSession>;
  /** Called once per run before any case; its result feeds applicability. */
  discover(signal: AbortSignal, run?: { timeoutScale: number }): Promise<Discovery>;
  /**
   * Cases run at the same time when the run does not say (RunOptions.workers). Default
   * DEFAULT_WORKERS; a target that starts a process per case (stdio) says more: each case first
   * waits on its process's start, and more at once keep the machine busy meanwhile.
   */
  defaultWorkers?: number;
}

/** Cases run at the same time when neither the run nor its target says otherwise. */
export const DEFAULT_WORKERS = 4;

/** `true` when the case applies; otherwise the reason it does not (reported with NOT_APPLICABLE). */
export type Applicability = true | string;

/** Arguments of a check: what was checked and, for a failure, what was expected and seen. */
export interface CheckDetails {
  message: string;
  expected?: unknown;
  actual?: unknown;
}

export interface ExpectAnswerOptions {
  /** How long to wait (before --timeout-scale). Default: the context's answer deadline. */
  timeoutMs?: number;
  /** What was asked, for the failure message (e.g. "tools/list"). */
  what?: string;
}

export interface PropertyOptions {
  /** Runs of the property. Default 50. */
  numRuns?: number;
}

export interface CaseContext {
  readonly caseId: string;
  /** A fresh connection to the target, closed by the runner after the case. */
  readonly connection: Connection;
  /** Aborted when the case runs past its limit (reason: CaseTimeoutError). Pass it to every wait. */
  readonly signal: AbortSignal;
  readonly discovery: Discovery;
  readonly target: TargetDescription;
  /** Client runs: the process of the client under test (its exit status, its output). */
  readonly client?: ClientProcess;
  /** The case's limit after --timeout-scale. */
  readonly timeLimitMs: number;
  /** Stretches a duration by --timeout-scale. */
  scaled(ms: number): number;
  /**
   * How fast the target answers: the slowest round trip (a request that asks for no work, i.e.
   * not initialize, tools/call or interaction.*, sent to its answer received, ms) this case has
   * seen so far, else discovery's; undefined before either.
   */
  readonly roundTripMs: number | undefined;
  /**
   * A window in which a message the target owes no one would have arrived, from the target's
   * speed: QUIET_ROUND_TRIPS round trips with a floor of QUIET_FLOOR_MS, never longer than
   * `baseMs` (the fixed window used while no round trip is known). Like every duration a case
   * passes to `next`, before --timeout-scale (`scaled` stretches it).
   */
  quietMs(baseMs: number): number;

  /**
   * Records one check of `requirement` (one the case declares). A failed check's verdict comes from
   * the requirement's level: MUST -> FAIL, SHOULD -> WARN, MAY/INFO -> INFO. Returns `condition`.
   */
  check(requirement: string, condition: boolean, details: CheckDetails): boolean;
  /** Records a note about what the target did (an INFO result); which accepted reading it took is `reading`. */
  info(requirement: string, message: string, actual?: unknown): void;
  /**
   * Records which of `requirement`'s accepted readings (its `accepts` in the catalog) the target
   * took: `which` is the reading's number (1 = the recommended one, as the catalog lists them) or
   * words that appear in exactly one of them. An INFO result carrying `reading`; `note` says what
   * was seen. A requirement without `accepts`, or a reading it does not list, is a bug in the case.
   */
  reading(requirement: string, which: number | string, note?: string, actual?: unknown): void;
  /**
   * Waits for the response to request `id`. No answer before the deadline, or the connection
   * closing first, is a failed check of `requirement`; the result is then undefined.
   */
  expectAnswer(requirement: string, id: string | number, options?: ExpectAnswerOptions): Promise<Record<string, unknown> | undefined>;
  /** Sends a request with a fresh id and waits for its answer as `expectAnswer` does. */
  request(
    requirement: string,
    method: string,
    params?: Record<string, unknown>,
    options?: ExpectAnswerOptions,
  ): Promise<Record<string, unknown> | undefined>;
  /** A request id not used before on this connection. */
  nextId(): number;
  /**
   * Waits for the next received message matching `predicate`, bounded by the case's signal.
   * `silence` names a window in which nothing is owed (a deadline passing there is recorded as
   * silence waited out, not as a missed deadline).
   */
  next(predicate?: (received: ReceivedMessage) => boolean, options?: { timeoutMs?: number; silence?: string }): Promise<ReceivedMessage>;
  /**
   * Records time the case waited out without anything happening (the result's `waits`). Waits of
   * `next`, `expectAnswer` and `request` are recorded by themselves; helpers with waits of their own call this.
   */
  waited(kind: CaseWait['kind'], what: string, ms: number): void;
  /**
   * Sleeps `ms` (measured time: already scaled where it should be) and records it as a sleep. Its
   * worker serves other cases meanwhile. Rejects with the signal's reason when the case ends first.
   */
  sleep(ms: number, what: string): Promise<void>;
  /**
   * Waits for `pending` while the target takes its own time (a grace period it keeps before it
   * decides, a wait for something it must not get) and the case sends little or nothing: its worker
   * serves other cases meanwhile, as in `sleep`. Settles as `pending` does.
   */
  awaitTarget<T>(pending: Promise<T>): Promise<T>;
  /**
   * Runs a fast-check property with the run's seed (and path, when re-running one failure) and
   * records them on the result, so the rerun command reproduces the same input. A counterexample
   * is a failed check of `requirement`; returns whether the property held.
   */
  property<T>(
    requirement: string,
    arbitrary: import('fast-check').Arbitrary<T>,
    predicate: (value: T) => Promise<boolean | void>,
    options?: PropertyOptions,
  ): Promise<boolean>;
  /** Writes a note into the transcript (it shows in failure excerpts). */
  note(text: string): void;
  /**
   * A second connection to the same target (same transport, address and trust settings), not yet
   * initialized, for requirements about another connection or session: a context like this one
   * (same case, checks and signal) whose `connection` is the new one. The runner closes it with
   * the case; its messages are not schema-checked. Over stdio the target is a command, so the
   * second connection starts a second process, which shares nothing with the first.
   */
  openConnection(): Promise<CaseContext>;
}

export interface ConformanceCase {
  /** Stable ID: lower-case segments separated by '/', e.g. `lifecycle/ping-before-initialize`. */
  id: string;
  suite: string;
  title: string;
  /** Requirement IDs the case checks (each must be in the catalog). */
  requirements: readonly string[];
  /** Time limit in ms before --timeout-scale. Default 10000 (20000 in a client registry). */
  timeLimitMs?: number;
  /**
   * The case leaves the target alone for a while by design (`ctx.sleep`: a session left to
   * expire; `ctx.awaitTarget`: a grace period the target keeps): the runner starts it before the
   * others, and its worker serves other cases while it sleeps or waits.
   */
  sleeps?: boolean;
  /** Transports the case needs; NOT_APPLICABLE on others. Default: all. */
  transports?: readonly TransportKind[];
  /** Decides from what the target declared; a string is the NOT_APPLICABLE reason. */
  applies?: (discovery: Discovery, target: TargetDescription) => Applicability;
  /**
   * The case deliberately sends messages that break the schemas: sent messages are then not
   * validated. Otherwise a sent message that breaks a schema is a harness bug (ERROR).
   */
  sendsInvalid?: boolean;
  /** Client cases: the scenario the client under test runs for this case. */
  scenario?: ClientScenario;
  run(context: CaseContext): Promise<void>;
}

/** A registered case with what the registry derived from the catalog. */
export interface RegisteredCase extends ConformanceCase {
  readonly level: RequirementLevel;
  readonly timeLimitMs: number;
}

/** Identity function that gives case literals their type. */
export function defineCase(definition: ConformanceCase): ConformanceCase {
  return definition;
}

/** Applicability helper: the case needs the named capability in the initialize result. */
export function requiresCapability(name: string): (discovery: Discovery) => Applicability {
  return (discovery) =>
    discovery.capabilities !== undefined && Object.hasOwn(discovery.capabilities, name)
      ? true
      : `the target did not declare the "${name}" capability`;
}
