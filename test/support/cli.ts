// Shared by the CLI tests: an in-process CliIo that records what a command printed, and the node
// arguments that run the CLI from source (tsx) in a child process.
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../src/cli/io.js';

/** A CliIo whose output is kept as text (each write ends with a newline, as on a terminal). */
export function recordingIo(stdin = ''): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += text.endsWith('\n') ? text : `${text}\n`;
    },
    err(text: string) {
      io.stderr += text.endsWith('\n') ? text : `${text}\n`;
    },
    readStdin: async () => stdin,
  };
  return io;
}

const mainTs = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** node arguments that run `mcp-flow-conformance <args>` from source (tsx). */
export function cliArgs(...args: string[]): string[] {
  return [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    `import { main } from ${JSON.stringify(mainTs)}; process.exitCode = await main(process.argv.slice(1));`,
    '--',
    ...args,
  ];
}
