// Cross-checks schemas/core against the official MCP JSON Schemas (../shared/reference): every core
// example, and systematic mutations of every valid example, get the same verdict from our schema and
// from the official definition it names; and every message the official schema defines has a
// schema of ours. Skips, naming the missing folder, where the reference files are absent.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry, type LoadedSchema } from '../../src/schema/index.js';
import { propertyRuns } from '../support/property-runs.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REFERENCE_DIR = resolve(REPO_ROOT, '..', 'shared', 'reference', 'mcp-schema');
const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
type Version = (typeof VERSIONS)[number];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type ValidateFn = ((data: unknown) => boolean) & { errors?: unknown };

/** The official schema of one version, compiled with the dialect it declares. */
class OfficialSchema {
  readonly defs: Record<string, { properties?: { method?: { const?: string } }; anyOf?: Array<{ $ref?: string }> }>;
  readonly #ajv: Ajv | Ajv2020;
  readonly #id: string;
  readonly #defsKey: string;
  readonly #cache = new Map<string, ValidateFn>();

  constructor(readonly version: Version) {
    const raw = JSON.parse(readFileSync(join(REFERENCE_DIR, version, 'schema.json'), 'utf8')) as Record<string, unknown>;
    const is2020 = '$defs' in raw;
    this.#defsKey = is2020 ? '$defs' : 'definitions';
    this.defs = raw[this.#defsKey] as OfficialSchema['defs'];
    patchNumberSchemaQuirk(this.defs);
    // strict: false: the official files use keywords (e.g. format "byte" descriptions) our strict mode would refuse.
    this.#ajv = is2020 ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
    formatsModule.default(this.#ajv);
    this.#id = `https://official.invalid/mcp/${version}/schema.json`;
    this.#ajv.addSchema({ ...raw, $id: this.#id });
  }

  ref(name: string): object {
    return { $ref: `${this.#id}#/${this.#defsKey}/${name}` };
  }

  /** The official definition wrapped so the JSON-RPC envelope is checked as well. */
  validator(kind: string, name: string): ValidateFn {
    const key = `${kind}:${name}`;
    let fn = this.#cache.get(key);
    if (!fn) {
      const wrapped =
        kind === 'request'
          ? { allOf: [this.ref('JSONRPCRequest'), this.ref(name)] }
          : kind === 'notification'
            ? { allOf: [this.ref('JSONRPCNotification'), this.ref(name)] }
            : kind === 'result'
              ? { allOf: [this.ref(this.defs.JSONRPCResultResponse ? 'JSONRPCResultResponse' : 'JSONRPCResponse'), { type: 'object', properties: { result: this.ref(name) } }] }
              : this.ref(name); // error definitions are whole responses already
      fn = this.#ajv.compile(wrapped) as ValidateFn;
      this.#cache.set(key, fn);
    }
    return fn;
  }

  /** Definition names listed by one of the official union definitions (ClientRequest, ServerResult...). */
  members(union: string): string[] {
    return (this.defs[union]?.anyOf ?? []).map((branch) => (branch.$ref ?? '').split('/').pop() ?? '').filter((name) => name !== '');
  }
}

/**
 * The published files were generated with integer as the default number type, so NumberSchema's
 * minimum/maximum can come out typed integer (see ../shared/reference/README.md); they are numbers.
 */
function patchNumberSchemaQuirk(defs: Record<string, unknown>): void {
  const numberSchema = defs.NumberSchema as { properties?: Record<string, { type?: string }> } | undefined;
  for (const key of ['minimum', 'maximum', 'default']) {
    const prop = numberSchema?.properties?.[key];
    if (prop && prop.type === 'integer') prop.type = 'number';
  }
}

/** Systematic single-point mutations of a JSON value: drop a member, add one, replace any node. */
function* mutations(value: Json, path: Array<string | number> = []): Generator<{ path: Array<string | number>; op: 'delete' | 'set'; to?: Json }> {
  if (value !== null && typeof value === 'object') {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        yield { path: [...path, i], op: 'delete' };
        yield* mutations(value[i] as Json, [...path, i]);
      }
    } else {
      yield { path: [...path, 'x-extra-member'], op: 'set', to: 'extra' };
      for (const key of Object.keys(value)) {
        yield { path: [...path, key], op: 'delete' };
        yield* mutations(value[key] as Json, [...path, key]);
      }
    }
  }
  for (const to of REPLACEMENTS) yield { path, op: 'set', to };
}
const REPLACEMENTS: Json[] = [null, true, 0, -1, 1.5, 7, '', 'x', 'file:///tmp/a.txt', 'not a uri', 'QUJD', {}, [], ['x'], [{}]];

function applyMutation(value: Json, mutation: { path: Array<string | number>; op: 'delete' | 'set'; to?: Json }): Json {
  if (mutation.path.length === 0) return mutation.op === 'set' ? (mutation.to as Json) : value;
  const copy = structuredClone(value) as Record<string | number, Json>;
  let parent: Record<string | number, Json> = copy;
  for (const step of mutation.path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  const last = mutation.path[mutation.path.length - 1] as string | number;
  if (mutation.op === 'set') parent[last] = mutation.to as Json;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

/** Every path to a node of a JSON value (the root is []). */
function nodePaths(value: Json, path: Array<string | number> = []): Array<Array<string | number>> {
  const out = [path];
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...nodePaths(item, [...path, i])));
  else if (value !== null && typeof value === 'object') for (const [k, item] of Object.entries(value)) out.push(...nodePaths(item, [...path, k]));
  return out;
}

/**
 * Our schemas with no official counterpart, so nothing to cross-check: the error response with
 * id null that JSON-RPC 2.0 §5 requires for parse errors and unreadable requests (the official
 * RequestId excludes null).
 */
const NOT_IN_OFFICIAL = ['jsonrpc-error-null-id.error.schema.json'];

const referencePresent = existsSync(REFERENCE_DIR);
const registry = SchemaRegistry.load();
const coreSchemas = registry.find({ family: 'core' });
const examples = registry.examples();

describe.skipIf(!referencePresent)(
  `core schemas vs the official MCP schemas${referencePresent ? '' : ` (skipped: ${REFERENCE_DIR} is absent)`}`,
  () => {
    describe.each(VERSIONS.map((v) => [v] as const))('%s', (version) => {
      const official = referencePresent ? new OfficialSchema(version) : undefined;
      const mine = coreSchemas.filter((s) => s.meta.protocolVersion === version);
      const messageSchemas = mine.filter((s) => s.meta.kind !== 'definition' && !NOT_IN_OFFICIAL.some((f) => s.file.endsWith(`/${f}`)));
      const ourVerdict = (schema: LoadedSchema, instance: unknown): boolean => registry.validate(schema.id, instance).length === 0;
      const officialVerdict = (schema: LoadedSchema, instance: unknown): boolean =>
        official!.validator(schema.meta.kind, schema.meta.official!)(instance);

      it('leaves only the listed schemas without an official counterpart', () => {
        const without = mine.filter((s) => s.meta.kind !== 'definition' && s.meta.official === undefined).map((s) => s.file.split('/').pop());
        expect(without.sort()).toEqual([...NOT_IN_OFFICIAL].sort());
      });

      it('names an official definition of this version on every message schema, with the same method', () => {
        for (const schema of messageSchemas) {
          const name = schema.meta.official;
          expect(name, schema.file).toBeTypeOf('string');
          const def = official!.defs[name!];
          expect(def, `${schema.file}: official ${name} is not defined in ${version}`).toBeDefined();
          if (schema.meta.kind === 'request' || schema.meta.kind === 'notification') {
            expect(def!.properties?.method?.const, schema.file).toBe(schema.meta.method);
          }
        }
      });

      it('has a schema for every message the official schema defines', () => {
        const ours = new Set(messageSchemas.map((s) => `${s.meta.kind}:${s.meta.official}`));
        const expected = [
          ...[...official!.members('ClientRequest'), ...official!.members('ServerRequest')].map((n) => `request:${n}`),
          ...[...official!.members('ClientNotification'), ...official!.members('ServerNotification')].map((n) => `notification:${n}`),
          ...[...official!.members('ClientResult'), ...official!.members('ServerResult')]
            // `Result` is the unions' catch-all for answers without members (ping, subscribe,
            // unsubscribe, logging/setLevel); our schemas for those name its alias `EmptyResult`.
            .filter((n) => n !== 'Result')
            .map((n) => `result:${n}`),
          'result:EmptyResult',
          `error:${official!.defs.JSONRPCErrorResponse ? 'JSONRPCErrorResponse' : 'JSONRPCError'}`,
          ...(official!.defs.URLElicitationRequiredError ? ['error:URLElicitationRequiredError'] : []),
          // Deliberately not covered: JSONRPCBatchRequest/JSONRPCBatchResponse (2025-03-26 only) are
          // arrays of the messages above, not messages of their own; each element is checked alone.
        ];
        const missing = [...new Set(expected)].filter((key) => !ours.has(key));
        expect(missing).toEqual([]);
      });

      it('gives each request the direction the official unions imply', () => {
        const client = new Set([...official!.members('ClientRequest'), ...official!.members('ClientNotification')]);
        const server = new Set([...official!.members('ServerRequest'), ...official!.members('ServerNotification')]);
        for (const schema of messageSchemas.filter((s) => s.meta.kind === 'request' || s.meta.kind === 'notification')) {
          const name = schema.meta.official!;
          const expected = client.has(name) && server.has(name) ? 'both' : client.has(name) ? 'client-to-server' : 'server-to-client';
          expect(schema.meta.direction, schema.file).toBe(expected);
        }
      });

      const versionExamples = examples.filter((e) => messageSchemas.some((s) => s.id === e.schemaId));
      it.each(versionExamples.map((e) => [`${e.file}: ${e.valid ? 'valid' : 'invalid'}: ${e.description}`, e] as const))(
        'same verdict as official: %s',
        (_name, example) => {
          const schema = registry.get(example.schemaId);
          expect(ourVerdict(schema, example.instance)).toBe(example.valid);
          const validateOfficial = official!.validator(schema.meta.kind, schema.meta.official!);
          expect(validateOfficial(example.instance), JSON.stringify(validateOfficial.errors)).toBe(example.valid);
        },
      );

      it.each(messageSchemas.map((s) => [s.file, s] as const))('same verdict as official on every single-point mutation of the valid examples of %s', (_file, schema) => {
        const disagreements: string[] = [];
        let rejected = 0;
        for (const example of examples.filter((e) => e.schemaId === schema.id && e.valid)) {
          for (const mutation of mutations(example.instance as Json)) {
            const instance = applyMutation(example.instance as Json, mutation);
            const ours = ourVerdict(schema, instance);
            if (!ours) rejected += 1;
            if (ours !== officialVerdict(schema, instance)) {
              disagreements.push(`${example.description}: ${mutation.op} /${mutation.path.join('/')} ${JSON.stringify(mutation.to)} -> ours ${ours}`);
            }
          }
        }
        expect(disagreements).toEqual([]);
        expect(rejected, 'the mutations must reach constraints of the schema').toBeGreaterThan(0);
      });

      it('same verdict as official for random JSON placed anywhere in a valid example', () => {
        const seeds = versionExamples.filter((e) => e.valid).map((e) => ({ schema: registry.get(e.schemaId), instance: e.instance as Json }));
        fc.assert(
          fc.property(
            fc.constantFrom(...seeds).chain((seed) =>
              fc.record({ seed: fc.constant(seed), path: fc.constantFrom(...nodePaths(seed.instance)), to: fc.jsonValue() as fc.Arbitrary<Json> }),
            ),
            ({ seed, path, to }) => {
              const instance = applyMutation(seed.instance, { path, op: 'set', to });
              expect(ourVerdict(seed.schema, instance)).toBe(officialVerdict(seed.schema, instance));
            },
          ),
          { numRuns: propertyRuns(500) },
        );
      });
    });
  },
);
