// A stdio connection to a server that runs in this process: what spawnStdio gives (newline-delimited
// JSON on the server's stdin and stdout, its stderr lines, its exit) over in-memory pipes instead of
// a child process's. The bytes, the decoder, the faults and the transcript are the stdio client's;
// only the process is missing (no pid; "exit" is the server stopping). The self-test serves its own
// mock server this way: a process per case costs a node start each, which on two cores is most of a
// stdio run (docs/architecture.md, "In-process stdio").
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { CloseInfo, StdioFacet } from '../connection.js';
import { ConnectFailedError } from '../errors.js';
import { pacedReading } from '../pacing.js';
import type { ExitInfo, StdioClientOptions } from './client.js';
import { LineConnection } from './line-connection.js';
import { settlesWithin } from './settles-within.js';
import { StderrLines } from './stderr-lines.js';

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

export class PipedStdioConnection extends LineConnection {
  readonly stdio: StdioFacet;
  readonly commandLine: string;

  readonly #pipes: Pipes;
  readonly #server: PipedServer;
  readonly #stderrLines: StderrLines;
  readonly #exited: Promise<ExitInfo>;
  readonly #graceMs: number;
  #closing: Promise<void> | undefined;
  #closeReason: string | undefined;
  #abandon!: (exit: ExitInfo) => void;

  constructor(description: string, pipes: Pipes, server: PipedServer, options: StdioClientOptions) {
    super(options, { input: 'stdout', output: 'stdin' });
    this.commandLine = description;
    this.#pipes = pipes;
    this.#server = server;
    this.#graceMs = options.closeGraceMs ?? 2000;
    this.transcript.event(`started ${JSON.stringify(description)} in this process (piped stdio)`);
    this.attachOutput(pipes.stdin);
    const stdout = pipes.stdout;
    // A server that floods stdout cannot keep timers (the deadlines that end a case) from firing.
    const paced = pacedReading(stdout);
    stdout.on('data', (chunk: Buffer) => {
      this.receive(chunk);
      paced();
    });
    const stdoutEnded = new Promise<void>((resolve) => stdout.once('end', () => {
      this.receiveEnd();
      resolve();
    }));
    this.#stderrLines = new StderrLines(pipes.stderr, this.transcript, options.maxLineBytes);
    // Registered after StderrLines' own listener: its last line is kept when this fires.
    const stderrEnded = new Promise<void>((resolve) => pipes.stderr.once('end', () => resolve()));

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
    void Promise.all([this.#exited, stdoutEnded, stderrEnded]).then(([exit]) => {
      const info: CloseInfo = this.#closeReason !== undefined
        ? { initiator: 'local', reason: this.#closeReason }
        : { initiator: 'remote', reason: exit.code !== null ? `server exited with code ${exit.code}` : 'server abandoned' };
      if (exit.code !== null) info.code = exit.code;
      this.finish(info);
    });

    const self = this;
    this.stdio = {
      pid: undefined,
      writeLine: (line: string) => self.write(new TextEncoder().encode(line + '\n'), undefined),
      stderrLines: () => self.#stderrLines.items(),
      exited: this.#exited,
    };
  }

  /** Ends stdin, waits for the server to stop, then stops it; one that still runs is abandoned (its pipes ended). */
  close(reason = 'closed by client'): Promise<void> {
    this.#closing ??= this.#close(reason);
    return this.#closing;
  }

  async #close(reason: string): Promise<void> {
    this.#closeReason ??= reason;
    this.#pipes.stdin.end();
    if (!(await settlesWithin(this.#exited, this.#graceMs))) {
      this.transcript.event('still running after stdin closed: stopped');
      void this.#server.stop().catch((error: unknown) => this.transcript.event(`stopping the server failed: ${(error as Error).message}`));
      // Nothing in this process can be killed: past a second grace the connection lets go of it.
      if (!(await settlesWithin(this.#exited, this.#graceMs))) this.#abandon({ code: null, signal: null });
    }
    await this.#exited;
    await this.closed;
  }
}
