import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidPromptError } from '../../src/protocol/errors.js';
import { compilePattern, isCalendarDate, validatePromptValue, type FlowPrompt } from '../../src/protocol/prompt-validation.js';

const text = (validation: FlowPrompt['validation']): FlowPrompt => ({ type: 'text', message: 'Enter text:', validation });

describe('validatePromptValue (FLOW-VALID-*, C-31)', () => {
  it('applies required to missing, null and empty values', () => {
    for (const value of [undefined, null, '']) {
      expect(validatePromptValue(text({ required: true }), value)).toMatchObject({ valid: false, requirement: 'FLOW-VALID-2' });
      expect(validatePromptValue(text({}), value)).toEqual({ valid: true });
    }
  });

  it('takes the empty string as a present text value only when asked (FLOW-VALID-2 reading 2)', () => {
    expect(validatePromptValue(text({ required: true }), '', { emptyTextIsValue: true })).toEqual({ valid: true });
    expect(validatePromptValue(text({ required: true, min: 1 }), '', { emptyTextIsValue: true })).toMatchObject({ valid: false, requirement: 'FLOW-VALID-4' });
    expect(validatePromptValue(text({ required: true }), null, { emptyTextIsValue: true })).toMatchObject({ valid: false, requirement: 'FLOW-VALID-2' });
    expect(validatePromptValue({ type: 'number', message: 'n', validation: { required: true } }, '', { emptyTextIsValue: true })).toMatchObject({ valid: false });
  });

  it('matches patterns unanchored, as JSON Schema does, or against the whole value when asked', () => {
    expect(validatePromptValue(text({ pattern: '[0-9]' }), 'abc1')).toEqual({ valid: true });
    expect(validatePromptValue(text({ pattern: '[0-9]' }), 'abc1', { anchoredPattern: true })).toMatchObject({ valid: false, requirement: 'FLOW-VALID-3' });
    expect(validatePromptValue(text({ pattern: '[a-c]+|[0-9]' }), 'abc', { anchoredPattern: true })).toEqual({ valid: true });
    expect(validatePromptValue(text({ pattern: '^[a-z]+$' }), 'abc1')).toMatchObject({ valid: false, requirement: 'FLOW-VALID-3' });
  });

  it('compiles a pattern without the u flag when only the flag refuses it', () => {
    expect(compilePattern('[\\w-.]+').test('a.b')).toBe(true);
    expect(() => compilePattern('abc(')).toThrow(InvalidPromptError);
  });

  it('counts text length in code points, or UTF-16 units when asked', () => {
    const prompt = text({ min: 3, max: 3 });
    expect(validatePromptValue(prompt, '😀😀😀')).toEqual({ valid: true });
    expect(validatePromptValue(prompt, '😀😀😀', { lengthUnit: 'utf16' })).toMatchObject({ valid: false, requirement: 'FLOW-VALID-4' });
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.nat(20), (value, limit) => {
        const outcome = validatePromptValue(text({ max: limit }), value === '' ? 'x' : value);
        expect(outcome.valid).toBe([...(value === '' ? 'x' : value)].length <= limit);
      }),
    );
  });

  it('bounds numbers inclusively and takes numeric strings only when asked', () => {
    const prompt: FlowPrompt = { type: 'number', message: 'Amount:', validation: { min: 0, max: 1000 } };
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -2000, max: 2000 }), (n) => {
        expect(validatePromptValue(prompt, n).valid).toBe(n >= 0 && n <= 1000);
      }),
    );
    expect(validatePromptValue(prompt, '42')).toMatchObject({ valid: false, requirement: 'FLOW-VALID-6' });
    expect(validatePromptValue(prompt, '42', { numericStrings: true })).toEqual({ valid: true });
    expect(validatePromptValue(prompt, Number.POSITIVE_INFINITY).valid).toBe(false);
  });

  it('accepts only listed choices, booleans for confirm, calendar dates for date', () => {
    const choice: FlowPrompt = { type: 'choice', message: 'Pick:', choices: [{ value: 'a', label: 'A' }, { value: 2, label: 'Two' }] };
    expect(validatePromptValue(choice, 'a')).toEqual({ valid: true });
    expect(validatePromptValue(choice, '2')).toMatchObject({ valid: false, requirement: 'FLOW-VALID-7' });
    expect(validatePromptValue({ type: 'confirm', message: 'Sure?' }, 'yes')).toMatchObject({ valid: false, requirement: 'FLOW-VALID-8' });
    expect(validatePromptValue({ type: 'confirm', message: 'Sure?' }, 'Yes', { booleanWords: true })).toEqual({ valid: true });
    expect(validatePromptValue({ type: 'confirm', message: 'Sure?' }, 0, { booleanWords: true })).toEqual({ valid: true });
    expect(validatePromptValue({ type: 'confirm', message: 'Sure?' }, 'maybe', { booleanWords: true })).toMatchObject({ valid: false });
    expect(validatePromptValue({ type: 'confirm', message: 'Sure?' }, 42, { booleanWords: true })).toMatchObject({ valid: false });
    expect(validatePromptValue({ type: 'date', message: 'When?' }, '2024-02-29')).toEqual({ valid: true });
    expect(validatePromptValue({ type: 'date', message: 'When?' }, '2023-02-29')).toMatchObject({ valid: false, suggestion: 'Use YYYY-MM-DD' });
    expect(isCalendarDate('2024-13-01')).toBe(false);
  });

  it('reads years 0000..0099 as themselves, not as 19xx', () => {
    expect(isCalendarDate('0001-01-01')).toBe(true);
    expect(isCalendarDate('0004-02-29')).toBe(true);
    // 1900 was no leap year, year 4 was: Date.UTC would have read 0000..0099 as 1900..1999.
    expect(isCalendarDate('0000-02-29')).toBe(true);
    expect(isCalendarDate('0099-02-29')).toBe(false);
  });

  it('throws a typed error for prompts that cannot validate anything', () => {
    expect(() => validatePromptValue(text({ pattern: '(' }), 'x')).toThrow(InvalidPromptError);
    expect(() => validatePromptValue({ type: 'choice', message: 'Pick:', choices: [] }, 'a')).toThrow(/non-empty choices/);
    expect(() => validatePromptValue({ type: 'slider' as FlowPrompt['type'], message: 'x' }, 1)).toThrow(/not one of/);
  });
});
