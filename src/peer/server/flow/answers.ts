// Server-side validation of an answer (FLOW-VALID-*): src/protocol/prompt-validation.ts for the
// rules 000 names, plus what the profile's prompt schemas add and that module does not check:
// date `min`/`max` (YYYY-MM-DD bounds), choice prompts with `multiple`, and file values.
import {
  isCalendarDate,
  validatePromptValue,
  type FlowPrompt,
  type PromptType,
  type ValidationOptions,
  type ValidationOutcome,
} from '../../../protocol/prompt-validation.js';

/** A prompt as the engine sends it: FlowPrompt plus the schema's `multiple`, `error` and file/date rules. */
export interface EnginePrompt {
  type: PromptType;
  message: string;
  placeholder?: string;
  defaultValue?: unknown;
  multiple?: boolean;
  choices?: { value: string | number | boolean; label: string; description?: string }[];
  /** Why the previous answer was refused (re-prompt after a rejection). */
  error?: string;
  validation?: {
    required?: boolean;
    pattern?: string;
    /** number for text (length) and number prompts, YYYY-MM-DD for date prompts. */
    min?: number | string;
    max?: number | string;
    /** file prompts: extensions (".csv") or media types ("text/csv", "image/*"). */
    accept?: string[];
    /** file prompts: largest size in bytes. */
    maxSize?: number;
  };
}

/**
 * A file answer: the file's name plus, optionally, its media type, size in bytes, a URI and the
 * base64 content. (000 leaves the shape open, FLOW-PROMPT-9; this is the mock server's reading.)
 */
export interface FileAnswer {
  name: string;
  mimeType?: string;
  size?: number;
  uri?: string;
  content?: string;
}

function invalid(error: string, requirement: string, suggestion?: string): ValidationOutcome {
  return suggestion === undefined ? { valid: false, error, requirement } : { valid: false, error, suggestion, requirement };
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function base64Size(content: string): number {
  const clean = content.replace(/=+$/, '');
  return Math.floor((clean.length * 3) / 4);
}

function matchesAccept(file: FileAnswer, accept: readonly string[]): boolean {
  const name = file.name.toLowerCase();
  const type = file.mimeType?.toLowerCase();
  return accept.some((entry) => {
    const rule = entry.toLowerCase();
    if (rule.startsWith('.')) return name.endsWith(rule);
    if (type === undefined) return false;
    if (rule.endsWith('/*')) return type.startsWith(rule.slice(0, -1));
    return type === rule;
  });
}

function validateFile(value: unknown, rules: NonNullable<EnginePrompt['validation']>): ValidationOutcome {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return invalid('Expected a file object with a name', 'FLOW-VALID-1', 'Send {"name": "...", "mimeType": "...", "size": <bytes>}');
  }
  const file = value as Record<string, unknown>;
  if (typeof file.name !== 'string' || file.name === '') return invalid('The file has no name', 'FLOW-VALID-1', 'Give the file a non-empty "name"');
  for (const key of ['mimeType', 'uri', 'content'] as const) {
    if (file[key] !== undefined && typeof file[key] !== 'string') return invalid(`The file's ${key} is not a string`, 'FLOW-VALID-1');
  }
  if (file.size !== undefined && !(Number.isSafeInteger(file.size) && (file.size as number) >= 0)) {
    return invalid("The file's size is not a byte count", 'FLOW-VALID-1');
  }
  const answer = file as unknown as FileAnswer;
  if (rules.accept !== undefined && rules.accept.length > 0 && !matchesAccept(answer, rules.accept)) {
    return invalid('File type not accepted', 'FLOW-VALID-1', `Send one of: ${rules.accept.join(', ')}`);
  }
  const size = answer.size ?? (answer.content === undefined ? undefined : base64Size(answer.content));
  if (rules.maxSize !== undefined && size !== undefined && size > rules.maxSize) {
    return invalid(`File too large: at most ${rules.maxSize} bytes`, 'FLOW-VALID-1', `Send a file of at most ${rules.maxSize} bytes`);
  }
  return { valid: true };
}

/** Validates an answer against an engine prompt (throws InvalidPromptError for an unusable prompt). */
export function validateAnswer(prompt: EnginePrompt, value: unknown, options: ValidationOptions = {}): ValidationOutcome {
  const rules = prompt.validation ?? {};
  if (prompt.type === 'choice' && prompt.multiple === true) {
    if (isMissing(value) || (Array.isArray(value) && value.length === 0)) {
      return rules.required === true ? invalid('A value is required', 'FLOW-VALID-2', 'Choose at least one option') : { valid: true };
    }
    if (!Array.isArray(value)) return invalid('Expected a list of choices', 'FLOW-VALID-7', 'Send an array of choice values');
    const single: EnginePrompt = { ...prompt, multiple: false, validation: {} };
    for (const item of value) {
      const outcome = validateAnswer(single, item, options);
      if (!outcome.valid) return outcome;
    }
    if (new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return invalid('A choice was given twice', 'FLOW-VALID-7');
    return { valid: true };
  }
  if (prompt.type === 'file') {
    if (isMissing(value)) return rules.required === true ? invalid('A value is required', 'FLOW-VALID-2', 'Attach a file') : { valid: true };
    if (prompt.multiple === true) {
      if (!Array.isArray(value)) return invalid('Expected a list of files', 'FLOW-VALID-1');
      if (value.length === 0 && rules.required === true) return invalid('A value is required', 'FLOW-VALID-2', 'Attach a file');
      for (const item of value) {
        const outcome = validateFile(item, rules);
        if (!outcome.valid) return outcome;
      }
      return { valid: true };
    }
    return validateFile(value, rules);
  }
  // The shared validator reads number bounds only; date bounds are strings and checked below.
  const shared: FlowPrompt = {
    type: prompt.type,
    message: prompt.message,
    ...(prompt.choices === undefined ? {} : { choices: prompt.choices }),
    validation: {
      ...(rules.required === undefined ? {} : { required: rules.required }),
      ...(rules.pattern === undefined ? {} : { pattern: rules.pattern }),
      ...(typeof rules.min === 'number' ? { min: rules.min } : {}),
      ...(typeof rules.max === 'number' ? { max: rules.max } : {}),
    },
  };
  const outcome = validatePromptValue(shared, value, options);
  if (!outcome.valid || prompt.type !== 'date' || isMissing(value)) return outcome;
  const date = value as string;
  if (typeof rules.min === 'string' && isCalendarDate(rules.min) && date < rules.min) {
    return invalid(`Date before ${rules.min}`, 'FLOW-VALID-9', `Use a date on or after ${rules.min}`);
  }
  if (typeof rules.max === 'string' && isCalendarDate(rules.max) && date > rules.max) {
    return invalid(`Date after ${rules.max}`, 'FLOW-VALID-9', `Use a date on or before ${rules.max}`);
  }
  return outcome;
}
