// A stdio connection to a server that runs in this process: what spawnStdio gives (newline-delimited
// JSON on the server's stdin and stdout, its stderr lines, its exit) over in-memory pipes instead of
// a child process's. The bytes, the decoder, the faults and the transcript are the stdio client's;
// only the process is missing (no pid; "exit" is the server stopping). The self-test serves its own
// mock server this way: a process per case costs a node start each, which on two cores is most of a
// stdio run (docs/architecture.md, "In-process stdio").
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { ConnectFailedError } from '../errors.js';
import type { ExitInfo, StdioClientOptions } from './client.js';
import { StdioClientEnd } from './client-end.js';
import { settlesWithin } from './settles-within.js';

/** The server's ends of the pipes: it reads `stdin`, writes the protocol to `stdout` and what people read to `stderr`. */
export interface PipedServerEnds {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** A server started on piped ends. */
export interface PipedServer {
  /** Resolves with the exit code when the server has stopped (what a process's exit is). */
  exited: Promise<number>;
  /** Stops the server now: what SIGTERM does to a process that did not leave when its stdin ended. */
  stop(): Promise<void>;
}

/** Starts a server on the ends it is given. */
export type PipedServe = (ends: PipedServerEnds) => Promise<PipedServer>;

/** Starts `serve` on fresh pipes and connects to it; `description` names it on the transcript. */
export async function connectPiped(description: string, serve: PipedServe, options: StdioClientOptions = {}): Promise<PipedStdioConnection> {
  const pipes: Pipes = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
  let server: PipedServer;
  try {
    server = await serve(pipes);
  } catch (error) {
    throw new ConnectFailedError(`cannot start ${JSON.stringify(description)} in this process: ${(error as Error).message}`, { cause: error });
  }
  return new PipedStdioConnection(description, pipes, server, options);
}

/** Each pipe, both ends: the server gets one, the connection the other. */
interface Pipes {
  stdin: PassThrough;
  stdout: PassThrough;
  stderr: PassThrough;
}

export class PipedStdioConnection extends StdioClientEnd {
  readonly #pipes: Pipes;
  readonly #server: PipedServer;
  readonly #exited: Promise<ExitInfo>;
  #abandon!: (exit: ExitInfo) => void;

  constructor(description: string, pipes: Pipes, server: PipedServer, options: StdioClientOptions) {
    super(description, pipes, options);
    this.#pipes = pipes;
    this.#server = server;
    this.transcript.event(`started ${JSON.stringify(description)} in this process (piped stdio)`);
    this.#exited = Promise.race([
      server.exited.then(
        (code): ExitInfo => ({ code, signal: null }),
        (error: unknown): ExitInfo => {
          this.transcript.event(`the server failed: ${(error as Error).message}`);
          return { code: 1, signal: null };
        },
      ),
      new Promise<ExitInfo>((resolve) => (this.#abandon = resolve)),
    ]);
    void this.#exited.then((exit) => {
      this.transcript.event(exit.code !== null ? `server exited with code ${exit.code}` : 'server abandoned: it did not stop when told to');
      // A process's pipes close when it exits.
      if (!pipes.stdout.writableEnded) pipes.stdout.end();
      if (!pipes.stderr.writableEnded) pipes.stderr.end();
    });
    // Ended as a child is: it has exited and its pipes are closed.
    void Promise.all([this.#exited, this.stdoutEnded, this.stderrEnded]).then(([exit]) =>
      this.ended(exit, exit.code !== null ? `server exited with code ${exit.code}` : 'server abandoned'),
    );
    this.exposeStdio(() => undefined, this.#exited);
  }

  /** Ends stdin, waits for the server to stop, then stops it; one that still runs is abandoned (its pipes ended). */
  protected async stopServer(): Promise<void> {
    this.#pipes.stdin.end();
    if (!(await settlesWithin(this.#exited, this.graceMs))) {
      this.transcript.event('still running after stdin closed: stopped');
      void this.#server.stop().catch((error: unknown) => this.transcript.event(`stopping the server failed: ${(error as Error).message}`));
      // Nothing in this process can be killed: past a second grace the connection lets go of it.
      if (!(await settlesWithin(this.#exited, this.graceMs))) this.#abandon({ code: null, signal: null });
    }
    await this.#exited;
  }
}
