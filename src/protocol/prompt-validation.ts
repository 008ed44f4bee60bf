// Server-side validation of a user's value against an MCP Flow prompt (000 Appendix A), with the
// semantics the profile recommends where 000 is silent (C-31): `pattern` is an ECMAScript regular
// expression applied like JSON Schema `pattern` (unanchored), text length counts code points,
// number prompts take JSON numbers, confirm prompts JSON booleans, a required text prompt refuses
// the empty string, date prompts take YYYY-MM-DD calendar dates. The other accepted readings of
// C-31 are options.
import { InvalidPromptError } from './errors.js';

export const PROMPT_TYPES = ['text', 'choice', 'confirm', 'number', 'date', 'file', 'custom'] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];

export interface PromptValidationRules {
  required?: boolean;
  pattern?: string;
  min?: number;
  max?: number;
}

export interface PromptChoice {
  value: unknown;
  label: string;
}

export interface FlowPrompt {
  type: PromptType;
  message: string;
  placeholder?: string;
  defaultValue?: unknown;
  choices?: PromptChoice[];
  validation?: PromptValidationRules;
}

export type ValidationOutcome =
  | { valid: true }
  | {
      valid: false;
      /** For `validation.error` in the interaction.respond result. */
      error: string;
      /** For `validation.suggestion`, when there is a useful one. */
      suggestion?: string;
      /** The requirement the value broke. */
      requirement: string;
    };

export interface ValidationOptions {
  /** Count text length in UTF-16 code units instead of code points (the other accepted reading of C-31). */
  lengthUnit?: 'code-points' | 'utf16';
  /** Accept numeric strings such as "42" for number prompts (the other accepted reading of C-31). */
  numericStrings?: boolean;
  /** The whole text value must match `pattern`, as if anchored (FLOW-VALID-3's other reading). */
  anchoredPattern?: boolean;
  /** Accept boolean words ("yes", "no", "true", "false") and 0/1 for confirm prompts (FLOW-VALID-8's other reading). */
  booleanWords?: boolean;
  /** The empty string is a present value for a text prompt: only its other rules can refuse it (FLOW-VALID-2's other reading). */
  emptyTextIsValue?: boolean;
}

/** Boolean words read by `booleanWords`, by what they mean. */
export const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { yes: true, no: false, true: true, false: false, '1': true, '0': false };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMERIC_STRING = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Whether a string is an RFC 3339 full-date naming a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0..99 as 1900..1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Compiles a prompt's pattern as JSON Schema does (ECMAScript, with the `u` flag, or without it
 * where only the flag refuses the pattern); throws InvalidPromptError when it cannot.
 */
export function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch (cause) {
    try {
      return new RegExp(pattern);
    } catch {
      throw new InvalidPromptError(`validation.pattern ${JSON.stringify(pattern)} is not an ECMAScript regular expression (${(cause as Error).message})`, 'FLOW-PROMPT-6');
    }
  }
}

/** The pattern as the anchored reading applies it: the whole value must match. */
export function compileWholePattern(pattern: string): RegExp {
  const inner = compilePattern(pattern);
  return new RegExp(`^(?:${inner.source})$`, inner.flags);
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function invalid(error: string, requirement: string, suggestion?: string): ValidationOutcome {
  return suggestion === undefined ? { valid: false, error, requirement } : { valid: false, error, suggestion, requirement };
}

/**
 * Validates a user's value against a prompt (FLOW-VALID-*). Throws InvalidPromptError when the
 * prompt itself is unusable (unknown type, a pattern that does not compile, a choice prompt
 * without choices).
 */
export function validatePromptValue(prompt: FlowPrompt, value: unknown, options: ValidationOptions = {}): ValidationOutcome {
  if (!(PROMPT_TYPES as readonly string[]).includes(prompt.type)) {
    throw new InvalidPromptError(`prompt type ${JSON.stringify(prompt.type)} is not one of ${PROMPT_TYPES.join(', ')}`, 'FLOW-PROMPT-3');
  }
  const rules = prompt.validation ?? {};
  const emptyText = value === '' && prompt.type === 'text' && options.emptyTextIsValue === true;
  if (isMissing(value) && !emptyText) {
    return rules.required === true ? invalid('A value is required', 'FLOW-VALID-2') : { valid: true };
  }
  switch (prompt.type) {
    case 'text': {
      if (typeof value !== 'string') return invalid('Expected text', 'FLOW-VALID-1');
      const pattern = rules.pattern === undefined ? undefined : options.anchoredPattern ? compileWholePattern(rules.pattern) : compilePattern(rules.pattern);
      if (pattern !== undefined && !pattern.test(value)) {
        return invalid('Invalid format', 'FLOW-VALID-3', `Match the pattern ${rules.pattern}`);
      }
      const length = options.lengthUnit === 'utf16' ? value.length : [...value].length;
      if (rules.min !== undefined && length < rules.min) {
        return invalid(`Too short: at least ${rules.min} characters`, 'FLOW-VALID-4', `Enter at least ${rules.min} characters`);
      }
      if (rules.max !== undefined && length > rules.max) {
        return invalid(`Too long: at most ${rules.max} characters`, 'FLOW-VALID-4', `Enter at most ${rules.max} characters`);
      }
      return { valid: true };
    }
    case 'number': {
      let number: number | undefined;
      if (typeof value === 'number') number = value;
      else if (options.numericStrings && typeof value === 'string' && NUMERIC_STRING.test(value)) number = Number(value);
      if (number === undefined || !Number.isFinite(number)) return invalid('Expected a number', 'FLOW-VALID-6', 'Enter a number');
      if (rules.min !== undefined && number < rules.min) return invalid(`Must be at least ${rules.min}`, 'FLOW-VALID-5');
      if (rules.max !== undefined && number > rules.max) return invalid(`Must be at most ${rules.max}`, 'FLOW-VALID-5');
      return { valid: true };
    }
    case 'choice': {
      const choices = prompt.choices ?? [];
      if (choices.length === 0) throw new InvalidPromptError('a choice prompt needs a non-empty choices array', 'FLOW-PROMPT-4');
      if (choices.some((c) => sameValue(c.value, value))) return { valid: true };
      return invalid('Not one of the choices', 'FLOW-VALID-7', `Choose one of: ${choices.map((c) => JSON.stringify(c.value)).join(', ')}`);
    }
    case 'confirm': {
      const word = options.booleanWords && (typeof value === 'string' || typeof value === 'number') ? BOOLEAN_WORDS[String(value).toLowerCase()] : undefined;
      return typeof value === 'boolean' || word !== undefined ? { valid: true } : invalid('Expected true or false', 'FLOW-VALID-8');
    }
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? { valid: true } : invalid('Invalid date', 'FLOW-VALID-9', 'Use YYYY-MM-DD');
    case 'file':
    case 'custom':
      // 000 gives these no shape beyond type and message (FLOW-PROMPT-9).
      return { valid: true };
  }
}
