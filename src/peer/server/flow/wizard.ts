// Wizard files: interactive tools as data (docs/wizards.md). parseWizard checks a document against
// wizard.schema.json and then the rules a schema cannot say (step references, prompt rules that
// contradict each other, template paths), naming the file and the JSON Pointer of what is wrong.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compilePattern, isCalendarDate } from '../../../protocol/prompt-validation.js';
import { InvalidPromptError } from '../../../protocol/errors.js';
import type { EnginePrompt } from './answers.js';
import { WizardFileError } from './errors.js';
import { templatePaths } from './template.js';
import { validate } from './wizard.validator.generated.js';

export const COMPLETE_TARGET = '$complete';

export type Scalar = string | number | boolean;

export interface WizardCondition {
  field?: string;
  equals?: Scalar;
  in?: Scalar[];
  lessThan?: number;
  atLeast?: number;
}

export interface WizardStep {
  id: string;
  store?: string;
  prompt: EnginePrompt;
  delivery?: 'prompt' | 'continue';
  announce?: string;
  progressMessage?: string;
  branches?: { when: WizardCondition; next: string }[];
  next?: string;
}

export interface WizardExport {
  mimeType: string;
  fileName: string;
  header?: string;
  body: string;
  rows?: string;
}

export interface Wizard {
  name: string;
  title?: string;
  description: string;
  initialPrompt?: boolean;
  timeout?: number;
  steps: WizardStep[];
  result: { data: unknown; summary?: string };
  export?: WizardExport;
  /** Where the wizard came from (a path, or "<inline wizard>"). */
  source: string;
}

/** wizard.schema.json, compiled at build (scripts/generate-validators.ts): no ajv at start. */
const validateDocument = validate as ValidateFunction;

const INLINE = '<inline wizard>';

/** The key of accumulatedData a step writes. */
export function storeKey(step: WizardStep): string {
  return step.store ?? step.id;
}

function checkDefault(step: WizardStep, at: string, file: string): void {
  const prompt = step.prompt;
  const value = prompt.defaultValue;
  if (value === undefined) return;
  const fail = (what: string): never => {
    throw new WizardFileError(file, `${at}/prompt/defaultValue`, `defaultValue must be ${what} for a ${prompt.type} prompt (FLOW-PROMPT-7)`);
  };
  switch (prompt.type) {
    case 'text':
      if (typeof value !== 'string') fail('a string');
      break;
    case 'confirm':
      if (typeof value !== 'boolean') fail('a boolean');
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('a finite number');
      break;
    case 'date':
      if (typeof value !== 'string' || !isCalendarDate(value)) fail('a YYYY-MM-DD calendar date');
      break;
    case 'choice': {
      const values = (prompt.choices ?? []).map((c) => c.value);
      const given = prompt.multiple === true && Array.isArray(value) ? value : [value];
      if (!given.every((v) => values.includes(v as Scalar))) fail('one of the choice values');
      break;
    }
    default:
      fail('absent');
  }
}

function checkPrompt(step: WizardStep, at: string, file: string): void {
  const prompt = step.prompt;
  const rules = prompt.validation ?? {};
  const where = `${at}/prompt`;
  const only = (key: keyof NonNullable<EnginePrompt['validation']>, types: readonly string[]): void => {
    if (rules[key] !== undefined && !types.includes(prompt.type)) {
      throw new WizardFileError(file, `${where}/validation/${key}`, `validation.${key} is not used by ${prompt.type} prompts (only ${types.join(', ')})`);
    }
  };
  only('pattern', ['text']);
  only('min', ['text', 'number', 'date']);
  only('max', ['text', 'number', 'date']);
  only('accept', ['file']);
  only('maxSize', ['file']);
  if (prompt.choices !== undefined && prompt.type !== 'choice') {
    throw new WizardFileError(file, `${where}/choices`, `choices belong to choice prompts, not ${prompt.type}`);
  }
  if (prompt.multiple !== undefined && prompt.type !== 'choice' && prompt.type !== 'file') {
    throw new WizardFileError(file, `${where}/multiple`, 'multiple is only for choice and file prompts');
  }
  if (prompt.type === 'choice') {
    const choices = prompt.choices;
    if (choices === undefined) throw new WizardFileError(file, where, 'a choice prompt needs choices (FLOW-PROMPT-4)');
    const seen = new Set<string>();
    choices.forEach((choice, i) => {
      const key = JSON.stringify(choice.value);
      if (seen.has(key)) throw new WizardFileError(file, `${where}/choices/${i}/value`, `choice value ${key} is given twice (FLOW-PROMPT-4)`);
      seen.add(key);
    });
  }
  if (rules.pattern !== undefined) {
    try {
      compilePattern(rules.pattern);
    } catch (error) {
      if (error instanceof InvalidPromptError) throw new WizardFileError(file, `${where}/validation/pattern`, error.message);
      throw error;
    }
  }
  const kind = prompt.type === 'date' ? 'date' : 'number';
  for (const key of ['min', 'max'] as const) {
    const bound = rules[key];
    if (bound === undefined) continue;
    const ok =
      kind === 'date'
        ? typeof bound === 'string' && isCalendarDate(bound)
        : typeof bound === 'number' && (prompt.type === 'number' || (Number.isInteger(bound) && bound >= 0));
    if (!ok) {
      const expected = kind === 'date' ? 'a YYYY-MM-DD date' : prompt.type === 'text' ? 'a non-negative integer length' : 'a number';
      throw new WizardFileError(file, `${where}/validation/${key}`, `validation.${key} must be ${expected} for a ${prompt.type} prompt`);
    }
  }
  if (rules.min !== undefined && rules.max !== undefined && rules.min > rules.max) {
    throw new WizardFileError(file, `${where}/validation`, 'validation.min is greater than validation.max (FLOW-PROMPT-5)');
  }
  checkDefault(step, at, file);
}

function checkTemplates(wizard: Wizard, file: string): void {
  const keys = new Set(wizard.steps.map(storeKey));
  const check = (template: unknown, pointer: string, allowRow: boolean): void => {
    for (const { path, pointer: at } of templatePaths(template, pointer)) {
      const [root, key] = path.split('.');
      if (root === 'params' && key !== undefined) continue;
      if (root === 'row' && allowRow && key === undefined) continue;
      if (root === 'data' && key !== undefined && keys.has(key)) continue;
      throw new WizardFileError(
        file,
        at,
        `template {{${path}}} names nothing a step stores (known: ${[...keys].map((k) => `data.${k}`).join(', ')}, params.<name>${allowRow ? ', row' : ''})`,
      );
    }
  };
  check(wizard.result.data, '/result/data', false);
  if (wizard.result.summary !== undefined) check(wizard.result.summary, '/result/summary', false);
  wizard.steps.forEach((step, i) => {
    check(step.prompt.message, `/steps/${i}/prompt/message`, false);
    if (step.announce !== undefined) check(step.announce, `/steps/${i}/announce`, false);
  });
  if (wizard.export !== undefined) {
    for (const key of ['fileName', 'header', 'rows'] as const) {
      if (wizard.export[key] !== undefined) check(wizard.export[key], `/export/${key}`, false);
    }
    check(wizard.export.body, '/export/body', true);
  }
}

/** Checks a parsed wizard document; `file` names it in errors. */
export function parseWizard(document: unknown, file: string = INLINE): Wizard {
  if (!validateDocument(document)) {
    const error = validateDocument.errors?.[0];
    const pointer = error?.instancePath ?? '';
    const extra = error?.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : '';
    throw new WizardFileError(file, pointer, `${error?.message ?? 'does not match wizard.schema.json'}${extra}`);
  }
  const wizard = { ...(document as Omit<Wizard, 'source'>), source: file } as Wizard;
  const ids = new Map<string, number>();
  wizard.steps.forEach((step, i) => {
    if (ids.has(step.id)) throw new WizardFileError(file, `/steps/${i}/id`, `step id ${JSON.stringify(step.id)} is also used by /steps/${ids.get(step.id)}`);
    ids.set(step.id, i);
  });
  wizard.steps.forEach((step, i) => {
    const at = `/steps/${i}`;
    checkPrompt(step, at, file);
    const targets = [
      ...(step.next === undefined ? [] : [{ target: step.next, pointer: `${at}/next` }]),
      ...(step.branches ?? []).map((b, j) => ({ target: b.next, pointer: `${at}/branches/${j}/next` })),
    ];
    for (const { target, pointer } of targets) {
      if (target !== COMPLETE_TARGET && !ids.has(target)) throw new WizardFileError(file, pointer, `no step has the id ${JSON.stringify(target)}`);
    }
  });
  checkTemplates(wizard, file);
  return wizard;
}

/** Reads and checks a wizard file (a user's own, or one of the shipped ones). */
export function loadWizard(path: string): Wizard {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new WizardFileError(path, '', `cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, 'WIZARD_UNREADABLE');
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (cause) {
    throw new WizardFileError(path, '', `is not JSON (${(cause as Error).message})`, 'WIZARD_NOT_JSON');
  }
  return parseWizard(document, path);
}

/** The project's wizards/ folder (found upwards from this file, in src/ and in dist/). */
export function shippedWizardsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'wizards');
    if (existsSync(join(candidate, 'booking.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new WizardFileError(resolve('wizards'), '', 'the shipped wizards folder was not found', 'WIZARD_UNREADABLE');
    dir = parent;
  }
}

/** Every wizard shipped in wizards/ (booking, registration, file-export), by file name order. */
export function loadShippedWizards(dir: string = shippedWizardsDir()): Wizard[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => loadWizard(join(dir, name)));
}
