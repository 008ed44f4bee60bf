// Where a command writes. Commands never touch process.stdout directly, so tests run them
// in-process and read what they printed.
import type { ConsoleOutput } from '../report/console.js';
import type { OptionTable } from './quick-args.js';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Reads all of standard input (for `-` file arguments). */
  readStdin(): Promise<string>;
  /**
   * The terminal behind `out`, written to as is (no newline added), for live progress such as a
   * status line redrawn in place. Absent in tests: live output then goes through `out` line by line.
   */
  terminal?: ConsoleOutput;
  /** The working directory (where mcp-flow-conformance.json is looked for). Default process.cwd(). */
  cwd?: string;
  /** The environment read for FORCE_COLOR and NO_COLOR (default process.env). */
  env?: Record<string, string | undefined>;
  /**
   * Calls `handler` on Ctrl-C (SIGINT) or SIGTERM until the returned function is called; a second
   * signal quits at once (exit 130). Absent in tests that do not interrupt.
   */
  onInterrupt?(handler: () => void): () => void;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  terminal: process.stdout,
  onInterrupt: (handler) => {
    let signals = 0;
    const onSignal = () => {
      if (++signals > 1) process.exit(ExitCode.interrupted);
      handler();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  },
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Exit codes shared by every command. */
export const ExitCode = {
  ok: 0,
  /** A conformance failure, or an input that was decoded/validated and found wrong. */
  failure: 1,
  /** Bad usage, unreadable input, or a harness error. */
  usage: 2,
  /** Stopped by Ctrl-C (128 + SIGINT), after writing what finished. */
  interrupted: 130,
} as const;

/** A command as main.ts registers it: a yargs module whose handler returns an exit code. */
export interface CliCommand {
  command: string;
  describe: string;
  builder: (yargs: import('yargs').Argv) => import('yargs').Argv;
  run: (args: Record<string, unknown>, io: CliIo) => Promise<number>;
  /**
   * Set by a command started once per case: its options (the builder declares the same table to
   * yargs) and its own check of them (an error message, or undefined). main.ts then reads a plain
   * command line of it without yargs (quick-args.ts).
   */
  quick?: {
    options: OptionTable;
    /** The name of its one optional positional argument, if it takes one. */
    positional?: string;
    check(args: Record<string, unknown>): string | undefined;
  };
}

/**
 * A ConsoleOutput over `io`: the terminal itself when there is one, otherwise whole lines through
 * `io.out` (call `flush` at the end for a last line without a newline).
 */
export function consoleOutput(io: CliIo): ConsoleOutput & { flush(): void } {
  const terminal = io.terminal;
  if (terminal) {
    return {
      write: (text: string) => terminal.write(text),
      get isTTY() {
        return terminal.isTTY;
      },
      get columns() {
        return terminal.columns;
      },
      flush: () => undefined,
    };
  }
  let pending = '';
  return {
    isTTY: false,
    write(text: string) {
      pending += text;
      const end = pending.lastIndexOf('\n');
      if (end < 0) return;
      for (const line of pending.slice(0, end).split('\n')) io.out(line);
      pending = pending.slice(end + 1);
    },
    flush() {
      if (pending !== '') io.out(pending);
      pending = '';
    },
  };
}
