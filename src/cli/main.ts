// The `mcp-flow-conformance` command: yargs front door; each command lives in ./commands/.
import yargs from 'yargs';
import { type CliCommand, type CliIo, ExitCode, processIo } from './io.js';
import { packageVersion } from './version.js';

/**
 * Every command by its name (the first word of its `command`), in the order --help lists them.
 * A command's module is loaded only when that command runs: the stdio mock server, started once
 * per case, never loads the harness, the reports or the schemas.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<CliCommand>>> = {
  server: async () => (await import('./commands/server.js')).serverCommand,
  client: async () => (await import('./commands/client.js')).clientCommand,
  'self-test': async () => (await import('./commands/self-test.js')).selfTestCommand,
  'self-check': async () => (await import('./commands/self-check.js')).selfCheckCommand,
  decode: async () => (await import('./commands/decode.js')).decodeCommand,
  validate: async () => (await import('./commands/validate.js')).validateCommand,
  'mock-server': async () => (await import('./commands/mock-server.js')).mockServerCommand,
  'mock-client': async () => (await import('./commands/mock-client.js')).mockClientCommand,
  proxy: async () => (await import('./commands/proxy.js')).proxyCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
};

/**
 * The commands yargs must know for this command line: the one it names; every one when it names
 * none that exists (for the error) or asks for the general --help; none for a bare --version or a
 * command line without a command (yargs reports it).
 */
async function commandsFor(argv: readonly string[]): Promise<CliCommand[]> {
  const name = argv.find((word) => !word.startsWith('-'));
  if (name !== undefined && Object.hasOwn(COMMANDS, name)) return [await COMMANDS[name]!()];
  if (name === undefined && !argv.some((word) => word === '--help' || word === '-h')) return [];
  return Promise.all(Object.values(COMMANDS).map((load) => load()));
}

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
  const own = joinStdoutValues(end < 0 ? givenArgv : givenArgv.slice(0, end));
  const argv = end < 0 ? own : [...own, ...givenArgv.slice(end)];
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
    // What follows `--` stays apart, in args['--'] (the client command's words).
    .parserConfiguration({ 'populate--': true })
    .fail((message, error) => {
      usageFailed = true;
      exitCode = ExitCode.usage;
      usageMessage = error ? `error: ${error.message}` : `error: ${message}\nRun with --help for usage.`;
    });
  const commands = await commandsFor(own);
  // No handlers: yargs renders a command's whole help text when it calls its handler (to have it
  // ready for a later showHelp), which costs more than starting the stdio mock server. The
  // command runs once parsing is done, unless parsing failed or printed the help or the version.
  for (const command of commands) parser = parser.command(command.command, command.describe, command.builder);
  let helpText = '';
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = await parser.parseAsync(argv, {}, (error, _args, output) => {
      if (output && !error) helpText = output;
    });
  } catch (error) {
    usageMessage ??= `error: ${(error as Error).message}`;
    exitCode = ExitCode.usage;
  }
  const named = (parsed?.['_'] as unknown[] | undefined)?.[0];
  const command = commands.find((candidate) => candidate.command.split(' ')[0] === named);
  if (parsed !== undefined && command !== undefined && !usageFailed && helpText === '') {
    try {
      exitCode = await command.run(parsed, io);
    } catch (error) {
      usageMessage = `error: ${(error as Error).message}`;
      exitCode = ExitCode.usage;
    }
  }
  if (usageMessage !== undefined) io.err(usageMessage);
  if (helpText) io.out(helpText);
  return exitCode;
}
