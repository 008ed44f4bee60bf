// What the schemas cannot say about an MCP Flow prompt a server sends (in interaction.prompt, the
// nextPrompt of interaction.continue, the initialPrompt of interaction.start): choice values that
// repeat, bounds the wrong way round, patterns that do not compile, a defaultValue of the wrong
// type, and progress beyond its total.
import { compilePattern, isCalendarDate } from '../../protocol/prompt-validation.js';
import { isRecord } from '../../wire/index.js';

export interface PromptProblem {
  requirement: string;
  message: string;
}

/** Problems of one prompt object (already shaped enough to have a type). */
export function promptProblems(prompt: unknown): PromptProblem[] {
  if (!isRecord(prompt)) return [];
  const problems: PromptProblem[] = [];
  const choices = Array.isArray(prompt['choices']) ? prompt['choices'] : undefined;
  if (prompt['type'] === 'choice' && choices) {
    const seen = new Set<string>();
    for (const choice of choices) {
      if (!isRecord(choice) || !('value' in choice)) continue;
      const value = JSON.stringify(choice['value']);
      if (seen.has(value)) problems.push({ requirement: 'FLOW-PROMPT-15', message: `two choices share the value ${value}` });
      seen.add(value);
    }
  }
  const validation = isRecord(prompt['validation']) ? prompt['validation'] : undefined;
  const min = validation?.['min'];
  const max = validation?.['max'];
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    problems.push({ requirement: 'FLOW-PROMPT-15', message: `validation.min ${min} is greater than validation.max ${max}` });
  }
  const pattern = validation?.['pattern'];
  if (typeof pattern === 'string') {
    try {
      compilePattern(pattern);
    } catch (error) {
      problems.push({ requirement: 'FLOW-PROMPT-6', message: (error as Error).message });
    }
  }
  if ('defaultValue' in prompt) {
    const value = prompt['defaultValue'];
    const fits = defaultFits(prompt['type'], value, choices);
    // 000 shows text and confirm defaults (FLOW-PROMPT-7); number and choice defaults are FLOW-PROMPT-15's, date ones FLOW-PROMPT-8's.
    const requirement = prompt['type'] === 'date' ? 'FLOW-PROMPT-8' : prompt['type'] === 'number' || prompt['type'] === 'choice' ? 'FLOW-PROMPT-15' : 'FLOW-PROMPT-7';
    if (!fits) problems.push({ requirement, message: `defaultValue ${JSON.stringify(value)} does not have the ${String(prompt['type'])} prompt's value type` });
  }
  return problems;
}

function defaultFits(type: unknown, value: unknown, choices: unknown[] | undefined): boolean {
  switch (type) {
    case 'text':
      return typeof value === 'string';
    case 'confirm':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number';
    case 'date':
      return typeof value === 'string' && isCalendarDate(value);
    case 'choice':
      return choices === undefined || [value, ...(Array.isArray(value) ? value : [])].some((v) => choices.some((choice) => isRecord(choice) && JSON.stringify(choice['value']) === JSON.stringify(v)));
    default:
      return true;
  }
}

/** Problems of a `progress` object: current beyond total. */
export function progressProblems(progress: unknown): PromptProblem[] {
  if (!isRecord(progress)) return [];
  const { current, total } = progress;
  if (typeof current === 'number' && typeof total === 'number' && current > total) {
    return [{ requirement: 'FLOW-PROMPT-15', message: `progress.current ${current} is greater than progress.total ${total}` }];
  }
  return [];
}
