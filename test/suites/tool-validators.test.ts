// The validators of the schemas a target sends (suites/support/tools.ts validatorFor): one per
// schema text, whatever object carries it (each case lists the tools anew), and independent of
// every other schema, even one with the same $id.
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../../suites/support/tools.js';

describe('validatorFor', () => {
  it('gives the same validator for the same schema in a new object, and judges with it', () => {
    const schema = () => ({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    const first = validatorFor(schema());
    expect(first).toBeDefined();
    expect(validatorFor(schema())).toBe(first);
    expect(validatorFor({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema() })).toBe(first);
    expect(first!({ text: 'x' })).toBe(true);
    expect(first!({ text: 1 })).toBe(false);
  });

  it('compiles two different schemas with the same $id, each as written', () => {
    const a = validatorFor({ $id: 'https://example.com/same', type: 'object', required: ['a'] });
    const b = validatorFor({ $id: 'https://example.com/same', type: 'object', required: ['b'] });
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(a!({ a: 1 })).toBe(true);
    expect(b!({ a: 1 })).toBe(false);
    expect(b!({ b: 1 })).toBe(true);
  });

  it('gives none for a schema that does not compile, or is not an object', () => {
    expect(validatorFor({ type: 'no-such-type' })).toBeUndefined();
    expect(validatorFor('object')).toBeUndefined();
  });
});
