// What a line typed at a prompt means: the value sent in `interaction.respond` (pure, no I/O but the
// injected file loader). The terminal converts what it can into the prompt's value type (numbers,
// booleans, choice values, JSON) and otherwise sends the text as typed: the server validates, and
// its refusal is shown and the question asked again. Enter alone takes the prompt's default.
import { isMultiple, promptChoices, promptType, showValue, type TerminalPrompt } from './prompt-view.js';

/** A file answer (000 Appendix A file prompt; docs/wizards.md). */
export interface FileAnswer {
  name: string;
  mimeType?: string;
  size: number;
  content: string;
}

/** Reads the file at a typed path; throws a typed error naming the path when it cannot. */
export type FileLoader = (path: string) => FileAnswer;

export type ParsedAnswer =
  /** Send this value. */
  | { value: unknown }
  /** Nothing can be sent (e.g. an unreadable file): show this and ask again. */
  | { problem: string };

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const YES = new Set(['y', 'yes', 'true']);
const NO = new Set(['n', 'no', 'false']);

function choiceValue(prompt: TerminalPrompt, typed: string): unknown {
  const choices = promptChoices(prompt);
  if (/^\d+$/.test(typed)) {
    const index = Number(typed) - 1;
    if (index >= 0 && index < choices.length) return choices[index]!.value;
  }
  const byValue = choices.find((choice) => showValue(choice.value) === typed);
  if (byValue) return byValue.value;
  const byLabel = choices.filter((choice) => choice.label.toLowerCase() === typed.toLowerCase());
  if (byLabel.length === 1) return byLabel[0]!.value;
  return typed;
}

function loadFiles(paths: string[], multiple: boolean, loadFile: FileLoader | undefined): ParsedAnswer {
  if (!loadFile) return { problem: 'this terminal cannot read files' };
  const files: FileAnswer[] = [];
  for (const path of paths) {
    try {
      files.push(loadFile(path));
    } catch (error) {
      return { problem: (error as Error).message };
    }
  }
  return { value: multiple ? files : files[0] };
}

/** The value a typed line stands for at this prompt. */
export function parseAnswer(prompt: TerminalPrompt, line: string, loadFile?: FileLoader): ParsedAnswer {
  const typed = line.trim();
  const type = promptType(prompt);
  if (typed === '') {
    if (prompt.defaultValue !== undefined) return { value: prompt.defaultValue };
    if (type === 'text') return { value: line };
    if (type === 'choice' && isMultiple(prompt)) return { value: [] };
    return { value: null };
  }
  switch (type) {
    case 'number':
      return { value: NUMBER.test(typed) && Number.isFinite(Number(typed)) ? Number(typed) : typed };
    case 'confirm': {
      const word = typed.toLowerCase();
      return { value: YES.has(word) ? true : NO.has(word) ? false : typed };
    }
    case 'date':
      return { value: typed };
    case 'choice':
      if (isMultiple(prompt)) {
        const parts = typed.split(',').map((part) => part.trim()).filter((part) => part !== '');
        return { value: parts.map((part) => choiceValue(prompt, part)) };
      }
      return { value: choiceValue(prompt, typed) };
    case 'custom':
      try {
        return { value: JSON.parse(typed) as unknown };
      } catch {
        return { value: typed };
      }
    case 'file': {
      const paths = isMultiple(prompt) ? typed.split(',').map((part) => part.trim()).filter((part) => part !== '') : [typed];
      return loadFiles(paths, isMultiple(prompt), loadFile);
    }
    default:
      return { value: line };
  }
}
