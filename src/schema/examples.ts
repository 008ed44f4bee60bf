// The examples file beside a schema (`<slug>.<kind>.examples.json`, docs/architecture.md
// "Schemas"): valid examples listing the members the documents do not name, invalid ones naming
// the ajv keyword that rejects them.
import { SchemaExamplesInvalidError } from './errors.js';
import { EXTRA_MEMBER_KEYWORDS, type SchemaExample } from './model.js';
import { isRecord } from '../wire/index.js';

/** The examples of the schema `schemaId`, read from `raw` (the parsed examples file `file`); throws SchemaExamplesInvalidError. */
export function parseExamples(file: string, raw: unknown, schemaId: string): SchemaExample[] {
  if (!isRecord(raw)) throw new SchemaExamplesInvalidError(file, 'must be an object {"valid": [...], "invalid": [...]}');
  for (const key of Object.keys(raw)) {
    if (key !== 'valid' && key !== 'invalid') throw new SchemaExamplesInvalidError(file, `unknown property ${JSON.stringify(key)}`);
  }
  const out: SchemaExample[] = [];
  for (const verdict of ['valid', 'invalid'] as const) {
    const list = raw[verdict] ?? [];
    if (!Array.isArray(list)) throw new SchemaExamplesInvalidError(file, `"${verdict}" must be an array`);
    list.forEach((entry: unknown, index) => {
      const where = `${verdict}[${index}]`;
      if (!isRecord(entry)) throw new SchemaExamplesInvalidError(file, `${where} must be an object`);
      if (typeof entry.description !== 'string' || entry.description === '') {
        throw new SchemaExamplesInvalidError(file, `${where} needs a non-empty "description"`);
      }
      if (!('instance' in entry)) throw new SchemaExamplesInvalidError(file, `${where} needs an "instance"`);
      for (const key of Object.keys(entry)) {
        if (!['description', 'instance', 'keyword', 'instancePath', 'extraMembers'].includes(key)) {
          throw new SchemaExamplesInvalidError(file, `${where} has unknown property ${JSON.stringify(key)}`);
        }
      }
      const example: SchemaExample = { schemaId, file, valid: verdict === 'valid', description: entry.description, instance: entry.instance };
      if (verdict === 'invalid') {
        if (typeof entry.keyword !== 'string' || entry.keyword === '') {
          throw new SchemaExamplesInvalidError(file, `${where} must name the ajv "keyword" that rejects it`);
        }
        if (EXTRA_MEMBER_KEYWORDS.has(entry.keyword)) {
          throw new SchemaExamplesInvalidError(file, `${where}: an extra member never makes a message invalid; make it a valid example listing the member in "extraMembers"`);
        }
        example.keyword = entry.keyword;
        if (entry.instancePath !== undefined) {
          if (typeof entry.instancePath !== 'string') throw new SchemaExamplesInvalidError(file, `${where}.instancePath must be a string`);
          example.instancePath = entry.instancePath;
        }
        if (entry.extraMembers !== undefined) throw new SchemaExamplesInvalidError(file, `${where} is invalid, so it cannot list extraMembers`);
      } else {
        if (entry.keyword !== undefined || entry.instancePath !== undefined) {
          throw new SchemaExamplesInvalidError(file, `${where} is valid, so it cannot name a keyword or instancePath`);
        }
        if (entry.extraMembers !== undefined) {
          if (!Array.isArray(entry.extraMembers) || entry.extraMembers.length === 0 || !entry.extraMembers.every((p) => typeof p === 'string' && p.startsWith('/'))) {
            throw new SchemaExamplesInvalidError(file, `${where}.extraMembers must be a non-empty array of JSON Pointers`);
          }
          example.extraMembers = [...(entry.extraMembers as string[])].sort();
        }
      }
      out.push(example);
    });
  }
  return out;
}
