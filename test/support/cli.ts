// Shared by the CLI tests: an in-process CliIo that records what a command printed, and the node
// arguments that run the CLI from source (tsx) in a child process.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../src/cli/io.js';
import { distIsCurrent } from './build.js';

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
    // Plain text whatever FORCE_COLOR or NO_COLOR the test run has.
    env: {},
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

const root = fileURLToPath(new URL('../../', import.meta.url));
let compiledIsCurrent: boolean | undefined;

/**
 * Whether dist/ was built after the last change to the sources (as after `npm ci`, which builds):
 * then a child process can run the compiled CLI and skip tsx's start-up, which costs more than
 * the case itself when a test starts a process per case.
 */
function compiledCliIsCurrent(): boolean {
  return (compiledIsCurrent ??= distIsCurrent());
}

/**
 * The argv that runs `mcp-flow-conformance <args>` in a child process: the compiled bin when dist/
 * is current, the sources through tsx otherwise (the same code either way).
 */
export function cliCommand(...args: string[]): string[] {
  return compiledCliIsCurrent() ? [process.execPath, join(root, 'bin', 'mcp-flow-conformance.js'), ...args] : [process.execPath, ...cliArgs(...args)];
}
