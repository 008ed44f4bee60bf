import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CommandLineError, splitCommandLine } from '../../../src/transport/stdio/shell-words.js';

describe('splitCommandLine', () => {
  it.each([
    ['node server.js', ['node', 'server.js']],
    ['  node   --flag=1\tx ', ['node', '--flag=1', 'x']],
    [`cmd 'a b' "c d"`, ['cmd', 'a b', 'c d']],
    [`cmd "say \\"hi\\"" 'it''s'`, ['cmd', 'say "hi"', 'its']],
    [`cmd a\\ b "\\n" ''`, ['cmd', 'a b', '\\n', '']],
    [`cmd "$HOME" '*'`, ['cmd', '$HOME', '*']],
  ])('%s', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each([[`cmd 'open`], [`cmd "open`], ['cmd \\'], ['   ']])('refuses %j with INVALID_COMMAND_LINE', (line) => {
    expect(() => splitCommandLine(line)).toThrow(CommandLineError);
    try {
      splitCommandLine(line);
    } catch (error) {
      expect((error as CommandLineError).code).toBe('INVALID_COMMAND_LINE');
    }
  });

  it('gives back any words that were single-quoted', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 6 }), (words) => {
        const line = words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
        expect(splitCommandLine(line)).toEqual(words);
      }),
    );
  });
});
