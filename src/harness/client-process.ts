// The client under test as a process: started with the server URL appended and the scenario in its
// environment (docs/client-scenarios.md), its output kept line by line, stopped with SIGTERM and
// then SIGKILL when it does not end by itself.
import { spawn, type ChildProcess } from 'node:child_process';
import type { ClientExit, ClientProcess, ClientScenario } from './case.js';
import { HarnessError } from './errors.js';

/** Lines of stdout and of stderr kept per process (the last ones). */
const KEPT_LINES = 2000;
/** Longest line kept whole; longer ones are cut with a note. */
const MAX_LINE = 4000;
/** How long after the client exited its output may still arrive (a process it left behind may hold the pipes). */
const STDIO_DRAIN_MS = 500;
/** How long after SIGKILL the harness still waits for the process before letting it go. */
const KILL_WAIT_MS = 2000;

/** The command of the client under test could not be started at all (not found, not executable). */
export class ClientSpawnError extends HarnessError {
  constructor(command: string, options?: { cause?: unknown }) {
    const detail = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super('CLIENT_SPAWN_FAILED', `cannot start the client under test (${command})${detail}`, options);
  }
}

export interface ClientLaunch {
  /** Program and arguments; the server URL is appended. */
  command: readonly string[];
  url: string;
  scenario: ClientScenario;
  transport: 'webtransport' | 'http';
  /** WebTransport: SHA-256 of the server certificate, hex. */
  certificateHash?: string;
  /** Added to the harness's own environment. */
  env?: Record<string, string>;
  cwd?: string;
}

/** The environment a client under test gets for one scenario. */
export function scenarioEnvironment(launch: Pick<ClientLaunch, 'scenario' | 'transport' | 'certificateHash'>): Record<string, string> {
  return {
    MCP_FLOW_SCENARIO: launch.scenario.name,
    MCP_FLOW_CONTEXT: JSON.stringify(launch.scenario.context ?? {}),
    MCP_FLOW_TRANSPORT: launch.transport,
    ...(launch.certificateHash !== undefined ? { MCP_FLOW_CERT_HASH: launch.certificateHash } : {}),
  };
}

/** A running client under test. */
export class SpawnedClient implements RunningClient {
  readonly exited: Promise<ClientExit>;
  readonly #child: ChildProcess;
  readonly #stdout = new LineBuffer();
  readonly #stderr = new LineBuffer();
  #exitStatus: ClientExit | undefined;
  #drainTimer: NodeJS.Timeout | undefined;
  #resolveAbandoned!: (status: ClientExit) => void;
  readonly #abandoned = new Promise<ClientExit>((resolve) => (this.#resolveAbandoned = resolve));

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.stdout?.setEncoding('utf8').on('data', (text: string) => this.#stdout.push(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => this.#stderr.push(text));
    // The client may close its stdin early; our writes never matter.
    child.stdin?.on('error', () => undefined);
    this.exited = new Promise<ClientExit>((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.#exitStatus) return;
        clearTimeout(this.#drainTimer);
        this.#stdout.end();
        this.#stderr.end();
        this.#exitStatus = { code, signal };
        resolve(this.#exitStatus);
      };
      child.once('close', done);
      // A process the client started may live on holding its stdout and stderr, so 'close' may
      // never come: once the client itself exited, what it wrote arrives within STDIO_DRAIN_MS, and
      // then its pipes are let go (they must not keep the harness running).
      child.once('exit', (code, signal) => {
        this.#drainTimer = setTimeout(() => {
          this.#releasePipes();
          done(code, signal);
        }, STDIO_DRAIN_MS);
      });
    });
  }

  /** Starts the client; rejects with ClientSpawnError when the command cannot run at all. */
  static async start(launch: ClientLaunch): Promise<SpawnedClient> {
    const [program, ...args] = launch.command;
    if (program === undefined) throw new ClientSpawnError('(empty command)');
    const child = spawn(program, [...args, launch.url], {
      cwd: launch.cwd,
      env: { ...process.env, ...launch.env, ...scenarioEnvironment(launch) },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so stopping it also stops what it started (npx, a shell...).
      detached: process.platform !== 'win32',
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => reject(new ClientSpawnError(launch.command.join(' '), { cause: error })));
    });
    return new SpawnedClient(child);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get exitStatus(): ClientExit | undefined {
    return this.#exitStatus;
  }

  stdoutLines(): readonly string[] {
    return this.#stdout.lines();
  }

  stderrLines(): readonly string[] {
    return this.#stderr.lines();
  }

  /** "exited with code 1" / "killed by SIGTERM" / "still running". */
  describeExit(): string {
    const status = this.#exitStatus;
    if (!status) return 'still running';
    return status.signal !== null ? `killed by ${status.signal}` : `exited with code ${status.code}`;
  }

  /** The last stderr lines, for error messages. */
  stderrTail(count = 10): string {
    const lines = this.stderrLines().slice(-count);
    return lines.length === 0 ? '(nothing on stderr)' : lines.join('\n');
  }

  /**
   * Ends the process (and its group): SIGTERM, then SIGKILL after `graceMs`. Resolves when it
   * exited, or, should even SIGKILL not end it, KILL_WAIT_MS later with the process let go (its
   * pipes and handle no longer keep the harness running).
   */
  async stop(graceMs: number): Promise<ClientExit> {
    if (this.#exitStatus) return this.#exitStatus;
    this.#signal('SIGTERM');
    let abandon: NodeJS.Timeout | undefined;
    const kill = setTimeout(() => {
      this.#signal('SIGKILL');
      abandon = setTimeout(() => this.#abandon(), KILL_WAIT_MS);
    }, graceMs);
    try {
      return await Promise.race([this.exited, this.#abandoned]);
    } finally {
      clearTimeout(kill);
      clearTimeout(abandon);
    }
  }

  #abandon(): void {
    this.#releasePipes();
    this.#child.unref();
    this.#resolveAbandoned({ code: null, signal: 'abandoned' });
  }

  /** Stops reading the client's output and lets its pipes go. */
  #releasePipes(): void {
    for (const stream of [this.#child.stdin, this.#child.stdout, this.#child.stderr]) stream?.destroy();
  }

  #signal(signal: NodeJS.Signals): void {
    const pid = this.#child.pid;
    if (pid === undefined || this.#exitStatus) return;
    try {
      if (process.platform !== 'win32') process.kill(-pid, signal);
      else this.#child.kill(signal);
    } catch {
      // Already gone (or the group is): the direct child is the one that matters.
      try {
        this.#child.kill(signal);
      } catch {
        // gone
      }
    }
  }
}

/** Text split into lines, the last KEPT_LINES kept. */
class LineBuffer {
  readonly #lines: string[] = [];
  #partial = '';

  push(text: string): void {
    const parts = (this.#partial + text).split(/\r?\n/);
    this.#partial = parts.pop() ?? '';
    if (this.#partial.length > MAX_LINE) {
      this.#add(this.#partial);
      this.#partial = '';
    }
    for (const line of parts) this.#add(line);
  }

  end(): void {
    if (this.#partial !== '') this.#add(this.#partial);
    this.#partial = '';
  }

  lines(): readonly string[] {
    return this.#partial === '' ? [...this.#lines] : [...this.#lines, this.#partial];
  }

  #add(line: string): void {
    this.#lines.push(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… (${line.length - MAX_LINE} more characters)` : line);
    if (this.#lines.length > KEPT_LINES) this.#lines.splice(0, this.#lines.length - KEPT_LINES);
  }
}

/** A client under test that the harness can stop and describe (a process, or a function run in-process). */
export interface RunningClient extends ClientProcess {
  /** Ends the client; resolves when it has. */
  stop(graceMs: number): Promise<ClientExit>;
  /** "exited with code 1" / "killed by SIGTERM" / "still running". */
  describeExit(): string;
  /** The last stderr lines, for error messages. */
  stderrTail(count?: number): string;
}

/**
 * A client run inside the harness's own process: called with the URL and the scenario environment
 * a process would get, it resolves with the exit code a process would exit with, and stops when
 * `signal` aborts. For testing a client library without a process per case; `log` lines count as
 * its stderr.
 */
export type InProcessClient = (launch: { url: string; env: Record<string, string>; signal: AbortSignal; log: (line: string) => void }) => Promise<number>;

/** An InProcessClient started for one case. */
export class InProcessRun implements RunningClient {
  readonly pid = undefined;
  readonly exited: Promise<ClientExit>;
  readonly #controller = new AbortController();
  readonly #stderr = new LineBuffer();
  #exitStatus: ClientExit | undefined;

  constructor(client: InProcessClient, launch: Pick<ClientLaunch, 'url' | 'scenario' | 'transport' | 'certificateHash'>) {
    const log = (line: string) => this.#stderr.push(`${line}\n`);
    this.exited = Promise.resolve()
      .then(() => client({ url: launch.url, env: scenarioEnvironment(launch), signal: this.#controller.signal, log }))
      .then(
        (code) => ({ code, signal: null }),
        (error: unknown) => {
          log(`the in-process client threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          return { code: 1, signal: null };
        },
      )
      .then((status) => (this.#exitStatus = status));
  }

  get exitStatus(): ClientExit | undefined {
    return this.#exitStatus;
  }

  stdoutLines(): readonly string[] {
    return [];
  }

  stderrLines(): readonly string[] {
    return this.#stderr.lines();
  }

  describeExit(): string {
    return this.#exitStatus ? `returned ${this.#exitStatus.code}` : 'still running';
  }

  stderrTail(count = 10): string {
    const lines = this.stderrLines().slice(-count);
    return lines.length === 0 ? '(nothing logged)' : lines.join('\n');
  }

  /** Aborts its signal and waits up to `graceMs` for it to return. */
  async stop(graceMs: number): Promise<ClientExit> {
    this.#controller.abort(new Error('the case is over'));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ClientExit>((resolve) => (timer = setTimeout(() => resolve({ code: null, signal: 'abandoned' }), graceMs)));
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
