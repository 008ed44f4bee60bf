// What the two stdio client connections share, the one to a child process (client.ts) and the one
// to a server running in this process on pipes (piped.ts): the server's stdout read, paced, as
// protocol lines; its stderr kept as lines for people; the stdio facet; close() once; and the end of
// the connection when the server has left, closed locally (close() was called) or by the server.
import type { Readable, Writable } from 'node:stream';
import type { CloseInfo, StdioFacet } from '../connection.js';
import { pacedReading } from '../pacing.js';
import type { ExitInfo, StdioClientOptions } from './client.js';
import { LineConnection } from './line-connection.js';
import { StderrLines } from './stderr-lines.js';

/** The client's ends of a stdio server's three pipes. */
export interface StdioServerPipes {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
}

export abstract class StdioClientEnd extends LineConnection {
  readonly commandLine: string;
  /** How long close() waits at each step before the next (closeGraceMs, default 2000 ms). */
  protected readonly graceMs: number;
  /** Resolves when the server's stdout has ended (a last line without a newline read too). */
  protected readonly stdoutEnded: Promise<void>;
  /** Resolves when its stderr has ended (its last line kept). */
  protected readonly stderrEnded: Promise<void>;

  readonly #stderrLines: StderrLines;
  #stdio: StdioFacet | undefined;
  #closing: Promise<void> | undefined;
  #closeReason: string | undefined;

  protected constructor(commandLine: string, pipes: StdioServerPipes, options: StdioClientOptions) {
    super(options, { input: 'stdout', output: 'stdin' });
    this.commandLine = commandLine;
    this.graceMs = options.closeGraceMs ?? 2000;
    this.attachOutput(pipes.stdin);
    // A server that floods stdout (or stderr) cannot keep timers (the deadlines that end a case) from firing.
    const paced = pacedReading(pipes.stdout);
    pipes.stdout.on('data', (chunk: Buffer) => {
      this.receive(chunk);
      paced();
    });
    this.stdoutEnded = new Promise((resolve) =>
      pipes.stdout.once('end', () => {
        this.receiveEnd();
        resolve();
      }),
    );
    this.#stderrLines = new StderrLines(pipes.stderr, this.transcript, options.maxLineBytes);
    // Registered after StderrLines' own listener: its last line is kept when this fires.
    this.stderrEnded = new Promise((resolve) => pipes.stderr.once('end', () => resolve()));
  }

  /** The stdio facet (set by the subclass's constructor, through exposeStdio). */
  get stdio(): StdioFacet {
    return this.#stdio!;
  }

  /** Ends stdin, then does what stopServer does for the server to leave; resolves when the connection has ended. */
  close(reason = 'closed by client'): Promise<void> {
    this.#closing ??= (async () => {
      this.#closeReason ??= reason;
      await this.stopServer();
      await this.closed;
    })();
    return this.#closing;
  }

  /** Ends the server's stdin, then whatever it takes for the server to leave; resolves when it has. */
  protected abstract stopServer(): Promise<void>;

  /** Sets the stdio facet: the server's pid (if it has one) and its exit. */
  protected exposeStdio(pid: () => number | undefined, exited: Promise<ExitInfo>): void {
    const self = this;
    this.#stdio = {
      get pid() {
        return pid();
      },
      writeLine: (line: string) => self.write(new TextEncoder().encode(line + '\n'), undefined),
      stderrLines: () => self.#stderrLines.items(),
      exited,
    };
  }

  /** Ends the connection once the server has left: closed locally if close() was called, else by the server, `reason` saying how. */
  protected ended(exit: ExitInfo, reason: string): void {
    const info: CloseInfo = this.#closeReason !== undefined ? { initiator: 'local', reason: this.#closeReason } : { initiator: 'remote', reason };
    if (exit.code !== null) info.code = exit.code;
    this.finish(info);
  }
}
