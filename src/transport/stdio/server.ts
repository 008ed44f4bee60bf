// stdio server side: a Connection over this process's stdin/stdout, for the mock server's
// `--transport stdio`. stdout carries protocol messages only, so while the connection is open
// console.log/info/debug are sent to stderr.
import type { Readable, Writable } from 'node:stream';
import { LineConnection, type LineConnectionOptions } from './line-connection.js';

export interface StdioServerOptions extends LineConnectionOptions {
  /** Default process.stdin. */
  stdin?: Readable;
  /** Default process.stdout. */
  stdout?: Writable;
  /** Redirect console.log/info/debug to stderr while open. Default: true when stdout is process.stdout. */
  reserveStdout?: boolean;
}

export function serveStdio(options: StdioServerOptions = {}): StdioServerConnection {
  return new StdioServerConnection(options);
}

type ConsoleMethod = 'log' | 'info' | 'debug';

export class StdioServerConnection extends LineConnection {
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #restoreConsole: (() => void) | undefined;
  readonly #onData = (chunk: Buffer | string) => this.receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  readonly #onEnd = () => {
    this.receiveEnd();
    this.#detach();
    this.finish({ initiator: 'remote', reason: 'stdin ended' });
  };

  constructor(options: StdioServerOptions) {
    super(options, { input: 'stdin', output: 'stdout' });
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.attachOutput(this.#stdout);
    if (options.reserveStdout ?? this.#stdout === process.stdout) this.#restoreConsole = reserveStdout();
    this.#stdin.on('data', this.#onData);
    this.#stdin.once('end', this.#onEnd);
    this.transcript.event('serving on stdio');
  }

  /** Stops reading stdin; stdout is left open when it is the process's own. */
  async close(reason = 'closed by server'): Promise<void> {
    if (this.isClosed) return;
    this.#detach();
    if (this.#stdout !== process.stdout) {
      await new Promise<void>((resolve) => this.#stdout.end(() => resolve()));
    }
    this.finish({ initiator: 'local', reason });
  }

  #detach(): void {
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#restoreConsole?.();
  }
}

function reserveStdout(): () => void {
  const saved: Partial<Record<ConsoleMethod, (...args: unknown[]) => void>> = {};
  for (const method of ['log', 'info', 'debug'] as const) {
    saved[method] = console[method];
    console[method] = (...args: unknown[]) => console.error(...args);
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    for (const method of ['log', 'info', 'debug'] as const) console[method] = saved[method]!;
  };
}
