// The MCP Flow faults that only change a value the engine builds (a prompt as sent, a progress
// object, the capability object, a getState result, an interaction.complete result) or relax the
// validation of an answer, as tables of rewrites per fault (src/peer/faults.ts `FaultSet.rewrite`
// and `hooks`). The engine calls the table where it builds the value; the faults that change what
// the engine does (a transition, an answer it gives or withholds) stay at that one place.
import type { FaultHooks } from '../../faults.js';
import type { EnginePrompt } from './answers.js';
import type { Progress } from './session.js';

type Rewrite<T> = (value: T) => T;
type Choice = NonNullable<EnginePrompt['choices']>[number];
type Result = Record<string, unknown>;

/** A prompt as sent (interaction.prompt, .continue's nextPrompt, the initialPrompt); each rewrite gets the engine's own copy. */
export const SENT_PROMPT_REWRITES: FaultHooks<Rewrite<EnginePrompt>> = {
  'prompt-without-message': (prompt) => {
    delete (prompt as Partial<EnginePrompt>).message;
    return prompt;
  },
  'duplicate-choice-values': (prompt) => {
    if (prompt.choices !== undefined && prompt.choices.length > 0) prompt.choices = [prompt.choices[0] as Choice, ...prompt.choices];
    return prompt;
  },
  'choice-without-label': (prompt) => {
    if (prompt.choices !== undefined) prompt.choices = prompt.choices.map(({ label: _label, ...choice }) => choice as Choice);
    return prompt;
  },
  'validation-required-as-string': (prompt) => {
    const rules = prompt.validation;
    if (rules?.required !== undefined) (rules as Record<string, unknown>).required = String(rules.required);
    return prompt;
  },
  'inverted-bounds': (prompt) => {
    const rules = prompt.validation;
    if (rules?.min !== undefined && rules.max !== undefined && rules.min !== rules.max) [rules.min, rules.max] = [rules.max, rules.min];
    return prompt;
  },
  'uncompilable-pattern': (prompt) => {
    const rules = prompt.validation;
    if (rules?.pattern !== undefined) rules.pattern = `${rules.pattern}(`;
    return prompt;
  },
  'date-bounds-not-full-date': (prompt) => {
    if (prompt.type !== 'date') return prompt;
    const dateTime = (value: unknown) => (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    const rules = prompt.validation;
    if (rules?.min !== undefined) rules.min = dateTime(rules.min) as string;
    if (rules?.max !== undefined) rules.max = dateTime(rules.max) as string;
    if (prompt.defaultValue !== undefined) prompt.defaultValue = dateTime(prompt.defaultValue);
    return prompt;
  },
  'default-wrong-type': (prompt) => {
    if (prompt.defaultValue !== undefined) prompt.defaultValue = typeof prompt.defaultValue === 'string' ? 0 : String(prompt.defaultValue);
    return prompt;
  },
};

/** The progress object of interaction.prompt/.continue and the start result. */
export const PROGRESS_REWRITES: FaultHooks<Rewrite<Progress>> = {
  'progress-current-as-string': (progress) => ({ ...progress, current: String(progress.current) as unknown as number }),
  'progress-beyond-total': (progress) => ({ ...progress, current: progress.total + 1 }),
};

/** The 000 capability object (the capabilities method, and initialize). */
export const CAPABILITY_REWRITES: FaultHooks<Rewrite<Result>> = {
  'capabilities-interactive-not-boolean': (object) => ({ ...object, interactive: 'yes' }),
  'feature-flag-not-boolean': (object) => ({ ...object, features: { ...(object.features as Result), validation: 'client' } }),
  'capabilities-version-wrong': (object) => ({ ...object, version: '1.0.0' }),
};

/** The interaction.getState result. */
export const GET_STATE_REWRITES: FaultHooks<Rewrite<Result>> = {
  'missing-metadata': (result) => {
    const { toolName: _toolName, ...metadata } = result.metadata as Result;
    return { ...result, metadata };
  },
  'missing-history': (result) => ({ ...result, history: [] }),
  'last-activity-frozen': (result) => {
    const metadata = result.metadata as Result;
    return { ...result, metadata: { ...metadata, lastActivityAt: metadata.createdAt } };
  },
};

/** The `result` of interaction.complete. */
export const COMPLETE_RESULT_REWRITES: FaultHooks<Rewrite<Result>> = {
  'complete-without-success': ({ success: _success, ...result }) => result,
};

/** Validation rules the server stops enforcing; each rewrite gets (and changes) the engine's own copy of the prompt. */
export const VALIDATION_RELAXATIONS: FaultHooks<Rewrite<EnginePrompt>> = {
  'ignore-required': (prompt) => {
    delete prompt.validation?.required;
    return prompt;
  },
  'ignore-pattern': (prompt) => {
    delete prompt.validation?.pattern;
    return prompt;
  },
  'ignore-text-length': (prompt) => {
    if (prompt.type === 'text') {
      delete prompt.validation?.min;
      delete prompt.validation?.max;
    }
    return prompt;
  },
  'ignore-number-range': (prompt) => {
    if (prompt.type === 'number') {
      delete prompt.validation?.min;
      delete prompt.validation?.max;
    }
    return prompt;
  },
};

/** Values a fault accepts without validating them (`missing`: no value, null or ''). */
export const ACCEPTED_UNCHECKED: FaultHooks<(prompt: EnginePrompt, missing: boolean) => boolean> = {
  'skip-validation': () => true,
  'accept-non-number': (prompt, missing) => !missing && prompt.type === 'number',
  'accept-unlisted-choice': (prompt, missing) => !missing && prompt.type === 'choice',
  'accept-non-boolean-confirm': (prompt, missing) => !missing && prompt.type === 'confirm',
  'accept-invalid-date': (prompt, missing) => !missing && prompt.type === 'date',
};
