// A command line read without yargs, for the commands started once per case (the stdio mock
// server: a process per stdio case; the mock client as a client-case driver). yargs costs about
// 30 ms of such a process's CPU (its module compiled, every option declared, help rendered for a
// failure that never comes), a sixth of it. The command declares its options once, as an
// OptionTable: yargs reads the same table (a command's builder passes it to `options`), and
// quickArgs reads a plain command line with it. Whatever quickArgs is not sure of (an unknown
// option, a value that does not fit, --help, a stray positional, an option given twice that is
// not an array) it leaves to yargs, which then reads the line and reports what is wrong: quickArgs
// never decides an error. A command may take one optional positional argument (mock-client's
// server URL), given as a string. test/cli/quick-args.test.ts holds it to yargs: wherever it
// answers, it answers what yargs does.
import { parseArgs } from 'node:util';

/** An option as a command declares it: the subset of yargs' option fields quickArgs understands. */
export interface OptionSpec {
  type: 'string' | 'number' | 'boolean';
  describe: string;
  choices?: readonly (string | number)[];
  default?: string | number | boolean;
  /** Repeatable: the values in the order given. */
  array?: boolean;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** A decimal number as yargs reads one (no hex, no exponent, no empty string). */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * What yargs would give the command for `argv` (the words after the command's name), by the
 * options' names as declared (not their camelCase copies), with the defaults filled in; or
 * undefined where quickArgs leaves the line to yargs.
 */
export function quickArgs(argv: readonly string[], table: OptionTable, positional?: string): Record<string, unknown> | undefined {
  // After `--` yargs keeps the words apart (in `_`): left to it.
  if (argv.includes('--')) return undefined;
  const options: Record<string, { type: 'string' | 'boolean'; multiple: true }> = {};
  for (const [name, spec] of Object.entries(table)) {
    options[name] = { type: spec.type === 'boolean' ? 'boolean' : 'string', multiple: true };
    if (spec.type === 'boolean') options[`no-${name}`] = { type: 'boolean', multiple: true };
  }
  let values: Record<string, (string | boolean)[] | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: positional !== undefined });
    values = parsed.values as Record<string, (string | boolean)[] | undefined>;
    positionals = parsed.positionals;
  } catch {
    return undefined;
  }
  // yargs reads `--flag false` as the flag's value, not as a positional argument.
  if (positionals.length > 1 || positionals.some((word) => word === 'true' || word === 'false')) return undefined;
  const args: Record<string, unknown> = {};
  if (positional !== undefined && positionals.length === 1) args[positional] = positionals[0];
  for (const [name, spec] of Object.entries(table)) {
    const given = values[name];
    const negated = values[`no-${name}`];
    if (negated !== undefined) {
      if (given !== undefined || negated.length > 1) return undefined;
      args[name] = false;
      continue;
    }
    if (given === undefined) {
      if (spec.default !== undefined) args[name] = spec.default;
      continue;
    }
    if (!spec.array && given.length > 1) return undefined;
    const read: unknown[] = [];
    for (const value of given) {
      // yargs leaves an empty value out of an array option.
      if (spec.array && value === '') return undefined;
      let typed: string | number | boolean = value;
      if (spec.type === 'number') {
        if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
        typed = Number(value);
      }
      if (spec.choices !== undefined && !spec.choices.includes(typed as string | number)) return undefined;
      read.push(typed);
    }
    args[name] = spec.array ? read : read[0];
  }
  return args;
}
