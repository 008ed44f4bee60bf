import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (text) => void stdout.push(text),
    err: (text) => void stderr.push(text),
    readStdin: async () => '',
  };
}

describe('mcp-flow-conformance front door', () => {
  it('lists every command in --help and exits 0', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    const help = io.stdout.join('\n');
    for (const command of ['server', 'self-test', 'decode', 'validate', 'self-check', 'mock-server']) expect(help).toContain(command);
  });

  it('exits 2 naming the problem when no command is given', async () => {
    const io = capture();
    expect(await main([], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/Name a command/);
  });

  it('exits 2 for an unknown command or option', async () => {
    const io = capture();
    expect(await main(['no-such-command'], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/Unknown argument|no-such-command/);
  });

  it('keeps exit code 2 when an option value is refused, without running the command', async () => {
    const io = capture();
    expect(await main(['decode', '--hex', '00', '--kind', 'bogus'], io)).toBe(2);
    expect(io.stdout.join('')).toBe('');
    expect(io.stderr.join('\n')).toMatch(/bogus|Invalid values/);
  });
});

describe('--version and one line per mistake', () => {
  it('--version prints the version of package.json and exits 0, before or after a command', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const argv of [['--version'], ['server', '--version']]) {
      const io = capture();
      expect(await main(argv, io)).toBe(0);
      expect(io.stdout.join('\n').trim()).toBe(version);
      expect(io.stderr).toEqual([]);
    }
  });

  it('a mistake yargs reports twice is printed once, the most specific report', async () => {
    const io = capture();
    expect(await main(['validate'], io)).toBe(2);
    expect(io.stderr).toEqual(['error: Missing required argument: file\nRun with --help for usage.']);
    const unknown = capture();
    expect(await main(['--no-such-option'], unknown)).toBe(2);
    expect(unknown.stderr).toHaveLength(1);
  });
});

describe('commands loaded on demand', () => {
  it('names each command by the first word of its own `command`', async () => {
    for (const [name, load] of Object.entries(COMMANDS)) expect((await load()).command.split(' ')[0]).toBe(name);
  });
});
