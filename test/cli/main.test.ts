import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
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
