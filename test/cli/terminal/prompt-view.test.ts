// Rendering of prompts, refusals, progress and results for the terminal: pure functions, checked
// against the shipped wizards' prompts and the seed's Appendix A examples.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderPrompt, renderRejection, defaultChoiceNumbers, type TerminalPrompt } from '../../../src/cli/terminal/prompt-view.js';
import { byteProgress, formatBytes, progressBar, redrawLine } from '../../../src/cli/terminal/progress-bar.js';
import { renderContentItem, renderJson, renderToolResult } from '../../../src/cli/terminal/result-view.js';

type WizardStep = { id: string; prompt: TerminalPrompt };
function wizardStep(file: string, id: string): TerminalPrompt {
  const wizard = JSON.parse(readFileSync(new URL(`../../../wizards/${file}`, import.meta.url), 'utf8')) as { steps: WizardStep[] };
  return wizard.steps.find((step) => step.id === id)!.prompt;
}

describe('renderPrompt', () => {
  it('text: the message asks, the placeholder and length bounds are hints, the default is in brackets', () => {
    expect(renderPrompt(wizardStep('booking.json', 'destination'))).toEqual({
      lines: [],
      question: 'Enter destination: (e.g. Lisbon; 2 to 50 characters) ',
    });
    expect(renderPrompt(wizardStep('file-export.json', 'fileName')).question).toBe('File name (without extension): (1 to 64 characters) [export] ');
  });

  it('an optional prompt without a default says Enter skips it', () => {
    expect(renderPrompt({ type: 'text', message: 'Nickname?' }).question).toBe('Nickname? (Enter to skip) ');
  });

  it('choice: numbered choices with labels, values where they differ, descriptions; the default by number', () => {
    const view = renderPrompt(wizardStep('booking.json', 'cabin'));
    expect(view.lines).toEqual(['Select class:', '  1) Economy (economy)', '  2) Business (business)', '  3) First (first) - Includes lounge access']);
    expect(view.question).toBe('Choose (a number 1-3 or a value) ');
    const plan = renderPrompt(wizardStep('registration.json', 'plan'));
    expect(plan.question).toBe('Choose (a number 1-2 or a value) [1] ');
  });

  it('multi-choice asks for comma-separated numbers and shows every default', () => {
    const prompt: TerminalPrompt = {
      type: 'choice',
      multiple: true,
      message: 'Toppings',
      choices: [{ value: 'a', label: 'a' }, { value: 'b', label: 'b' }, { value: 'c', label: 'c' }],
      defaultValue: ['a', 'c'],
    };
    const view = renderPrompt(prompt);
    expect(view.lines).toEqual(['Toppings', '  1) a', '  2) b', '  3) c']);
    expect(view.question).toBe('Choose (numbers separated by commas, 1-3) [1,3] ');
    expect(defaultChoiceNumbers(prompt)).toEqual([1, 3]);
  });

  it('confirm: y/n with the default in capitals', () => {
    expect(renderPrompt(wizardStep('booking.json', 'lounge')).question).toBe('Add lounge access? (Y/n) ');
    expect(renderPrompt(wizardStep('registration.json', 'newsletter')).question).toBe('Subscribe to the newsletter? (y/N) ');
    expect(renderPrompt({ type: 'confirm', message: 'Are you sure?', validation: { required: true } }).question).toBe('Are you sure? (y/n) ');
  });

  it('number and date: bounds as hints, the date format named', () => {
    expect(renderPrompt(wizardStep('booking.json', 'travellers')).question).toBe('How many travellers? (1 to 9) [1] ');
    expect(renderPrompt({ type: 'date', message: 'Departure date for Lisbon:', validation: { required: true, min: '2024-01-01', max: '2099-12-31' } }).question).toBe(
      'Departure date for Lisbon: (YYYY-MM-DD; 2024-01-01 to 2099-12-31) ',
    );
  });

  it('file and custom prompts say what to type', () => {
    expect(renderPrompt(wizardStep('registration.json', 'avatar')).question).toBe(
      'Upload an avatar (optional): (a file path; accepts .png, .jpg, image/*; Enter to skip) ',
    );
    expect(renderPrompt(wizardStep('registration.json', 'preferences')).question).toBe('Any preferences (free-form JSON, optional): (JSON, or text; Enter to skip) ');
  });

  it('an unknown prompt type is asked as text and says so', () => {
    expect(renderPrompt({ type: 'colour', message: 'Pick', validation: { required: true } }).question).toBe('Pick: (prompt type "colour", answered as text) ');
  });

  it('never throws on whatever a server sends as a prompt', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('type', 'message', 'choices', 'defaultValue', 'validation', 'multiple', 'placeholder'), fc.jsonValue()), (prompt) => {
        const view = renderPrompt(prompt as TerminalPrompt);
        expect(typeof view.question).toBe('string');
        for (const line of view.lines) expect(typeof line).toBe('string');
      }),
    );
  });
});

describe('renderRejection', () => {
  it('shows the server error and its suggestion', () => {
    expect(renderRejection({ message: 'Date before 2024-01-01', suggestion: 'Use a date on or after 2024-01-01' })).toEqual([
      'invalid: Date before 2024-01-01',
      'suggestion: Use a date on or after 2024-01-01',
    ]);
  });

  it('lists field errors and says the answer was refused when no message came', () => {
    expect(renderRejection({ errors: [{ message: 'too short' }, 'bad'] })).toEqual(['invalid: the server did not accept the answer', '  - too short', '  - bad']);
  });
});

describe('progress bars', () => {
  it('fills in proportion and shows the count and message', () => {
    expect(progressBar({ current: 2, total: 5, message: 'Step 2 of 5' }, 60)).toBe('[########------------] 2/5 Step 2 of 5');
    expect(progressBar({ current: 0, total: 4 }, 60)).toBe('[--------------------] 0/4');
    expect(progressBar({ current: 3, message: 'working' }, 60)).toBe('[3] working');
  });

  it('never exceeds the width and never overfills', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.string(), fc.integer({ min: 20, max: 200 }), (current, total, message, columns) => {
        const line = progressBar({ current, total, message }, columns);
        expect([...line].length).toBeLessThanOrEqual(columns);
        if (total > 0) expect(line.startsWith('[')).toBe(true);
      }),
    );
  });

  it('a terminal that reports 0 columns (or none) gets the 80-column bar, not "..."', () => {
    const wide = progressBar({ current: 2, total: 5, message: 'Step 2 of 5' }, 80);
    expect(wide).toBe('[##########----------------] 2/5 Step 2 of 5');
    expect(progressBar({ current: 2, total: 5, message: 'Step 2 of 5' }, 0)).toBe(wide);
    expect(progressBar({ current: 2, total: 5, message: 'Step 2 of 5' })).toBe(wide);
    expect(byteProgress(512, 1024, 0)).toBe(byteProgress(512, 1024, 80));
    expect(byteProgress(512, 1024, 0)).toMatch(/^\[#+-+\]  50% /);
  });

  it('download bytes: percentage and sizes; unknown length shows what arrived', () => {
    expect(byteProgress(512 * 1024, 1024 * 1024, 60)).toBe('[##########----------]  50% 512.0 KiB / 1.0 MiB');
    expect(byteProgress(100, undefined)).toBe('100 B received');
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });

  it('redraws in place: carriage return, text, erase to the end of the line', () => {
    expect(redrawLine('x')).toBe('\rx\x1b[K');
  });
});

describe('result rendering', () => {
  it('text content as text, other content summarised on one line', () => {
    expect(
      renderToolResult({
        content: [
          { type: 'text', text: 'hello\nworld' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'mock://download/3', mimeType: 'application/octet-stream', blob: 'AAEC' } },
          { type: 'resource', resource: { uri: 'mock://t', text: 'abc' } },
          { type: 'ref/stream', streamTag: 1, mimeType: 'text/csv' },
        ],
        structuredContent: { sum: 3 },
      }),
    ).toEqual([
      'hello',
      'world',
      '[image: image/png, 3 B]',
      '[resource mock://download/3: application/octet-stream, 3 B]',
      '[resource mock://t: 3 characters]',
      '[execution stream 1: text/csv]',
      'structured content: {"sum":3}',
    ]);
  });

  it('says when the tool reported an error, and when there is nothing', () => {
    expect(renderToolResult({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual(['tool reported an error (isError: true):', 'boom']);
    expect(renderToolResult({ content: [] })).toEqual(['(no content)']);
    expect(renderContentItem({ kind: 'odd' })).toEqual(['[content without a type: {"kind":"odd"}]']);
  });

  it('JSON indented, BigInt as digits', () => {
    expect(renderJson({ a: 1n })).toEqual(['{', '  "a": "1"', '}']);
  });
});
