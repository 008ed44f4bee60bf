// Splits a command line into words the way a POSIX shell would for a simple command, without
// running a shell: whitespace separates words, '...' is literal, "..." allows \" \\ \$ \` escapes,
// a backslash outside quotes escapes the next character. No expansion of any kind.
import { ConnectionError } from '../errors.js';

/** A command line that cannot be split into words (unterminated quote, empty command). */
export class CommandLineError extends ConnectionError {
  readonly commandLine: string;
  constructor(commandLine: string, message: string) {
    super('INVALID_COMMAND_LINE', `${message} in command line ${JSON.stringify(commandLine)}`);
    this.commandLine = commandLine;
  }
}

export function splitCommandLine(commandLine: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < commandLine.length; i++) {
    const char = commandLine[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && i + 1 < commandLine.length && '"\\$`\n'.includes(commandLine[i + 1]!)) {
        const next = commandLine[++i]!;
        if (next !== '\n') word += next;
      } else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\') {
      if (i + 1 >= commandLine.length) throw new CommandLineError(commandLine, 'trailing backslash');
      const next = commandLine[++i]!;
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new CommandLineError(commandLine, `unterminated ${quote === "'" ? 'single' : 'double'} quote`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new CommandLineError(commandLine, 'no command');
  return words;
}
