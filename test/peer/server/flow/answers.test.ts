// What validateAnswer adds to src/protocol/prompt-validation.ts: date bounds, `multiple` choices
// and file answers.
import { describe, expect, it } from 'vitest';
import { validateAnswer, type EnginePrompt } from '../../../../src/peer/server/flow/index.js';

const valid = (prompt: EnginePrompt, value: unknown): boolean => validateAnswer(prompt, value).valid;

describe('validateAnswer', () => {
  it('bounds dates by validation.min and .max, inclusive', () => {
    const prompt: EnginePrompt = { type: 'date', message: 'd', validation: { min: '2024-01-01', max: '2024-12-31' } };
    expect(valid(prompt, '2024-01-01')).toBe(true);
    expect(valid(prompt, '2024-12-31')).toBe(true);
    expect(validateAnswer(prompt, '2023-12-31')).toMatchObject({ valid: false, suggestion: 'Use a date on or after 2024-01-01' });
    expect(validateAnswer(prompt, '2025-01-01')).toMatchObject({ valid: false, suggestion: 'Use a date on or before 2024-12-31' });
    expect(validateAnswer(prompt, '2024-02-30')).toMatchObject({ valid: false, suggestion: 'Use YYYY-MM-DD' });
  });

  it('takes an array of distinct choice values for a multiple choice prompt', () => {
    const prompt: EnginePrompt = {
      type: 'choice',
      message: 'pick',
      multiple: true,
      choices: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }],
      validation: { required: true },
    };
    expect(valid(prompt, ['a', 'b'])).toBe(true);
    expect(valid(prompt, ['a'])).toBe(true);
    expect(valid(prompt, [])).toBe(false);
    expect(valid(prompt, 'a')).toBe(false);
    expect(valid(prompt, ['a', 'a'])).toBe(false);
    expect(valid(prompt, ['a', 'c'])).toBe(false);
    expect(valid({ ...prompt, validation: {} }, [])).toBe(true);
  });

  it('checks file answers: name, accepted types and size (given or from the base64 content)', () => {
    const prompt: EnginePrompt = { type: 'file', message: 'f', validation: { required: true, accept: ['.csv', 'image/*'], maxSize: 4 } };
    expect(valid(prompt, { name: 'a.CSV', size: 4 })).toBe(true);
    expect(valid(prompt, { name: 'photo', mimeType: 'image/jpeg' })).toBe(true);
    expect(valid(prompt, { name: 'notes.txt', mimeType: 'text/plain' })).toBe(false);
    expect(valid(prompt, { name: 'a.csv', size: 5 })).toBe(false);
    expect(valid(prompt, { name: 'a.csv', content: Buffer.from('12345').toString('base64') })).toBe(false);
    expect(valid(prompt, { name: 'a.csv', content: Buffer.from('1234').toString('base64') })).toBe(true);
    expect(valid(prompt, { name: '' })).toBe(false);
    expect(valid(prompt, { name: 'a.csv', size: -1 })).toBe(false);
    expect(valid(prompt, 'a.csv')).toBe(false);
    expect(valid(prompt, null)).toBe(false);
    expect(valid({ ...prompt, multiple: true }, [{ name: 'a.csv' }, { name: 'b.png', mimeType: 'image/png' }])).toBe(true);
    expect(valid({ ...prompt, multiple: true }, [{ name: 'a.csv' }, { name: 'b.txt' }])).toBe(false);
    expect(valid({ ...prompt, multiple: true }, [])).toBe(false);
  });
});
