// The registry's loading checks (typed errors naming the file), lookups and identify().
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SchemaBadAnnotationError,
  SchemaBadFileNameError,
  SchemaDuplicateIdError,
  SchemaError,
  SchemaExamplesInvalidError,
  SchemaIdMismatchError,
  SchemaInvalidError,
  SchemaInvalidJsonError,
  SchemaMissingAnnotationError,
  SchemaRegistry,
  SchemaRootMissingError,
  SchemaUnresolvedRefError,
  UnknownSchemaError,
} from '../../src/schema/index.js';

const PREFIX = 'https://mcp-flow-conformance.dev/schemas/';
const roots: string[] = [];

function fixture(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'schema-registry-'));
  roots.push(root);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function requestSchema(file: string, method: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: PREFIX + file,
    'x-mcp-flow': { family: file.split('/')[0], kind: 'request', method, direction: 'client-to-server' },
    type: 'object',
    required: ['jsonrpc', 'id', 'method'],
    properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] }, method: { const: method }, params: { type: 'object' } },
    ...extra,
  };
}

function resultSchema(file: string, method: string, result: object) {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: PREFIX + file,
    'x-mcp-flow': { family: file.split('/')[0], kind: 'result', method, direction: 'server-to-client' },
    type: 'object',
    required: ['jsonrpc', 'id', 'result'],
    properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] }, result },
  };
}

function loadError(files: Record<string, unknown>): SchemaError {
  try {
    SchemaRegistry.load({ root: fixture(files) });
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    return error as SchemaError;
  }
  throw new Error('expected SchemaRegistry.load to throw');
}

describe('SchemaRegistry.load', () => {
  it('loads schemas and their examples, and looks them up by $id and by path', () => {
    const root = fixture({
      'flow/a-b.request.schema.json': requestSchema('flow/a-b.request.schema.json', 'a.b'),
      'flow/a-b.request.examples.json': {
        valid: [{ description: 'minimal', instance: { jsonrpc: '2.0', id: 1, method: 'a.b' } }],
        invalid: [{ description: 'no id', instance: { jsonrpc: '2.0', method: 'a.b' }, keyword: 'required' }],
      },
    });
    const registry = SchemaRegistry.load({ root });
    expect(registry.schemas()).toHaveLength(1);
    const byId = registry.get(PREFIX + 'flow/a-b.request.schema.json');
    expect(registry.get('flow/a-b.request.schema.json')).toBe(byId);
    expect(registry.get('flow/a-b.request')).toBe(byId);
    expect(byId.meta).toEqual({ family: 'flow', kind: 'request', method: 'a.b', direction: 'client-to-server' });
    expect(registry.examples().map((e) => [e.valid, e.keyword])).toEqual([
      [true, undefined],
      [false, 'required'],
    ]);
    expect(registry.validate(byId.id, { jsonrpc: '2.0', id: 1, method: 'a.b' })).toEqual([]);
    const issues = registry.validate(byId.id, { jsonrpc: '2.0', id: 1.5, method: 'a.b' });
    expect(issues.map((i) => [i.instancePath, i.keyword])).toEqual([['/id', 'type']]);
  });

  it('throws UnknownSchemaError for an unknown id', () => {
    const registry = SchemaRegistry.load({ root: fixture({}) });
    expect(() => registry.get('flow/nope.request')).toThrow(UnknownSchemaError);
    expect(() => registry.validate('flow/nope.request', {})).toThrow(/flow\/nope\.request/);
  });

  it('throws SchemaRootMissingError for a missing root', () => {
    expect(() => SchemaRegistry.load({ root: join(tmpdir(), 'no-such-schemas-root-x9') })).toThrow(SchemaRootMissingError);
  });

  it('names the file that is not JSON', () => {
    const error = loadError({ 'flow/x.request.schema.json': '{"oops": ' });
    expect(error).toBeInstanceOf(SchemaInvalidJsonError);
    expect(error.file).toBe('flow/x.request.schema.json');
    expect(error.message).toContain('flow/x.request.schema.json');
  });

  it('rejects an $id that is not the one its path implies', () => {
    const error = loadError({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a'),
      'flow/b.request.schema.json': { ...requestSchema('flow/b.request.schema.json', 'b'), $id: PREFIX + 'flow/a.request.schema.json' },
    });
    expect(error).toBeInstanceOf(SchemaIdMismatchError);
    expect(error.file).toBe('flow/b.request.schema.json');
  });

  it('rejects a duplicate $id (an embedded resource claiming another file\'s $id)', () => {
    const error = loadError({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a'),
      'flow/b.request.schema.json': requestSchema('flow/b.request.schema.json', 'b', {
        $defs: { x: { $id: PREFIX + 'flow/a.request.schema.json', type: 'string' } },
      }),
    });
    expect(error).toBeInstanceOf(SchemaDuplicateIdError);
    expect(error.file).toBe('flow/b.request.schema.json');
    expect(error.message).toContain('flow/a.request.schema.json');
  });

  it('rejects a schema without the x-mcp-flow annotation', () => {
    const schema: Record<string, unknown> = requestSchema('flow/a.request.schema.json', 'a');
    delete schema['x-mcp-flow'];
    const error = loadError({ 'flow/a.request.schema.json': schema });
    expect(error).toBeInstanceOf(SchemaMissingAnnotationError);
    expect(error.file).toBe('flow/a.request.schema.json');
  });

  it('rejects an annotation that disagrees with the path', () => {
    const schema = requestSchema('flow/a.request.schema.json', 'a');
    schema['x-mcp-flow'] = { family: 'binding', kind: 'request', method: 'a' };
    expect(loadError({ 'flow/a.request.schema.json': schema })).toBeInstanceOf(SchemaBadAnnotationError);
    const noMethod = requestSchema('flow/a.request.schema.json', 'a');
    noMethod['x-mcp-flow'] = { family: 'flow', kind: 'request' };
    expect(loadError({ 'flow/a.request.schema.json': noMethod }).message).toMatch(/method/);
  });

  it('rejects a file name outside the convention', () => {
    expect(loadError({ 'other/a.request.schema.json': {} })).toBeInstanceOf(SchemaBadFileNameError);
    expect(loadError({ 'flow/a.thing.schema.json': {} })).toBeInstanceOf(SchemaBadFileNameError);
    expect(loadError({ 'core/latest/a.request.schema.json': {} })).toBeInstanceOf(SchemaBadFileNameError);
  });

  it('rejects a $ref that resolves to nothing, naming the file and the ref', () => {
    const error = loadError({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', {
        $defs: { x: { $ref: 'defs.definition.schema.json#/$defs/missing' } },
      }),
    });
    expect(error).toBeInstanceOf(SchemaUnresolvedRefError);
    expect(error.file).toBe('flow/a.request.schema.json');
    expect(error.message).toContain('defs.definition.schema.json#/$defs/missing');
  });

  it('rejects a $ref whose fragment has malformed percent-encoding, as a typed error', () => {
    const error = loadError({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', { $defs: { x: { $ref: '#/%E0%A4%A' } } }),
    });
    expect(error).toBeInstanceOf(SchemaUnresolvedRefError);
    expect(error.file).toBe('flow/a.request.schema.json');
    expect(error.message).toMatch(/%E0%A4%A.*percent-encoding/);
  });

  it('rejects an embedded $id that is not a URI reference, naming the file', () => {
    const error = loadError({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', { $defs: { x: { $id: 'http://[bad' } } }),
    });
    expect(error).toBeInstanceOf(SchemaInvalidError);
    expect(error.file).toBe('flow/a.request.schema.json');
    expect(error.message).toContain('http://[bad');
  });

  it('accepts a $ref into a sibling defs file and validates through it', () => {
    const root = fixture({
      'flow/defs.definition.schema.json': {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: PREFIX + 'flow/defs.definition.schema.json',
        'x-mcp-flow': { family: 'flow', kind: 'definition' },
        $defs: { sessionId: { type: 'string', minLength: 1 } },
      },
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', {
        properties: {
          jsonrpc: { const: '2.0' },
          id: { type: 'integer' },
          method: { const: 'a' },
          params: { type: 'object', properties: { sessionId: { $ref: 'defs.definition.schema.json#/$defs/sessionId' } } },
        },
      }),
    });
    const registry = SchemaRegistry.load({ root });
    const issues = registry.validate('flow/a.request', { jsonrpc: '2.0', id: 1, method: 'a', params: { sessionId: '' } });
    expect(issues.map((i) => [i.instancePath, i.keyword])).toEqual([['/params/sessionId', 'minLength']]);
  });

  it('rejects a schema that strict mode refuses, at compile time, naming the file', () => {
    const root = fixture({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', { minimumm: 3 }),
    });
    const registry = SchemaRegistry.load({ root });
    expect(() => registry.validate('flow/a.request', {})).toThrow(SchemaInvalidError);
    expect(() => registry.validate('flow/a.request', {})).toThrow(/flow\/a\.request\.schema\.json.*minimumm/);
  });

  it('rejects a schema the 2020-12 meta-schema refuses when it or a schema referencing it is first compiled, naming the file', () => {
    const root = fixture({
      'flow/defs.definition.schema.json': {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: PREFIX + 'flow/defs.definition.schema.json',
        'x-mcp-flow': { family: 'flow', kind: 'definition' },
        $defs: { sessionId: { type: 'strin' } },
      },
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', { properties: { id: { $ref: 'defs.definition.schema.json#/$defs/sessionId' } } }),
      'flow/b.request.schema.json': requestSchema('flow/b.request.schema.json', 'b'),
    });
    const registry = SchemaRegistry.load({ root });
    expect(registry.validate('flow/b.request', {})).not.toEqual([]);
    expect(() => registry.validate('flow/a.request', {})).toThrow(SchemaInvalidError);
    expect(() => registry.validate('flow/a.request', {})).toThrow(/flow\/defs\.definition\.schema\.json.*schema is invalid/);
    expect(() => registry.compileAll()).toThrow(/flow\/defs\.definition\.schema\.json/);
  });

  it('rejects an unknown keyword that ajv only notices when compiling, naming the file', () => {
    const root = fixture({
      'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a', { required: ['jsonrpc', 'nothere'] }),
    });
    const registry = SchemaRegistry.load({ root });
    expect(() => registry.compileAll()).toThrow(SchemaInvalidError);
    expect(() => registry.compileAll()).toThrow(/flow\/a\.request\.schema\.json/);
  });

  it('rejects malformed or orphan examples files', () => {
    const schema = requestSchema('flow/a.request.schema.json', 'a');
    expect(
      loadError({
        'flow/a.request.schema.json': schema,
        'flow/a.request.examples.json': { invalid: [{ description: 'no keyword', instance: {} }] },
      }),
    ).toBeInstanceOf(SchemaExamplesInvalidError);
    const orphan = loadError({ 'flow/a.request.schema.json': schema, 'flow/b.request.examples.json': { valid: [] } });
    expect(orphan).toBeInstanceOf(SchemaExamplesInvalidError);
    expect(orphan.file).toBe('flow/b.request.examples.json');
  });
});

describe('SchemaRegistry.find and identify', () => {
  const files = {
    'flow/a.request.schema.json': requestSchema('flow/a.request.schema.json', 'a'),
    'flow/b.request.schema.json': requestSchema('flow/b.request.schema.json', 'b'),
    'flow/a.result.schema.json': resultSchema('flow/a.result.schema.json', 'a', {
      type: 'object',
      required: ['x'],
      properties: { x: { type: 'string' } },
    }),
    'flow/b.result.schema.json': resultSchema('flow/b.result.schema.json', 'b', {
      type: 'object',
      required: ['y'],
      properties: { y: { type: 'number' } },
    }),
  };

  it('finds by family, kind and method', () => {
    const registry = SchemaRegistry.load({ root: fixture(files) });
    expect(registry.find({ kind: 'result' }).map((s) => s.file)).toEqual(['flow/a.result.schema.json', 'flow/b.result.schema.json']);
    expect(registry.find({ method: 'b', kind: 'request' }).map((s) => s.file)).toEqual(['flow/b.request.schema.json']);
    expect(registry.find({ family: 'core' })).toEqual([]);
  });

  it('identifies a request by its method and a response by the request method', () => {
    const registry = SchemaRegistry.load({ root: fixture(files) });
    const request = registry.identify({ jsonrpc: '2.0', id: 1, method: 'b' });
    expect(request.map((c) => [c.schema.file, c.issues.length])).toEqual([['flow/b.request.schema.json', 0]]);
    const response = registry.identify({ jsonrpc: '2.0', id: 1, result: { y: 2 } }, { requestMethod: 'a' });
    expect(response).toHaveLength(1);
    expect(response[0]?.issues.map((i) => i.keyword)).toContain('required');
  });

  it('ranks the matching result schema first when the request method is unknown', () => {
    const registry = SchemaRegistry.load({ root: fixture(files) });
    const ranked = registry.identify({ jsonrpc: '2.0', id: 1, result: { y: 2 } });
    expect(ranked.map((c) => c.schema.file)).toEqual(['flow/b.result.schema.json', 'flow/a.result.schema.json']);
    expect(ranked[0]?.issues).toEqual([]);
    expect(ranked[1]?.issues.length).toBeGreaterThan(0);
  });

  it('returns no candidates for a method no schema describes', () => {
    const registry = SchemaRegistry.load({ root: fixture(files) });
    expect(registry.identify({ jsonrpc: '2.0', id: 1, method: 'zzz' })).toEqual([]);
    expect(registry.identify({ jsonrpc: '2.0', id: 1, method: 'a' }, { families: ['core'] })).toEqual([]);
  });
});

describe('the shape the documents require and the members they name', () => {
  const closed = requestSchema('flow/c.request.schema.json', 'c', {
    additionalProperties: false,
    properties: {
      jsonrpc: { const: '2.0' },
      id: { type: 'integer' },
      method: { const: 'c' },
      params: {
        type: 'object',
        required: ['sessionId'],
        additionalProperties: false,
        properties: { sessionId: { type: 'string' }, tags: { type: 'object', additionalProperties: { type: 'string' } } },
      },
    },
  });

  it('an extra member is no issue, only an extra member; a map value schema (additionalProperties: {...}) stays shape', () => {
    const registry = SchemaRegistry.load({ root: fixture({ 'flow/c.request.schema.json': closed }) });
    const message = { jsonrpc: '2.0', id: 1, method: 'c', params: { sessionId: 's', 'x/y': 1, tags: { a: 'b' } }, vendor: {} };
    expect(registry.validate('flow/c.request', message)).toEqual([]);
    expect(registry.extraMembers('flow/c.request', message)).toEqual([
      { pointer: '/params/x~1y', member: 'x/y' },
      { pointer: '/vendor', member: 'vendor' },
    ]);
    expect(registry.validate('flow/c.request', { ...message, params: { sessionId: 's', tags: { a: 1 } } }).map((i) => [i.instancePath, i.keyword])).toEqual([
      ['/params/tags/a', 'type'],
    ]);
    // A missing required member is still an issue, extra members or not.
    expect(registry.validate('flow/c.request', { ...message, params: { other: 1 } }).map((i) => [i.instancePath, i.keyword])).toEqual([['/params', 'required']]);
    const [candidate] = registry.identify(message);
    expect(candidate?.issues).toEqual([]);
    expect(candidate?.extraMembers.map((m) => m.pointer)).toEqual(['/params/x~1y', '/vendor']);
  });

  it('a valid example lists exactly its extra members; an extra member never makes an example invalid', () => {
    const instance = { jsonrpc: '2.0', id: 1, method: 'c', params: { sessionId: 's', hint: 'h' } };
    const registry = SchemaRegistry.load({
      root: fixture({
        'flow/c.request.schema.json': closed,
        'flow/c.request.examples.json': {
          valid: [
            { description: 'listed', instance, extraMembers: ['/params/hint'] },
            { description: 'not listed', instance },
          ],
        },
      }),
    });
    expect(registry.examples().map((e) => registry.exampleProblem(e))).toEqual([undefined, 'valid example has extra members [/params/hint], its file lists []']);
    const misuse = loadError({
      'flow/c.request.schema.json': closed,
      'flow/c.request.examples.json': { invalid: [{ description: 'extra', instance, keyword: 'additionalProperties' }] },
    });
    expect(misuse).toBeInstanceOf(SchemaExamplesInvalidError);
    expect(misuse.message).toMatch(/extra member never makes a message invalid/);
  });

  it('identify takes the direction: a message is judged only by schemas for its direction', () => {
    const registry = SchemaRegistry.load({ root: fixture({ 'flow/c.request.schema.json': closed }) });
    const message = { jsonrpc: '2.0', id: 1, method: 'c', params: { sessionId: 's' } };
    expect(registry.identify(message, { direction: 'client-to-server' })).toHaveLength(1);
    expect(registry.identify(message, { direction: 'server-to-client' })).toEqual([]);
  });

  it('a schema checks its own requirements and those of the schemas it references', () => {
    const registry = SchemaRegistry.load({
      root: fixture({
        'flow/defs.definition.schema.json': {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: PREFIX + 'flow/defs.definition.schema.json',
          'x-mcp-flow': { family: 'flow', kind: 'definition', requirements: ['FLOW-SM-1'] },
          $defs: { state: { enum: ['idle'] } },
        },
        'flow/d.request.schema.json': requestSchema('flow/d.request.schema.json', 'd', {
          'x-mcp-flow': { family: 'flow', kind: 'request', method: 'd', direction: 'client-to-server', requirements: ['FLOW-START-1'] },
          properties: { jsonrpc: { const: '2.0' }, id: { type: 'integer' }, method: { const: 'd' }, params: { $ref: 'defs.definition.schema.json#/$defs/state' } },
        }),
      }),
    });
    expect(registry.requirementsOf('flow/d.request')).toEqual(['FLOW-START-1', 'FLOW-SM-1']);
  });
});
