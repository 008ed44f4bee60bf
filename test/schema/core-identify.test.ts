// The registry can tell core messages apart: every valid core example is identified, under its
// protocol version, as valid for its own schema (requests and notifications by method, responses by
// the method of the request they answer), and no invalid example is accepted by its own schema there.
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';

const registry = SchemaRegistry.load();
const coreExamples = registry.examples().filter((e) => registry.get(e.schemaId).meta.family === 'core');

describe('identify() on core examples', () => {
  it.each(coreExamples.map((e) => [`${e.file}: ${e.valid ? 'valid' : 'invalid'}: ${e.description}`, e] as const))('%s', (_name, example) => {
    const schema = registry.get(example.schemaId);
    const candidates = registry.identify(example.instance, {
      families: ['core'],
      protocolVersion: schema.meta.protocolVersion,
      ...(schema.meta.kind === 'result' ? { requestMethod: schema.meta.method } : {}),
    });
    const own = candidates.find((c) => c.schema.id === schema.id);
    if (example.valid) {
      expect(own, `${schema.file} is not among the candidates`).toBeDefined();
      expect(own!.issues).toEqual([]);
      // Best candidate first: the first one matches too (it may be another schema that also fits,
      // e.g. the generic error response for a URL-elicitation error).
      expect(candidates[0]!.issues).toEqual([]);
    } else if (own) {
      expect(own.issues).not.toEqual([]);
    }
  });
});
