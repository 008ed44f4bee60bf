// The scripted inputs of `mock-client`: JSON typed on the command line (`--args`, `--answer`) and
// the `--script` file `{"tool", "initialParams"?, "answers", "expect"?}`. Every problem is a
// CliUsageError naming the option, and for JSON that does not parse, the line, column and offset.
import { readFileSync } from 'node:fs';
import { CliUsageError } from '../errors.js';

/** How a scripted flow is expected to end. */
export const SCRIPT_EXPECTATIONS = ['completed', 'cancelled', 'error'] as const;
export type ScriptExpectation = (typeof SCRIPT_EXPECTATIONS)[number];

export interface AnswerScript {
  tool: string;
  initialParams?: Record<string, unknown>;
  /** Values in order; the string "$cancel" cancels the interaction at that point. */
  answers: unknown[];
  expect: ScriptExpectation;
}

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** Thrown inside the scanner: the offset of the first character that cannot be JSON. */
class JsonStop {
  constructor(readonly offset: number) {}
}

/**
 * The offset of the first character that makes `text` invalid JSON (RFC 8259), or `text.length`
 * when the text ends early, or undefined when it is valid. V8's own messages name the position for
 * some errors only, so the text is scanned here.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const stop = (at = i): never => {
    throw new JsonStop(Math.min(at, text.length));
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (char: string) => (text[i] === char ? i++ : stop());
  const digits = () => {
    const from = i;
    while (i < text.length && text[i]! >= '0' && text[i]! <= '9') i++;
    if (i === from) stop();
  };
  const literal = (word: string) => {
    for (const char of word) expect(char);
  };
  const string = () => {
    expect('"');
    for (;;) {
      if (i >= text.length) stop();
      const char = text[i]!;
      if (char === '"') return void i++;
      if (char === '\\') {
        i++;
        if (text[i] === 'u') {
          i++;
          for (let k = 0; k < 4; k++) (/[0-9a-fA-F]/.test(text[i] ?? '') ? i++ : stop());
        } else if (i < text.length && '"\\/bfnrt'.includes(text[i]!)) i++;
        else stop();
      } else if (char.charCodeAt(0) < 0x20) stop();
      else i++;
    }
  };
  const number = () => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{') {
      i++;
      space();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        string();
        space();
        expect(':');
        value();
        space();
        if (text[i] === ',') i++;
        else return void expect('}');
      }
    }
    if (char === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        space();
        if (text[i] === ',') i++;
        else return void expect(']');
      }
    }
    if (char === '"') return string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    stop();
  };
  try {
    value();
    space();
    if (i < text.length) stop();
    return undefined;
  } catch (error) {
    if (error instanceof JsonStop) return error.offset;
    if (error instanceof RangeError) return undefined; // nested deeper than the stack allows
    throw error;
  }
}

/** Parses JSON, or throws a CliUsageError for `option` saying where it stopped making sense. */
export function parseJsonOption(option: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = (error as Error).message.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
    const offset = jsonErrorOffset(text);
    if (offset === undefined) throw new CliUsageError(option, `not valid JSON: ${reason}`);
    const { line, column } = lineAndColumn(text, offset);
    const found = offset < text.length ? `unexpected ${JSON.stringify(text[offset])}` : 'the text ends early';
    throw new CliUsageError(option, `not valid JSON: ${found} at line ${line} column ${column} (offset ${offset}; ${reason})`);
  }
}

/** `--args`: a JSON object. */
export function parseArgsOption(text: string): Record<string, unknown> {
  const value = parseJsonOption('--args', text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CliUsageError('--args', `must be a JSON object, got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** `--answer VALUE`: JSON when it parses (42, true, "2", {...}), the text as a string otherwise. */
export function parseAnswerOption(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const SCRIPT_MEMBERS = new Set(['tool', 'initialParams', 'answers', 'expect']);

/** Reads and checks a `--script` file. */
export function readScript(path: string): AnswerScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliUsageError('--script', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  return parseScript(text, path);
}

/** Checks the text of a script file (`source` names it in errors). */
export function parseScript(text: string, source: string): AnswerScript {
  const option = `--script ${source}`;
  const value = parseJsonOption(option, text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CliUsageError(option, 'must be a JSON object {"tool", "answers", "initialParams"?, "expect"?}');
  const script = value as Record<string, unknown>;
  const unknown = Object.keys(script).filter((key) => !SCRIPT_MEMBERS.has(key));
  if (unknown.length > 0) throw new CliUsageError(option, `unknown member ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: tool, initialParams, answers, expect)`);
  if (typeof script['tool'] !== 'string' || script['tool'] === '') throw new CliUsageError(option, '"tool" must be a non-empty string');
  if (!Array.isArray(script['answers'])) throw new CliUsageError(option, '"answers" must be an array of answer values');
  const initialParams = script['initialParams'];
  if (initialParams !== undefined && (initialParams === null || typeof initialParams !== 'object' || Array.isArray(initialParams))) {
    throw new CliUsageError(option, '"initialParams" must be an object');
  }
  const expect = script['expect'] ?? 'completed';
  if (!SCRIPT_EXPECTATIONS.includes(expect as ScriptExpectation)) {
    throw new CliUsageError(option, `"expect" must be one of ${SCRIPT_EXPECTATIONS.join(', ')}, got ${JSON.stringify(expect)}`);
  }
  return {
    tool: script['tool'],
    answers: script['answers'],
    expect: expect as ScriptExpectation,
    ...(initialParams !== undefined ? { initialParams: initialParams as Record<string, unknown> } : {}),
  };
}
