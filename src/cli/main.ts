// The `mcp-flow-conformance` command: yargs front door; each command lives in ./commands/.
import yargs from 'yargs';
import { type CliCommand, type CliIo, ExitCode, processIo } from './io.js';
import { selfCheckCommand } from './commands/self-check.js';
import { decodeCommand } from './commands/decode.js';
import { validateCommand } from './commands/validate.js';
import { mockServerCommand } from './commands/mock-server.js';
import { mockClientCommand } from './commands/mock-client.js';
import { serverCommand } from './commands/server.js';
import { clientCommand } from './commands/client.js';
import { selfTestCommand } from './commands/self-test.js';
import { proxyCommand } from './commands/proxy.js';
import { replayCommand } from './commands/replay.js';
import { packageVersion } from './version.js';

const commands: CliCommand[] = [
  serverCommand,
  clientCommand,
  selfTestCommand,
  selfCheckCommand,
  decodeCommand,
  validateCommand,
  mockServerCommand,
  mockClientCommand,
  proxyCommand,
  replayCommand,
];

/** Report options whose value may be "-" (standard output). */
const STDOUT_OPTIONS = new Set(['--junit', '--json', '--html', '--markdown']);

/** yargs reads a lone "-" after an option as a positional: `--json -` is passed on as `--json=-`. */
function joinStdoutValues(argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (STDOUT_OPTIONS.has(argv[i]!) && argv[i + 1] === '-') joined.push(`${argv[i++]}=-`);
    else joined.push(argv[i]!);
  }
  return joined;
}

export async function main(givenArgv: string[], io: CliIo = processIo): Promise<number> {
  // Everything after `--` is the client command's, never ours.
  const end = givenArgv.indexOf('--');
  const argv = end < 0 ? joinStdoutValues(givenArgv) : [...joinStdoutValues(givenArgv.slice(0, end)), ...givenArgv.slice(end)];
  let exitCode: number = ExitCode.ok;
  // With exitProcess(false) yargs still runs a command's handler after a validation failure;
  // once usage failed, the handler must neither run nor overwrite the usage exit code. yargs may
  // report several failures of one command line (too few arguments, then the missing argument by
  // name): only the last, the most specific, is printed, so each mistake is one line.
  let usageFailed = false;
  let usageMessage: string | undefined;
  let parser = yargs(argv)
    .scriptName('mcp-flow-conformance')
    .usage('$0 <command> [options]')
    .strict()
    .demandCommand(1, 'Name a command.')
    .help()
    .version(packageVersion())
    .exitProcess(false)
    .fail((message, error) => {
      usageFailed = true;
      exitCode = ExitCode.usage;
      usageMessage = error ? `error: ${error.message}` : `error: ${message}\nRun with --help for usage.`;
    });
  for (const command of commands) {
    parser = parser.command(
      command.command,
      command.describe,
      command.builder,
      async (args) => {
        if (usageFailed) return;
        exitCode = await command.run(args as Record<string, unknown>, io);
      },
    );
  }
  let helpText = '';
  try {
    await parser.parseAsync(argv, {}, (error, _args, output) => {
      if (output && !error) helpText = output;
    });
  } catch (error) {
    usageMessage ??= `error: ${(error as Error).message}`;
    exitCode = ExitCode.usage;
  }
  if (usageMessage !== undefined) io.err(usageMessage);
  if (helpText) io.out(helpText);
  return exitCode;
}
