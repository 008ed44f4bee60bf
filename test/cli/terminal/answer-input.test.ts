// What a typed line means at each prompt type: defaults on Enter, numbers, y/n, choices by number,
// value or label, comma-separated multi-choice, JSON for custom, files read through the loader;
// anything that does not convert is sent as typed for the server to judge.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAnswer } from '../../../src/cli/terminal/answer-input.js';
import { FileAnswerError } from '../../../src/cli/terminal/errors.js';
import { readFileAnswer } from '../../../src/cli/terminal/file-answer.js';
import type { TerminalPrompt } from '../../../src/cli/terminal/prompt-view.js';

const cabin: TerminalPrompt = {
  type: 'choice',
  message: 'Select class:',
  choices: [
    { value: 'economy', label: 'Economy' },
    { value: 'business', label: 'Business' },
    { value: 'first', label: 'First' },
  ],
};

describe('parseAnswer', () => {
  it('Enter takes the default of any prompt type', () => {
    expect(parseAnswer({ type: 'number', message: 'n', defaultValue: 1 }, '')).toEqual({ value: 1 });
    expect(parseAnswer({ type: 'confirm', message: 'c', defaultValue: true }, '  ')).toEqual({ value: true });
    expect(parseAnswer({ type: 'text', message: 't', defaultValue: 'export' }, '')).toEqual({ value: 'export' });
    expect(parseAnswer({ ...cabin, defaultValue: 'business' }, '')).toEqual({ value: 'business' });
  });

  it('Enter without a default: empty text, no choices for multi-choice, null otherwise', () => {
    expect(parseAnswer({ type: 'text', message: 't' }, '')).toEqual({ value: '' });
    expect(parseAnswer({ ...cabin, multiple: true }, '')).toEqual({ value: [] });
    expect(parseAnswer({ type: 'date', message: 'd' }, '')).toEqual({ value: null });
  });

  it('text is sent as typed, spaces included', () => {
    expect(parseAnswer({ type: 'text', message: 't' }, ' Lisbon ')).toEqual({ value: ' Lisbon ' });
  });

  it('numbers become JSON numbers; other text is sent for the server to refuse', () => {
    expect(parseAnswer({ type: 'number', message: 'n' }, '42')).toEqual({ value: 42 });
    expect(parseAnswer({ type: 'number', message: 'n' }, '-1.5e2')).toEqual({ value: -150 });
    expect(parseAnswer({ type: 'number', message: 'n' }, 'many')).toEqual({ value: 'many' });
  });

  it('confirm reads y/yes/true and n/no/false in any case', () => {
    for (const yes of ['y', 'Y', 'yes', 'TRUE']) expect(parseAnswer({ type: 'confirm', message: 'c' }, yes)).toEqual({ value: true });
    for (const no of ['n', 'No', 'false']) expect(parseAnswer({ type: 'confirm', message: 'c' }, no)).toEqual({ value: false });
    expect(parseAnswer({ type: 'confirm', message: 'c' }, 'maybe')).toEqual({ value: 'maybe' });
  });

  it('choice by number, by value or by label; out of range is sent as typed', () => {
    expect(parseAnswer(cabin, '2')).toEqual({ value: 'business' });
    expect(parseAnswer(cabin, 'first')).toEqual({ value: 'first' });
    expect(parseAnswer(cabin, 'economy')).toEqual({ value: 'economy' });
    expect(parseAnswer(cabin, 'BUSINESS')).toEqual({ value: 'business' });
    expect(parseAnswer(cabin, '4')).toEqual({ value: '4' });
  });

  it('choice values keep their JSON type', () => {
    const prompt: TerminalPrompt = { type: 'choice', message: 'm', choices: [{ value: 10, label: 'ten' }, { value: 20, label: 'twenty' }] };
    expect(parseAnswer(prompt, '2')).toEqual({ value: 20 });
    expect(parseAnswer(prompt, '10')).toEqual({ value: 10 });
  });

  it('multi-choice: comma-separated numbers or values', () => {
    expect(parseAnswer({ ...cabin, multiple: true }, '1, 3')).toEqual({ value: ['economy', 'first'] });
    expect(parseAnswer({ ...cabin, multiple: true }, 'business,1')).toEqual({ value: ['business', 'economy'] });
  });

  it('date is sent trimmed as typed (the server checks the calendar)', () => {
    expect(parseAnswer({ type: 'date', message: 'd' }, ' 2025-02-30 ')).toEqual({ value: '2025-02-30' });
  });

  it('custom: JSON when it parses, the text otherwise', () => {
    expect(parseAnswer({ type: 'custom', message: 'c' }, '{"theme":"dark"}')).toEqual({ value: { theme: 'dark' } });
    expect(parseAnswer({ type: 'custom', message: 'c' }, 'dark mode')).toEqual({ value: 'dark mode' });
  });

  it('an unknown prompt type is answered with the text', () => {
    expect(parseAnswer({ type: 'colour', message: 'c' }, 'red')).toEqual({ value: 'red' });
  });
});

describe('file prompts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'file-answer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a typed path becomes {name, mimeType, size, content}', () => {
    const path = join(dir, 'avatar.png');
    writeFileSync(path, Buffer.from([1, 2, 3, 4]));
    expect(parseAnswer({ type: 'file', message: 'f' }, path, readFileAnswer)).toEqual({
      value: { name: 'avatar.png', mimeType: 'image/png', size: 4, content: 'AQIDBA==' },
    });
    expect(parseAnswer({ type: 'file', message: 'f', multiple: true }, `${path}, ${path}`, readFileAnswer)).toEqual({
      value: [expect.objectContaining({ name: 'avatar.png' }), expect.objectContaining({ name: 'avatar.png' })],
    });
  });

  it('an unreadable path is a problem naming it (asked again, nothing sent)', () => {
    const missing = join(dir, 'missing.png');
    expect(parseAnswer({ type: 'file', message: 'f' }, missing, readFileAnswer)).toEqual({ problem: `cannot read the file ${JSON.stringify(missing)}: ENOENT` });
    expect(() => readFileAnswer(dir)).toThrow(FileAnswerError);
    expect(() => readFileAnswer(dir)).toThrow(/is a directory/);
  });
});
