// stdio client connection: spawns the server as a child process and speaks newline-delimited
// JSON-RPC on its stdin/stdout (MCP "stdio" transport). stderr is captured, never parsed. The child
// runs in its own process group, with a marker in its environment (process-tree.ts), so that when
// it ends (or close() ends it) everything it started ends too, even what left its group.
import { spawn, type ChildProcess } from 'node:child_process';
import { ConnectFailedError } from '../errors.js';
import { StdioClientEnd } from './client-end.js';
import type { LineConnectionOptions } from './line-connection.js';
import { killGroup, killMarked, newTreeMarker, TREE_MARKER_VARIABLE } from './process-tree.js';
import { splitCommandLine } from './shell-words.js';
import { settlesWithin } from './settles-within.js';

export interface StdioClientOptions extends LineConnectionOptions {
  /** Run the command line through the system shell instead of splitting it into words. */
  shell?: boolean;
  cwd?: string;
  /** Variables added to (or, with value undefined, removed from) the inherited environment. */
  env?: Record<string, string | undefined>;
  /** How long close() waits at each step (stdin closed, SIGTERM) before the next. Default 2000 ms. */
  closeGraceMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** Process trees still alive (group leader -> marker), killed if this process exits first. */
const liveTrees = new Map<number, string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const [pid, marker] of liveTrees) {
      killGroup(pid, 'SIGKILL');
      killMarked(marker);
    }
  };
  process.on('exit', killAll);
  // Children run in their own process group, so a terminal's Ctrl-C does not reach them: pass it on.
  // When nobody else listens for the signal, re-raise it so the default action (exit) still happens.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      killAll();
      if (process.listenerCount(signal) === 1) {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

/** Spawns `command` (a command line, or argv words) and connects to its stdio. */
export async function spawnStdio(command: string | readonly string[], options: StdioClientOptions = {}): Promise<StdioClientConnection> {
  const commandLine = typeof command === 'string' ? command : command.join(' ');
  const words = options.shell ? undefined : typeof command === 'string' ? splitCommandLine(command) : [...command];
  if (words && words.length === 0) throw new ConnectFailedError('no command given');
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const marker = newTreeMarker();
  env[TREE_MARKER_VARIABLE] = marker;
  const child = words
    ? spawn(words[0]!, words.slice(1), { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    : spawn(commandLine, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, shell: true });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConnectFailedError(`cannot start ${JSON.stringify(commandLine)}: ${error.code ?? error.message}`, { cause: error })),
    );
  });
  return new StdioClientConnection(child, commandLine, options, marker);
}

export class StdioClientConnection extends StdioClientEnd {
  readonly #child: ChildProcess;
  readonly #marker: string;
  readonly #exited: Promise<ExitInfo>;
  readonly #streamsClosed: Promise<void>;
  #escapedKilled = false;

  /** @param marker the value of TREE_MARKER_VARIABLE the child was started with. */
  constructor(child: ChildProcess, commandLine: string, options: StdioClientOptions, marker: string = newTreeMarker()) {
    super(commandLine, { stdin: child.stdin!, stdout: child.stdout!, stderr: child.stderr! }, options);
    this.#child = child;
    this.#marker = marker;
    const pid = child.pid!;
    liveTrees.set(pid, marker);
    installExitHook();
    this.transcript.event(`spawned ${JSON.stringify(commandLine)} as pid ${pid}`);

    child.on('error', (error) => this.transcript.event(`child process error: ${error.message}`));
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.transcript.event(`process exited with ${signal ? `signal ${signal}` : `code ${code}`}`);
        resolve({ code, signal });
      });
    });
    this.#streamsClosed = new Promise((resolve) => child.once('close', () => resolve()));
    // If something the child started still holds its pipes after it exited, end them after the grace.
    void this.#exited.then(() => {
      const timer = setTimeout(() => {
        this.transcript.event('pipes still open after the process exited: ending what it started');
        killGroup(pid, 'SIGKILL');
        killMarked(marker);
        child.stdout!.destroy();
        child.stderr!.destroy();
      }, this.graceMs);
      void this.#streamsClosed.then(() => clearTimeout(timer));
    });
    void Promise.all([this.#exited, this.#streamsClosed]).then(([exit]) => {
      // Anything the child started and left behind goes with it: in its group, or marked.
      if (killGroup(pid, 'SIGKILL')) this.transcript.event('killed processes left in the group');
      this.#killEscaped();
      liveTrees.delete(pid);
      this.ended(exit, exit.signal ? `process killed by ${exit.signal}` : `process exited with code ${exit.code}`);
    });
    this.exposeStdio(() => child.pid, this.#exited);
  }

  /** Ends stdin, waits for the child to leave, then SIGTERM, then SIGKILL (its whole group). */
  protected async stopServer(): Promise<void> {
    const pid = this.#child.pid!;
    const gone = () => this.#child.exitCode !== null || this.#child.signalCode !== null;
    this.#child.stdin!.end();
    if (!gone() && !(await settlesWithin(this.#exited, this.graceMs))) {
      this.transcript.event('still running after stdin closed: SIGTERM');
      killGroup(pid, 'SIGTERM');
      if (!(await settlesWithin(this.#exited, this.graceMs))) {
        this.transcript.event('still running after SIGTERM: SIGKILL');
        killGroup(pid, 'SIGKILL');
      }
    }
    await this.#exited;
    // A grandchild holding the pipes open would keep 'close' from firing: the group kill ends it,
    // and one that left the group is found by its marker.
    killGroup(pid, 'SIGKILL');
    this.#killEscaped();
    await this.#streamsClosed;
  }

  /**
   * Ends what the exited child started outside its group (found by its marker), once: by close()
   * or when the pipes closed, whichever comes first (a scan of /proc each).
   */
  #killEscaped(): void {
    if (this.#escapedKilled) return;
    this.#escapedKilled = true;
    const escaped = killMarked(this.#marker);
    if (escaped > 0) this.transcript.event(`killed ${escaped} process(es) it started outside its group`);
  }
}
