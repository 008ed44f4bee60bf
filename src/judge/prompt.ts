// The MCP Flow prompt rules (000 Appendix A, as the profile reads it: FLOW-PROMPT-3..8, -10, -15;
// C-31, C-37): what is wrong with a prompt or a progress object a server sends, each problem with
// the requirement it breaks. The suites judge the prompts a case meets with them, and the proxy
// every prompt it forwards (`flowMessageProblems`): one set of rules for both.
//
// Two questions the documents leave open are decided by FLOW-PROMPT-15's own words: a choice
// prompt's `defaultValue` fits when it is one of its choice values or an array of them (a prompt
// that takes several values), and `min` <= `max` holds for date bounds (YYYY-MM-DD strings, which
// order as the dates they name) as for numbers.
import { FLOW_METHOD } from '../protocol/methods.js';
import { compilePattern, isCalendarDate, PROMPT_TYPES } from '../protocol/prompt-validation.js';
import { isRecord } from '../wire/index.js';
import type { Problem } from './problem.js';

export type { Problem };

type Message = Record<string, unknown>;

/**
 * The prompt requirements that are MUSTs: the members 000's examples show, with their types
 * (C-37). A message that carries a prompt breaks its own shape requirement (FLOW-START-6,
 * FLOW-PROMPT-11) through one of these; the recommendations (FLOW-PROMPT-6, -8, -15) are judged
 * only where a case declares them.
 */
export const PROMPT_SHAPE_REQUIREMENTS: readonly string[] = ['FLOW-PROMPT-3', 'FLOW-PROMPT-4', 'FLOW-PROMPT-5', 'FLOW-PROMPT-7', 'FLOW-PROMPT-10'];

/** The problems that break a prompt's (or progress's) shape, renamed to `requirement` (the message that carries them). */
export function shapeProblems(problems: readonly Problem[], requirement: string): Problem[] {
  return problems.filter((p) => PROMPT_SHAPE_REQUIREMENTS.includes(p.requirement)).map((p) => ({ ...p, requirement }));
}

function choiceValuesOf(prompt: Message): string[] {
  return Array.isArray(prompt.choices) ? prompt.choices.filter(isRecord).map((c) => JSON.stringify(c.value)) : [];
}

/** Whether `value` is one of the choice prompt's values, or an array of them (FLOW-PROMPT-15). */
function choiceDefaultFits(prompt: Message, value: unknown): boolean {
  const values = choiceValuesOf(prompt);
  const listed = (v: unknown) => values.includes(JSON.stringify(v));
  return listed(value) || (Array.isArray(value) && value.every(listed));
}

/**
 * What is wrong with a prompt (FLOW-PROMPT-3..8, -15); [] for a good one. MUSTs (C-37): a known
 * type and a string message; choices with a value and a string label; validation's members typed
 * as 000 shows them; placeholder, text and confirm defaults typed. Recommendations: an ECMAScript
 * pattern (FLOW-PROMPT-6), YYYY-MM-DD dates (FLOW-PROMPT-8), and consistency (FLOW-PROMPT-15:
 * choices present and distinct, min <= max, number and choice defaults that fit).
 */
export function promptProblems(prompt: unknown): Problem[] {
  const problems: Problem[] = [];
  if (!isRecord(prompt)) return [{ requirement: 'FLOW-PROMPT-3', message: 'the prompt is not an object' }];
  const add = (requirement: string, message: string) => problems.push({ requirement, message });
  if (typeof prompt.type !== 'string' || !(PROMPT_TYPES as readonly string[]).includes(prompt.type)) {
    add('FLOW-PROMPT-3', `type ${JSON.stringify(prompt.type)} is not one of ${PROMPT_TYPES.join(', ')}`);
  }
  if (typeof prompt.message !== 'string') add('FLOW-PROMPT-3', 'the prompt has no string message');
  if (prompt.type === 'choice') {
    const choices = prompt.choices;
    if (!Array.isArray(choices)) add('FLOW-PROMPT-4', 'a choice prompt without a choices array');
    else {
      if (choices.length === 0) add('FLOW-PROMPT-15', 'a choice prompt with no choices cannot be answered');
      const seen = new Set<string>();
      choices.forEach((choice, i) => {
        if (!isRecord(choice) || !Object.hasOwn(choice, 'value') || typeof choice.label !== 'string') {
          add('FLOW-PROMPT-4', `choices[${i}] lacks a value or a string label`);
          return;
        }
        const key = JSON.stringify(choice.value);
        if (seen.has(key)) add('FLOW-PROMPT-15', `choices[${i}] repeats the value ${key}`);
        seen.add(key);
      });
    }
  }
  if (prompt.validation !== undefined) {
    const rules = prompt.validation;
    if (!isRecord(rules)) add('FLOW-PROMPT-5', 'validation is not an object');
    else {
      if (rules.required !== undefined && typeof rules.required !== 'boolean') add('FLOW-PROMPT-5', 'validation.required is not a boolean');
      if (rules.pattern !== undefined && typeof rules.pattern !== 'string') add('FLOW-PROMPT-5', 'validation.pattern is not a string');
      if (typeof rules.pattern === 'string') {
        try {
          compilePattern(rules.pattern);
        } catch {
          add('FLOW-PROMPT-6', `validation.pattern ${JSON.stringify(rules.pattern)} does not compile as an ECMAScript regular expression`);
        }
      }
      // 000 shows numeric bounds on text and number prompts; date bounds are recommended YYYY-MM-DD
      // (FLOW-PROMPT-8); other types' bounds are extensions 000 does not name.
      const isDate = prompt.type === 'date';
      const numeric = prompt.type === 'text' || prompt.type === 'number';
      const bound = (v: unknown) => (isDate ? typeof v === 'string' && isCalendarDate(v) : typeof v === 'number' && Number.isFinite(v));
      for (const name of ['min', 'max'] as const) {
        if (rules[name] === undefined || bound(rules[name])) continue;
        if (numeric) add('FLOW-PROMPT-5', `validation.${name} ${JSON.stringify(rules[name])} is not a number`);
        else if (isDate) add('FLOW-PROMPT-8', `validation.${name} ${JSON.stringify(rules[name])} of a date prompt is not YYYY-MM-DD`);
      }
      if (bound(rules.min) && bound(rules.max) && (rules.min as number | string) > (rules.max as number | string)) {
        add('FLOW-PROMPT-15', `validation.min ${JSON.stringify(rules.min)} is above validation.max ${JSON.stringify(rules.max)}: no value can satisfy both`);
      }
    }
  }
  if (prompt.placeholder !== undefined && typeof prompt.placeholder !== 'string') add('FLOW-PROMPT-7', 'placeholder is not a string');
  const fallback = prompt.defaultValue;
  if (fallback !== undefined) {
    const wrong = (requirement: string, kind: string) => add(requirement, `defaultValue ${JSON.stringify(fallback)} of a ${String(prompt.type)} prompt is not ${kind}`);
    if (prompt.type === 'text' && typeof fallback !== 'string') wrong('FLOW-PROMPT-7', 'a string');
    if (prompt.type === 'confirm' && typeof fallback !== 'boolean') wrong('FLOW-PROMPT-7', 'a boolean');
    if (prompt.type === 'number' && !(typeof fallback === 'number' && Number.isFinite(fallback))) wrong('FLOW-PROMPT-15', 'a number');
    if (prompt.type === 'choice' && !choiceDefaultFits(prompt, fallback)) wrong('FLOW-PROMPT-15', 'one of its choice values');
    if (prompt.type === 'date' && !(typeof fallback === 'string' && isCalendarDate(fallback))) wrong('FLOW-PROMPT-8', 'a YYYY-MM-DD date');
  }
  return problems;
}

/**
 * What is wrong with a `progress` object; [] when absent or good. FLOW-PROMPT-10 (MUST): an
 * object, a number `current`, an optional number `total` and string `message`. FLOW-PROMPT-15
 * (SHOULD): integers with 0 <= current <= total.
 */
export function progressProblems(progress: unknown): Problem[] {
  if (progress === undefined) return [];
  const bad = (requirement: string, message: string): Problem[] => [{ requirement, message }];
  if (!isRecord(progress)) return bad('FLOW-PROMPT-10', 'progress is not an object');
  const { current, total, message } = progress;
  if (typeof current !== 'number' || !Number.isFinite(current)) return bad('FLOW-PROMPT-10', `progress.current ${JSON.stringify(current)} is not a number`);
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) return bad('FLOW-PROMPT-10', `progress.total ${JSON.stringify(total)} is not a number`);
  if (message !== undefined && typeof message !== 'string') return bad('FLOW-PROMPT-10', 'progress.message is not a string');
  if (!Number.isSafeInteger(current) || current < 0) return bad('FLOW-PROMPT-15', `progress.current ${current} is not an integer >= 0`);
  if (total !== undefined && (!Number.isSafeInteger(total) || (total as number) < current)) return bad('FLOW-PROMPT-15', `progress.total ${String(total)} is not an integer >= current ${current}`);
  return [];
}

/** Every requirement the prompt and progress rules can name. */
export const PROMPT_RULE_REQUIREMENTS: readonly string[] = ['FLOW-PROMPT-3', 'FLOW-PROMPT-4', 'FLOW-PROMPT-5', 'FLOW-PROMPT-6', 'FLOW-PROMPT-7', 'FLOW-PROMPT-8', 'FLOW-PROMPT-10', 'FLOW-PROMPT-15'];

/**
 * The problems of the prompts and progress a message carries, wherever 000 puts them: the
 * `initialPrompt` and `progress` of an `interaction.start` result (`requestMethod` names the
 * request it answers), the `prompt` of an `interaction.prompt`, the `nextPrompt` of an
 * `interaction.continue`, and their `progress`. A prompt that is absent or not an object is the
 * schema's finding (FLOW-PROMPT-1, -3), not these rules'.
 */
export function flowMessageProblems(message: unknown, requestMethod?: string): Problem[] {
  if (!isRecord(message)) return [];
  const carried: { prompt?: unknown; progress?: unknown } = {};
  if (requestMethod === FLOW_METHOD.start && isRecord(message['result'])) {
    carried.prompt = message['result']['initialPrompt'];
    carried.progress = message['result']['progress'];
  } else if (message['method'] === FLOW_METHOD.prompt || message['method'] === FLOW_METHOD.continue) {
    const params = isRecord(message['params']) ? message['params'] : {};
    carried.prompt = message['method'] === FLOW_METHOD.prompt ? params['prompt'] : params['nextPrompt'];
    carried.progress = params['progress'];
  }
  return [...(isRecord(carried.prompt) ? promptProblems(carried.prompt) : []), ...progressProblems(carried.progress)];
}
