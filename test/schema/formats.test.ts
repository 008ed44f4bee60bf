// A `format` keyword FAILs only where a document states the format (docs/profile.md §2, rule 4):
// every format in schemas/ sits where the official MCP schema of the same version states the same
// format for the same member, and the profile's own families (flow, binding, fastworkflow), whose
// seeds state none, have no format keyword at all. Skips the core check, naming the folder, where
// the reference files are absent.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';

const REFERENCE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'reference', 'mcp-schema');
const registry = SchemaRegistry.load();

/** Keywords whose values are data or names, not subschemas. */
const DATA = new Set(['const', 'enum', 'examples', 'default', 'x-mcp-flow', 'description', 'title']);

/** Every `format` in a schema: the JSON Pointer of the subschema that carries it, and the format. */
function formats(node: unknown, pointer = ''): { pointer: string; format: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => formats(item, `${pointer}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const out: { pointer: string; format: string }[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'format' && typeof value === 'string') out.push({ pointer, format: value });
    else if (!DATA.has(key)) out.push(...formats(value, `${pointer}/${key}`));
  }
  return out;
}

/** Our definition names that the official schema of early versions spells differently. */
const OFFICIAL_NAME: Record<string, string> = { ResourceTemplateReference: 'ResourceReference' };

describe('format keywords', () => {
  it('appear only in the core family (the seeds state no format)', () => {
    const found = registry
      .schemas()
      .filter((s) => s.meta.family !== 'core')
      .flatMap((s) => formats(s.schema).map((f) => `${s.file}#${f.pointer}: ${f.format}`));
    expect(found).toEqual([]);
  });

  const versions = [...new Set(registry.schemas().map((s) => s.meta.protocolVersion).filter((v): v is string => v !== undefined))];
  describe.each(versions)('core %s', (version) => {
    const file = join(REFERENCE_DIR, version, 'schema.json');
    it.skipIf(!existsSync(file))(`sit where the official schema states the same format (needs ${file})`, () => {
      const official = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const defsKey = '$defs' in official ? '$defs' : 'definitions';
      const stated = new Set(formats(official[defsKey]).map((f) => `${f.pointer}: ${f.format}`));
      const unstated: string[] = [];
      for (const schema of registry.schemas().filter((s) => s.meta.protocolVersion === version)) {
        for (const { pointer, format } of formats(schema.schema)) {
          const candidates: string[] = [];
          const def = /^\/\$defs\/([^/]+)(\/.*)$/.exec(pointer);
          if (def) candidates.push(`/${OFFICIAL_NAME[def[1]!] ?? def[1]}${def[2]}`, `/${def[1]}${def[2]}`);
          else if (schema.meta.official !== undefined) {
            candidates.push(`/${schema.meta.official}${pointer}`);
            const params = /^\/properties\/params(\/.*)$/.exec(pointer);
            if (params) candidates.push(`/${schema.meta.official}Params${params[1]}`);
          }
          if (!candidates.some((c) => stated.has(`${c}: ${format}`))) unstated.push(`${schema.file}#${pointer}: ${format}`);
        }
      }
      expect(unstated).toEqual([]);
    });
  });
});
