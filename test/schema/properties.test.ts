// Properties of the registry over the real schemas/: any JSON value gets a verdict (never a throw),
// and breaking the JSON-RPC envelope of any valid flow/binding example makes it invalid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';
import { propertyRuns } from '../support/property-runs.js';

const registry = SchemaRegistry.load();
const profileFamilies = ['flow', 'binding'];
const messageExamples = registry
  .examples()
  .filter((e) => e.valid)
  .map((e) => ({ example: e, schema: registry.get(e.schemaId) }))
  .filter(({ schema }) => profileFamilies.includes(schema.meta.family) && ['request', 'result', 'notification', 'error'].includes(schema.meta.kind));

describe('registry properties', () => {
  it('identifies any JSON value without throwing, valid candidates first', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const candidates = registry.identify(value, { families: ['flow', 'binding', 'fastworkflow'] });
        const firstInvalid = candidates.findIndex((c) => c.issues.length > 0);
        if (firstInvalid >= 0) expect(candidates.slice(firstInvalid).every((c) => c.issues.length > 0)).toBe(true);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('identifies any message with a flow method by that method only', () => {
    const methods = registry.find({ family: 'flow', kind: 'request' }).map((s) => s.meta.method as string);
    fc.assert(
      fc.property(fc.constantFrom(...methods), fc.option(fc.integer({ min: 0, max: 2 ** 32 - 1 })), fc.jsonValue(), (method, id, params) => {
        const message = id === null ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params };
        for (const candidate of registry.identify(message, { families: ['flow'] })) expect(candidate.schema.meta.method).toBe(method);
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it.each(messageExamples.map(({ example, schema }) => [`${schema.file}: ${example.description}`, example.instance] as const))(
    'rejects a wrong jsonrpc version or a missing envelope member: %s',
    (name, instance) => {
      const id = messageExamples.find(({ example, schema }) => `${schema.file}: ${example.description}` === name)!.schema.id;
      const message = instance as Record<string, unknown>;
      expect(registry.validate(id, { ...message, jsonrpc: '1.0' }).map((i) => [i.instancePath, i.keyword])).toContainEqual(['/jsonrpc', 'const']);
      const member = 'method' in message ? 'method' : 'result' in message ? 'result' : 'error';
      const { [member]: _dropped, ...rest } = message;
      expect(registry.validate(id, rest).map((i) => i.keyword)).toContain('required');
    },
  );
});
