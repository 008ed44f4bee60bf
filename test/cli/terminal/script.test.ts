// The scripted inputs: JSON options with the position of what is wrong, --answer values, and the
// --script file's checks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../src/cli/errors.js';
import { jsonErrorOffset, parseAnswerOption, parseArgsOption, parseJsonOption, parseScript } from '../../../src/cli/terminal/script.js';

describe('JSON options', () => {
  it.each([
    ['{"text": hi}', 9, 'unexpected "h" at line 1 column 10'],
    ['{"a":1,}', 7, 'unexpected "}" at line 1 column 8'],
    ['{"a" 1}', 5, 'unexpected "1" at line 1 column 6'],
    ['{"a": 1', 7, 'the text ends early at line 1 column 8'],
    ['', 0, 'the text ends early at line 1 column 1'],
    ['{\n  "x": [1,,2]\n}', 12, 'unexpected "," at line 2 column 11'],
    ['"a\u0001b"', 2, 'unexpected "\\u0001" at line 1 column 3'],
    ['[1.]', 3, 'unexpected "]" at line 1 column 4'],
    ['"\\x"', 2, 'unexpected "x" at line 1 column 3'],
    ['{} {}', 3, 'unexpected "{" at line 1 column 4'],
  ])('%j: offset %d', (text, offset, where) => {
    expect(jsonErrorOffset(text)).toBe(offset);
    expect(() => parseJsonOption('--args', text)).toThrow(CliUsageError);
    expect(() => parseJsonOption('--args', text)).toThrow(`--args: not valid JSON: ${where} (offset ${offset}`);
  });

  it('agrees with JSON.parse on what is valid, and finds a stray character exactly where it was put', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), (json, cut) => {
        expect(jsonErrorOffset(json)).toBeUndefined();
        const at = cut % (json.length + 1);
        // A control character is never valid JSON, inside a string or out.
        expect(jsonErrorOffset(`${json.slice(0, at)}\u0001${json.slice(at)}`)).toBe(at);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(jsonErrorOffset(text) === undefined).toBe(valid);
      }),
    );
  });

  it('--args must be an object; --answer is JSON when it parses, text otherwise', () => {
    expect(parseArgsOption('{"bytes": 10}')).toEqual({ bytes: 10 });
    expect(() => parseArgsOption('[1]')).toThrow('--args: must be a JSON object, got [1]');
    expect(parseAnswerOption('2')).toBe(2);
    expect(parseAnswerOption('"2"')).toBe('2');
    expect(parseAnswerOption('true')).toBe(true);
    expect(parseAnswerOption('2030-06-15')).toBe('2030-06-15');
    expect(parseAnswerOption('{"theme":"dark"}')).toEqual({ theme: 'dark' });
  });
});

describe('parseScript', () => {
  it('reads tool, answers, initialParams and expect (default completed)', () => {
    expect(parseScript('{"tool":"booking","answers":["Lisbon"]}', 'b.json')).toEqual({ tool: 'booking', answers: ['Lisbon'], expect: 'completed' });
    expect(parseScript('{"tool":"t","answers":[],"initialParams":{"a":1},"expect":"cancelled"}', 'b.json')).toEqual({
      tool: 't',
      answers: [],
      initialParams: { a: 1 },
      expect: 'cancelled',
    });
  });

  it.each([
    ['[]', 'must be a JSON object'],
    ['{"answers":[]}', '"tool" must be a non-empty string'],
    ['{"tool":"t","answers":{}}', '"answers" must be an array'],
    ['{"tool":"t","answers":[],"initialParams":[]}', '"initialParams" must be an object'],
    ['{"tool":"t","answers":[],"expect":"ok"}', '"expect" must be one of completed, cancelled, error, got "ok"'],
    ['{"tool":"t","answers":[],"tools":1}', 'unknown member "tools"'],
  ])('%s is refused', (text, message) => {
    expect(() => parseScript(text, 'b.json')).toThrow(`--script b.json: ${message}`);
  });
});
