// Every example beside every schema under schemas/ (all families) gets the verdict it declares;
// an invalid example is rejected by the keyword it names (at the instancePath it names, if any), a
// valid one carries exactly the extra members (members the documents do not name) it lists.
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';

const registry = SchemaRegistry.load();
const examples = registry.examples();

describe('schemas/ as loaded by the registry', () => {
  it('compiles every schema under ajv strict mode', () => {
    expect(() => registry.compileAll()).not.toThrow();
  });

  it('has examples for every message and payload schema, both valid and invalid', () => {
    const missing = registry
      .schemas()
      .filter((s) => s.meta.kind !== 'definition')
      .filter((s) => {
        const mine = examples.filter((e) => e.schemaId === s.id);
        return !mine.some((e) => e.valid) || !mine.some((e) => !e.valid);
      })
      .map((s) => s.file);
    expect(missing).toEqual([]);
  });
});

describe.each(registry.schemas().filter((s) => examples.some((e) => e.schemaId === s.id)).map((s) => [s.file, s] as const))(
  '%s',
  (_file, schema) => {
    const mine = examples.filter((e) => e.schemaId === schema.id);
    it.each(mine.filter((e) => e.valid).map((e) => [e.description, e] as const))('accepts: %s', (_d, example) => {
      expect(registry.validate(schema.id, example.instance)).toEqual([]);
      expect(registry.extraMembers(schema.id, example.instance).map((m) => m.pointer)).toEqual(example.extraMembers ?? []);
      expect(registry.exampleProblem(example)).toBeUndefined();
    });
    it.each(mine.filter((e) => !e.valid).map((e) => [e.description, e] as const))('rejects: %s', (_d, example) => {
      const issues = registry.validate(schema.id, example.instance);
      expect(issues.length).toBeGreaterThan(0);
      const matching = issues.filter(
        (i) => i.keyword === example.keyword && (example.instancePath === undefined || i.instancePath === example.instancePath),
      );
      expect(matching, JSON.stringify(issues.map((i) => `${i.instancePath} ${i.keyword}`))).not.toEqual([]);
      expect(registry.exampleProblem(example)).toBeUndefined();
    });
  },
);
