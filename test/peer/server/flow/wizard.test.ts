// Wizard files: the shipped ones load; broken ones are refused naming the file and the JSON Pointer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  flowExtension,
  FlowOptionsError,
  loadShippedWizards,
  loadWizard,
  parseWizard,
  WizardFileError,
} from '../../../../src/peer/server/flow/index.js';

const dir = mkdtempSync(join(tmpdir(), 'flow-wizards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function base(): Record<string, unknown> {
  return {
    name: 'w',
    description: 'a wizard',
    steps: [
      { id: 'a', prompt: { type: 'text', message: 'A?' } },
      { id: 'b', prompt: { type: 'number', message: 'B?' } },
    ],
    result: { data: { a: '{{data.a}}' } },
  };
}

type Mutation = (w: Record<string, any>) => void;

const BROKEN: [string, Mutation, string, string][] = [
  ['no steps', (w) => delete w.steps, '', "must have required property 'steps'"],
  ['an unknown member', (w) => (w.colour = 'red'), '', 'colour'],
  ['an unknown prompt type', (w) => (w.steps[0].prompt.type = 'slider'), '/steps/0/prompt/type', 'allowed values'],
  ['a repeated step id', (w) => (w.steps[1].id = 'a'), '/steps/1/id', 'also used by /steps/0'],
  ['next naming no step', (w) => (w.steps[0].next = 'zzz'), '/steps/0/next', 'no step has the id "zzz"'],
  ['a branch naming no step', (w) => (w.steps[0].branches = [{ when: { equals: 'x' }, next: 'q' }]), '/steps/0/branches/0/next', '"q"'],
  ['a choice prompt without choices', (w) => (w.steps[0].prompt = { type: 'choice', message: 'c' }), '/steps/0/prompt', 'needs choices'],
  [
    'a repeated choice value',
    (w) => (w.steps[0].prompt = { type: 'choice', message: 'c', choices: [{ value: 1, label: 'x' }, { value: 1, label: 'y' }] }),
    '/steps/0/prompt/choices/1/value',
    'given twice',
  ],
  ['a pattern that does not compile', (w) => (w.steps[0].prompt.validation = { pattern: '([' }), '/steps/0/prompt/validation/pattern', 'not an ECMAScript'],
  ['min above max', (w) => (w.steps[1].prompt.validation = { min: 5, max: 1 }), '/steps/1/prompt/validation', 'greater than'],
  ['a pattern on a number prompt', (w) => (w.steps[1].prompt.validation = { pattern: 'x' }), '/steps/1/prompt/validation/pattern', 'not used by number'],
  ['a text length that is not an integer', (w) => (w.steps[0].prompt.validation = { min: 1.5 }), '/steps/0/prompt/validation/min', 'non-negative integer'],
  ['a date bound that is no date', (w) => (w.steps[0].prompt = { type: 'date', message: 'd', validation: { min: '2024-13-01' } }), '/steps/0/prompt/validation/min', 'YYYY-MM-DD'],
  ['a defaultValue of the wrong type', (w) => (w.steps[1].prompt.defaultValue = 'seven'), '/steps/1/prompt/defaultValue', 'finite number'],
  ['choices on a text prompt', (w) => (w.steps[0].prompt.choices = [{ value: 1, label: 'x' }]), '/steps/0/prompt/choices', 'choice prompts'],
  ['a template naming an unknown key', (w) => (w.result.data = { x: '{{data.nope}}' }), '/result/data/x', '{{data.nope}}'],
  ['a prompt message naming an unknown key', (w) => (w.steps[0].prompt.message = 'Hi {{data.who}}'), '/steps/0/prompt/message', '{{data.who}}'],
];

describe('parseWizard', () => {
  it('accepts the minimal document', () => {
    expect(parseWizard(base()).steps.map((s) => s.id)).toEqual(['a', 'b']);
  });

  it.each(BROKEN)('refuses %s at its JSON Pointer', (_, mutate, pointer, text) => {
    const document = base();
    mutate(document);
    let caught: unknown;
    try {
      parseWizard(document, 'mine.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WizardFileError);
    const error = caught as WizardFileError;
    expect(error.code).toBe('WIZARD_INVALID');
    expect(error.file).toBe('mine.json');
    expect(error.pointer).toBe(pointer);
    expect(error.message).toContain(text);
    expect(error.message.startsWith(`mine.json${pointer === '' ? '' : ` at ${pointer}`}: `)).toBe(true);
  });
});

describe('loadWizard', () => {
  it('loads a user file and names it in errors', () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(base()));
    expect(loadWizard(good).source).toBe(good);

    const broken = join(dir, 'broken.json');
    const document = base();
    (document.steps as { next?: string }[])[1]!.next = 'x';
    writeFileSync(broken, JSON.stringify(document));
    expect(() => loadWizard(broken)).toThrow(`${broken} at /steps/1/next: no step has the id "x"`);
  });

  it('refuses a missing file and a file that is not JSON', () => {
    expect(() => loadWizard(join(dir, 'missing.json'))).toThrow(expect.objectContaining({ code: 'WIZARD_UNREADABLE', pointer: '' }));
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{ steps: ');
    expect(() => loadWizard(notJson)).toThrow(expect.objectContaining({ code: 'WIZARD_NOT_JSON', file: notJson }));
  });

  it('ships booking, file-export and registration, using all seven prompt types between them', () => {
    const wizards = loadShippedWizards();
    expect(wizards.map((w) => w.name)).toEqual(['booking', 'file-export', 'registration']);
    const types = new Set(wizards.flatMap((w) => w.steps.map((s) => s.prompt.type)));
    expect([...types].sort()).toEqual(['choice', 'confirm', 'custom', 'date', 'file', 'number', 'text']);
  });

  it('refuses two wizards with one name', () => {
    const wizard = parseWizard(base());
    expect(() => flowExtension({ wizards: [wizard, wizard] })).toThrow(FlowOptionsError);
  });
});
