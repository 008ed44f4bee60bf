// The `mcp-flow-conformance` command: yargs front door; each command lives in ./commands/.
import { type CliCommand, type CliIo, ExitCode, processIo } from './io.js';
import { quickArgs } from './quick-args.js';
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

/**
 * A command started once per case (it declares `quick`), named first and followed by a plain
 * command line of its options: run without yargs (quick-args.ts says why). Undefined for every
 * other command line, yargs' to read.
 */
async function quickCommand(argv: readonly string[]): Promise<{ command: CliCommand; args: Record<string, unknown> } | undefined> {
  const name = argv[0];
  if (name === undefined || !Object.hasOwn(COMMANDS, name)) return undefined;
  const command = await COMMANDS[name]!();
  if (command.quick === undefined) return undefined;
  const args = quickArgs(argv.slice(1), command.quick.options, command.quick.positional);
  if (args === undefined || command.quick.check(args) !== undefined) return undefined;
  return { command, args };
}

export async function main(givenArgv: string[], io: CliIo = processIo): Promise<number> {
  const quick = await quickCommand(givenArgv);
  if (quick !== undefined) return quick.command.run(quick.args, io);
  // Everything after `--` is the client command's, never ours.
  const end = givenArgv.indexOf('--');
  const own = joinStdoutValues(end < 0 ? givenArgv : givenArgv.slice(0, end));
  const argv = end < 0 ? own : [...own, ...givenArgv.slice(end)];
  const { default: yargs } = await import('yargs');
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
  // yargs renders the running command's whole help text (ready for a showHelp we never call)
  // before its handler: unwrapped it costs a third less, a good part of the stdio mock server's
  // start. Wrapped to the terminal where the help is shown.
  if (!own.some((word) => word === '--help' || word === '-h')) parser = parser.wrap(null);
  for (const command of await commandsFor(own)) {
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
  // yargs renders the running command's help once more after calling its handler, to keep for a
  // failure it would print (cacheHelpMessage): our `fail` prints its own line instead, so the text
  // is never shown, yet rendering it (string-width over every option) costs a seventh of the stdio
  // mock server's CPU per start. Left alone when this yargs has no such method.
  const usage = (parser as unknown as { getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?: () => void } } }).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
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
