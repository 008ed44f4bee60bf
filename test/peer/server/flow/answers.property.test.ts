// fast-check: for each prompt type, generated answers sent through interaction.respond are
// accepted exactly when an independent oracle of the prompt's rules says they are valid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWizard } from '../../../../src/peer/server/flow/index.js';
import { testServer } from './harness.js';
import { propertyRuns } from '../../../support/property-runs.js';

type Rules = { required?: boolean; pattern?: string; min?: number | string; max?: number | string; accept?: string[]; maxSize?: number };
type Prompt = { type: string; message: string; choices?: { value: string | number | boolean; label: string }[]; validation?: Rules };

const missing = (v: unknown): boolean => v === undefined || v === null || v === '';

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo);
}

/** The oracle: what 000 Appendix A and the profile (C-31) say about a value. */
function expected(prompt: Prompt, value: unknown): boolean {
  const r = prompt.validation ?? {};
  if (missing(value)) return r.required !== true;
  switch (prompt.type) {
    case 'text': {
      if (typeof value !== 'string') return false;
      const length = [...value].length;
      if (r.pattern !== undefined && !new RegExp(r.pattern, 'u').test(value)) return false;
      return (r.min === undefined || length >= (r.min as number)) && (r.max === undefined || length <= (r.max as number));
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && (r.min === undefined || value >= (r.min as number)) && (r.max === undefined || value <= (r.max as number));
    case 'choice':
      return (prompt.choices ?? []).some((c) => c.value === value);
    case 'confirm':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && isDate(value) && (r.min === undefined || value >= (r.min as string)) && (r.max === undefined || value <= (r.max as string));
    case 'file': {
      if (typeof value !== 'object' || Array.isArray(value)) return false;
      const f = value as { name?: unknown; mimeType?: unknown; size?: unknown };
      if (typeof f.name !== 'string' || f.name === '') return false;
      if (f.mimeType !== undefined && typeof f.mimeType !== 'string') return false;
      if (f.size !== undefined && !(Number.isSafeInteger(f.size) && (f.size as number) >= 0)) return false;
      if (r.accept !== undefined && r.accept.length > 0) {
        const ok = r.accept.some((a) =>
          a.startsWith('.')
            ? (f.name as string).toLowerCase().endsWith(a)
            : typeof f.mimeType === 'string' && (a.endsWith('/*') ? f.mimeType.startsWith(a.slice(0, -1)) : f.mimeType === a),
        );
        if (!ok) return false;
      }
      return r.maxSize === undefined || f.size === undefined || (f.size as number) <= r.maxSize;
    }
    default:
      return true; // custom: any value (FLOW-PROMPT-9)
  }
}

const anything = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(''), fc.array(fc.integer(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
const required = fc.option(fc.boolean(), { nil: undefined });

function bounds(lo: fc.Arbitrary<number>): fc.Arbitrary<{ min?: number; max?: number }> {
  return fc.record({ min: fc.option(lo, { nil: undefined }), max: fc.option(lo, { nil: undefined }) }).map(({ min, max }) =>
    min !== undefined && max !== undefined && min > max ? { min: max, max: min } : { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) },
  );
}

function rules(extra: fc.Arbitrary<Rules>): fc.Arbitrary<Rules> {
  return fc.tuple(required, extra).map(([req, rest]) => ({ ...(req === undefined ? {} : { required: req }), ...rest }));
}

// Years from 100: isCalendarDate in src/protocol/prompt-validation.ts reads years 0000-0099 as 19xx (reported).
const dateString = fc.date({ min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const dateLike = fc
  .tuple(fc.integer({ min: 100, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);

const scalar = fc.oneof(fc.string({ minLength: 1, maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean());

const CASES: Record<string, fc.Arbitrary<{ prompt: Prompt; value: unknown }>> = {
  text: fc
    .record({
      validation: rules(
        fc.tuple(bounds(fc.integer({ min: 0, max: 6 })), fc.option(fc.constantFrom('^[a-z]+$', '\\d', '^.{2}$', 'é'), { nil: undefined })).map(([b, pattern]) => ({
          ...b,
          ...(pattern === undefined ? {} : { pattern }),
        })),
      ),
      value: fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 }), fc.stringMatching(/^[a-z]{0,7}$/), anything),
    })
    .map(({ validation, value }) => ({ prompt: { type: 'text', message: 't', validation }, value })),
  number: fc
    .record({
      validation: rules(bounds(fc.integer({ min: -100, max: 100 }))),
      value: fc.oneof(fc.integer({ min: -150, max: 150 }), fc.double(), fc.constantFrom(Number.NaN, Infinity, '42'), anything),
    })
    .map(({ validation, value }) => ({ prompt: { type: 'number', message: 'n', validation }, value })),
  choice: fc
    .record({ values: fc.uniqueArray(scalar, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }), req: required, pick: fc.nat(), other: fc.oneof(scalar, anything), useChoice: fc.boolean() })
    .filter(({ values }) => !values.includes(''))
    .map(({ values, req, pick, other, useChoice }) => ({
      prompt: { type: 'choice', message: 'c', choices: values.map((v) => ({ value: v, label: String(v) || 'x' })), validation: req === undefined ? {} : { required: req } },
      value: useChoice ? values[pick % values.length] : other,
    })),
  confirm: fc
    .record({ req: required, value: fc.oneof(fc.boolean(), anything) })
    .map(({ req, value }) => ({ prompt: { type: 'confirm', message: 'ok?', validation: req === undefined ? {} : { required: req } }, value })),
  date: fc
    .record({ validation: rules(fc.record({ min: fc.option(dateString, { nil: undefined }), max: fc.option(dateString, { nil: undefined }) })), value: fc.oneof(dateString, dateLike, anything) })
    .map(({ validation, value }) => {
      const v = { ...validation };
      for (const k of ['min', 'max'] as const) if (v[k] === undefined) delete v[k];
      if (v.min !== undefined && v.max !== undefined && v.min > v.max) [v.min, v.max] = [v.max, v.min];
      return { prompt: { type: 'date', message: 'd', validation: v }, value };
    }),
  file: fc
    .record({
      validation: rules(
        fc.record(
          { accept: fc.subarray(['.csv', '.png', 'image/*', 'text/plain'], { minLength: 1 }), maxSize: fc.integer({ min: 0, max: 100 }) },
          { requiredKeys: [] },
        ),
      ),
      value: fc.oneof(
        fc.record(
          { name: fc.constantFrom('a.csv', 'b.PNG', 'c.txt', ''), mimeType: fc.constantFrom('text/csv', 'image/png', 'text/plain'), size: fc.oneof(fc.integer({ min: -1, max: 150 }), fc.constant(1.5)) },
          { requiredKeys: ['name'] },
        ),
        anything,
      ),
    })
    .map(({ validation, value }) => ({ prompt: { type: 'file', message: 'f', validation }, value })),
  custom: fc
    .record({ req: required, value: anything })
    .map(({ req, value }) => ({ prompt: { type: 'custom', message: 'x', validation: req === undefined ? {} : { required: req } }, value })),
};

describe('answers through interaction.respond (fast-check)', () => {
  it.each(Object.keys(CASES))('%s: accepted iff valid per the prompt rules', async (type) => {
    await fc.assert(
      fc.asyncProperty(CASES[type] as fc.Arbitrary<{ prompt: Prompt; value: unknown }>, async ({ prompt, value }) => {
        const wizard = parseWizard({ name: 'p', description: 'one prompt', initialPrompt: true, steps: [{ id: 'v', prompt }], result: { data: {} } });
        const server = testServer({ wizards: [wizard] });
        const conn = server.connect({ checkSchemas: false });
        const { sessionId } = await conn.call('interaction.start', { toolName: 'p' });
        const result = await conn.call('interaction.respond', { sessionId, response: { value } });
        expect(result.accepted).toBe(expected(prompt, value));
        await server.settle();
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
