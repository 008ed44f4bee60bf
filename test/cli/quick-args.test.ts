// quickArgs reads the command line of a command started once per case without yargs: wherever it
// answers, it must answer what yargs gives the command for the same line, from the same option
// table; wherever it is unsure, it leaves the line to yargs (and main.ts then runs yargs).
import fc from 'fast-check';
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { mockClientCommand } from '../../src/cli/commands/mock-client.js';
import { mockServerCommand, MOCK_SERVER_OPTIONS } from '../../src/cli/commands/mock-server.js';
import { main } from '../../src/cli/main.js';
import type { CliCommand, CliIo } from '../../src/cli/io.js';
import { quickArgs, type OptionTable } from '../../src/cli/quick-args.js';
import { propertyRuns } from '../support/property-runs.js';

/** What yargs gives `command` for `argv` (its options and positional by their declared names), registered as main.ts registers it, or the message it fails with. */
function yargsArgs(command: CliCommand, argv: string[], table: OptionTable): Record<string, unknown> | { failed: string } {
  let failed: string | undefined;
  let given: Record<string, unknown> | undefined;
  const parser = yargs([])
    .strict()
    .exitProcess(false)
    .wrap(null)
    .fail((message, error) => {
      failed = error?.message ?? message;
    })
    .command(command.command, command.describe, command.builder, (args) => {
      given = args as Record<string, unknown>;
    });
  try {
    parser.parseSync([command.command.split(' ')[0]!, ...argv]);
  } catch (error) {
    return { failed: (error as Error).message };
  }
  if (failed !== undefined) return { failed };
  if (given === undefined) return { failed: 'the handler did not run' };
  const parsed = given;
  return Object.fromEntries(Object.keys(table).filter((name) => parsed[name] !== undefined).map((name) => [name, parsed[name]]));
}

/** Words of a command line for `table`: its options written every way yargs reads them, with fitting and unfitting values, and words quickArgs must leave to yargs. */
function words(table: OptionTable): fc.Arbitrary<string[]> {
  const values = ['stdio', 'wt', 'http', 'alternate', 'recommended', '0', '7', '007', '2', '3', '1.5', '-3', '1e3', '0x10', 'abc', '', 'a b', 'true', 'false', 'https://127.0.0.1:4433/mcp'];
  const option: fc.Arbitrary<string[]> = fc.constantFrom(...Object.keys(table)).chain((name): fc.Arbitrary<string[]> => {
    const spec = table[name]!;
    if (spec.type === 'boolean') return fc.constantFrom([`--${name}`], [`--no-${name}`], [`--${name}=false`], [`--${name}`, 'false']);
    return fc.constantFrom(...values).chain((value) => fc.constantFrom([`--${name}`, value], [`--${name}=${value}`]));
  });
  const stray = fc.constantFrom(['--help'], ['--version'], ['--unknown-option', 'x'], ['http://127.0.0.1:8080/mcp'], ['42'], ['--'], ['-x']);
  return fc.array(fc.oneof({ weight: 9, arbitrary: option }, { weight: 1, arbitrary: stray }), { maxLength: 6 }).map((parts) => parts.flat());
}

/** The property: quickArgs answers what yargs gives `command`, and answers at least a fifth of the lines. */
function agreesWithYargs(command: CliCommand): void {
  const quickOptions = command.quick!;
  const table = quickOptions.options;
  const declared = quickOptions.positional === undefined ? table : { ...table, [quickOptions.positional]: { type: 'string', describe: '' } as const };
  let answered = 0;
  let runs = 0;
  fc.assert(
    fc.property(words(table), (argv) => {
      runs++;
      const quick = quickArgs(argv, table, quickOptions.positional);
      if (quick === undefined) return;
      answered++;
      const wrong = quickOptions.check(quick);
      const byYargs = yargsArgs(command, argv, declared);
      if (wrong !== undefined) expect(byYargs).toEqual({ failed: wrong });
      else expect(quick).toEqual(byYargs);
    }),
    { numRuns: propertyRuns(1600) },
  );
  // Without this, a quickArgs that never answers would pass the property.
  expect(answered).toBeGreaterThan(runs / 5);
}

function silentIo(): CliIo & { stderr: string[] } {
  const stderr: string[] = [];
  return { stderr, out: () => undefined, err: (text) => void stderr.push(text), readStdin: async () => '' };
}

describe('quickArgs', () => {
  it('answers what yargs gives mock-server wherever it answers, and answers most plain command lines', () => {
    agreesWithYargs(mockServerCommand);
  });

  it('answers what yargs gives mock-client (options and its server URL) wherever it answers', () => {
    agreesWithYargs(mockClientCommand);
  });

  it('reads the command lines the harness and the self-test start the stdio mock with', () => {
    expect(quickArgs(['--transport', 'stdio'], MOCK_SERVER_OPTIONS)).toEqual({ transport: 'stdio', host: '127.0.0.1', port: 0, http: 2, datagrams: true, readings: 'recommended' });
    expect(quickArgs(['--transport=stdio', '--readings', 'alternate', '--fault', 'a', '--fault=b', '--no-datagrams'], MOCK_SERVER_OPTIONS)).toEqual({
      transport: 'stdio',
      host: '127.0.0.1',
      port: 0,
      http: 2,
      datagrams: false,
      readings: 'alternate',
      fault: ['a', 'b'],
    });
  });

  it('reads the command line a client case starts its driver with', () => {
    const { options, positional } = mockClientCommand.quick!;
    expect(quickArgs(['--driver', 'https://127.0.0.1:4433/mcp'], options, positional)).toEqual({ driver: true, 'server-url': 'https://127.0.0.1:4433/mcp' });
    expect(quickArgs(['--driver', 'a', 'b'], options, positional)).toBeUndefined();
  });

  it('leaves to yargs what it is not sure of', () => {
    for (const argv of [['--help'], ['--transport', 'stdo'], ['--port', 'abc'], ['--port', '1e3'], ['--host', 'a', '--host', 'b'], ['--log', '--no-log'], ['--log=true'], ['--wizard='], ['stray'], ['--transport', 'stdio', '--', 'x'], ['--nope']]) {
      expect(quickArgs(argv, MOCK_SERVER_OPTIONS), argv.join(' ')).toBeUndefined();
    }
  });
});

describe('the command line of mock-server through main', () => {
  it('is still refused by yargs, one line naming what is wrong, where quickArgs leaves it', async () => {
    for (const [argv, message] of [
      [['mock-server', '--transport', 'stdo'], /Invalid values:[\s\S]*transport/],
      [['mock-server', '--port', '1.5', '--transport', 'http'], /--port must be an integer, got 1\.5/],
      [['mock-server'], /--transport is required/],
      [['mock-server', '--transport', 'stdio', '--nope'], /Unknown argument: nope/],
    ] as const) {
      const io = silentIo();
      expect(await main([...argv], io), argv.join(' ')).toBe(2);
      expect(io.stderr.join('\n'), argv.join(' ')).toMatch(message);
    }
  });
});
