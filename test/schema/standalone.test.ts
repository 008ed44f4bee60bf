// The schemas' validators compiled at build time (src/schema/standalone.ts) judge exactly as the
// validators ajv compiles at run time, and are used only for the schemas they were compiled from.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/registry.js';
import { ensureDist, ROOT } from '../support/build.js';

describe('standalone schema validators', () => {
  let built: SchemaRegistry;
  let compiled: SchemaRegistry;
  const copies: string[] = [];

  beforeAll(() => {
    // npm ci builds them (the prepare script); after a change to the sources they are built here.
    ensureDist();
    built = SchemaRegistry.load();
    compiled = SchemaRegistry.load({ standalone: false });
  }, 240_000);
  afterAll(() => {
    for (const copy of copies) rmSync(copy, { recursive: true, force: true });
  });

  it('the package registry uses them once dist/ is built; standalone: false compiles instead', () => {
    expect(built.usesStandalone).toBe(true);
    expect(compiled.usesStandalone).toBe(false);
  });

  it('give every example the issues and the extra members ajv gives, under both readings of each schema', () => {
    const examples = built.examples();
    expect(examples.length).toBeGreaterThan(1000);
    for (const example of examples) {
      const where = `${example.file}: ${example.description}`;
      expect(built.validate(example.schemaId, example.instance), where).toEqual(compiled.validate(example.schemaId, example.instance));
      expect(built.extraMembers(example.schemaId, example.instance), where).toEqual(compiled.extraMembers(example.schemaId, example.instance));
    }
    // Instances no example is: each schema against the wrong kinds of value.
    for (const loaded of built.schemas()) {
      for (const instance of [null, 1, 'text', [], {}, { jsonrpc: '2.0', id: 1, extra: true }]) {
        expect(built.validate(loaded.id, instance), loaded.file).toEqual(compiled.validate(loaded.id, instance));
        expect(built.extraMembers(loaded.id, instance), loaded.file).toEqual(compiled.extraMembers(loaded.id, instance));
      }
    }
  });

  it('are not used for other schemas: a copy of the folder with one schema changed is compiled', () => {
    const copy = mkdtempSync(join(tmpdir(), 'mcp-flow-schemas-'));
    copies.push(copy);
    cpSync(join(ROOT, 'schemas'), copy, { recursive: true });
    expect(SchemaRegistry.load({ root: copy }).usesStandalone).toBe(true);
    const file = join(copy, built.schemas()[0]!.file);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...schema, description: `${String(schema['description'] ?? '')} (changed)` }));
    expect(SchemaRegistry.load({ root: copy }).usesStandalone).toBe(false);
  });
});
