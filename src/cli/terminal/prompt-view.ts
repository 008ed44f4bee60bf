// How an MCP Flow prompt (000 Appendix A) looks in a terminal: pure functions from a prompt to the
// lines shown before the question and the question itself, so they are tested without a terminal.
// Text and numbers show their default in brackets, choices are numbered, confirm reads y/n with
// the default in capitals (Y/n, y/N).

/** A prompt as it arrives in `initialPrompt`, `interaction.prompt` or `nextPrompt` (read defensively). */
export interface TerminalPrompt {
  type?: unknown;
  message?: unknown;
  placeholder?: unknown;
  defaultValue?: unknown;
  choices?: unknown;
  multiple?: unknown;
  validation?: unknown;
}

export interface PromptChoiceView {
  value: unknown;
  label: string;
  description?: string;
}

export interface PromptView {
  /** Lines shown above the question (the message when the question does not carry it, choices). */
  lines: string[];
  /** The question, shown where the answer is typed (readline prompt). */
  question: string;
}

/** A rejected answer as the mock client reports it (`interaction.respond` answered `accepted: false`). */
export interface Rejection {
  message?: string;
  suggestion?: unknown;
  errors?: unknown;
}

/** Text of any JSON value: strings as they are, everything else as JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The prompt's type, or `text` when it names none or one this client does not know. */
export function promptType(prompt: TerminalPrompt): string {
  return typeof prompt.type === 'string' ? prompt.type : 'text';
}

/** The choices of a choice prompt, labels falling back to the value's text. */
export function promptChoices(prompt: TerminalPrompt): PromptChoiceView[] {
  if (!Array.isArray(prompt.choices)) return [];
  return prompt.choices.map((entry) => {
    const choice = record(entry);
    const label = typeof choice['label'] === 'string' && choice['label'] !== '' ? choice['label'] : showValue(choice['value']);
    const view: PromptChoiceView = { value: choice['value'], label };
    if (typeof choice['description'] === 'string' && choice['description'] !== '') view.description = choice['description'];
    return view;
  });
}

export function isMultiple(prompt: TerminalPrompt): boolean {
  return prompt.multiple === true;
}

export function isRequired(prompt: TerminalPrompt): boolean {
  return record(prompt.validation)['required'] === true;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b));
}

/** 1-based numbers of the choices the prompt's defaultValue selects. */
export function defaultChoiceNumbers(prompt: TerminalPrompt): number[] {
  if (prompt.defaultValue === undefined) return [];
  const defaults = isMultiple(prompt) && Array.isArray(prompt.defaultValue) ? prompt.defaultValue : [prompt.defaultValue];
  const choices = promptChoices(prompt);
  const numbers: number[] = [];
  for (const value of defaults) {
    const index = choices.findIndex((choice) => sameValue(choice.value, value));
    if (index >= 0) numbers.push(index + 1);
  }
  return numbers;
}

/** The message followed by ": " unless it already ends with punctuation that asks. */
function asked(message: string): string {
  const trimmed = message.trimEnd();
  if (trimmed === '') return '';
  return /[:?>]$/.test(trimmed) ? `${trimmed} ` : `${trimmed}: `;
}

function bounds(prompt: TerminalPrompt, unit: string): string | undefined {
  const rules = record(prompt.validation);
  const min = rules['min'];
  const max = rules['max'];
  const has = (value: unknown) => typeof value === 'number' || typeof value === 'string';
  if (has(min) && has(max)) return `${showValue(min)} to ${showValue(max)}${unit}`;
  if (has(min)) return `at least ${showValue(min)}${unit}`;
  if (has(max)) return `at most ${showValue(max)}${unit}`;
  return undefined;
}

function hints(parts: (string | undefined)[]): string {
  const present = parts.filter((part): part is string => part !== undefined && part !== '');
  return present.length > 0 ? `(${present.join('; ')}) ` : '';
}

function defaultHint(prompt: TerminalPrompt): string {
  return prompt.defaultValue === undefined ? '' : `[${showValue(prompt.defaultValue)}] `;
}

function skipHint(prompt: TerminalPrompt): string | undefined {
  return !isRequired(prompt) && prompt.defaultValue === undefined ? 'Enter to skip' : undefined;
}

/** The lines and the question for one prompt. */
export function renderPrompt(prompt: TerminalPrompt): PromptView {
  const message = typeof prompt.message === 'string' ? prompt.message : '';
  const placeholder = typeof prompt.placeholder === 'string' && prompt.placeholder !== '' ? prompt.placeholder : undefined;
  const type = promptType(prompt);
  switch (type) {
    case 'choice': {
      const choices = promptChoices(prompt);
      const width = String(choices.length).length;
      const lines = [message.trimEnd()];
      choices.forEach((choice, index) => {
        const label = choice.label === showValue(choice.value) ? choice.label : `${choice.label} (${showValue(choice.value)})`;
        lines.push(`  ${String(index + 1).padStart(width)}) ${label}${choice.description ? ` - ${choice.description}` : ''}`);
      });
      const defaults = defaultChoiceNumbers(prompt);
      const range = choices.length > 0 ? `1-${choices.length}` : 'no choices';
      const what = isMultiple(prompt) ? `numbers separated by commas, ${range}` : `a number ${range} or a value`;
      const question = `Choose ${hints([what, skipHint(prompt)])}${defaults.length > 0 ? `[${defaults.join(',')}] ` : ''}`;
      return { lines, question };
    }
    case 'confirm': {
      const yn = prompt.defaultValue === true ? 'Y/n' : prompt.defaultValue === false ? 'y/N' : 'y/n';
      return { lines: [], question: `${message.trimEnd()} (${yn}) `.trimStart() };
    }
    case 'number':
      return { lines: [], question: `${asked(message)}${hints([placeholder, bounds(prompt, ''), skipHint(prompt)])}${defaultHint(prompt)}` };
    case 'date':
      return { lines: [], question: `${asked(message)}${hints(['YYYY-MM-DD', bounds(prompt, ''), skipHint(prompt)])}${defaultHint(prompt)}` };
    case 'file': {
      const accept = record(prompt.validation)['accept'];
      const accepted = Array.isArray(accept) && accept.length > 0 ? `accepts ${accept.map(showValue).join(', ')}` : undefined;
      const what = isMultiple(prompt) ? 'file paths separated by commas' : 'a file path';
      return { lines: [], question: `${asked(message)}${hints([what, accepted, skipHint(prompt)])}` };
    }
    case 'custom':
      return { lines: [], question: `${asked(message)}${hints(['JSON, or text', skipHint(prompt)])}${defaultHint(prompt)}` };
    default: {
      const length = type === 'text' ? bounds(prompt, ' characters') : undefined;
      const unknown = type === 'text' ? undefined : `prompt type ${JSON.stringify(type)}, answered as text`;
      return { lines: [], question: `${asked(message)}${hints([unknown, placeholder, length, skipHint(prompt)])}${defaultHint(prompt)}` };
    }
  }
}

/** The lines shown when the server refused the previous answer, before the question is asked again. */
export function renderRejection(rejection: Rejection): string[] {
  const lines = [`invalid: ${rejection.message !== undefined && rejection.message !== '' ? rejection.message : 'the server did not accept the answer'}`];
  if (rejection.suggestion !== undefined && rejection.suggestion !== null && rejection.suggestion !== '') lines.push(`suggestion: ${showValue(rejection.suggestion)}`);
  if (Array.isArray(rejection.errors)) for (const error of rejection.errors) lines.push(`  - ${showValue(record(error)['message'] ?? error)}`);
  else if (rejection.errors !== undefined && rejection.errors !== null) lines.push(`  - ${showValue(rejection.errors)}`);
  return lines;
}
