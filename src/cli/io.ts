// Where a command writes. Commands never touch process.stdout directly, so tests run them
// in-process and read what they printed.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Reads all of standard input (for `-` file arguments). */
  readStdin(): Promise<string>;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
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
} as const;

/** A command as main.ts registers it: a yargs module whose handler returns an exit code. */
export interface CliCommand {
  command: string;
  describe: string;
  builder: (yargs: import('yargs').Argv) => import('yargs').Argv;
  run: (args: Record<string, unknown>, io: CliIo) => Promise<number>;
}
