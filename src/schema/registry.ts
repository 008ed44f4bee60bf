// The schema registry: the schemas under schemas/ (read and checked by files.ts), looked up by id,
// file or method, and messages validated with Ajv (JSON Schema 2020-12, strict mode, compiled
// lazily and cached) and matched to the schemas that could describe them (`identify`).
//
// Each schema is read two ways. Its *shape* is what the documents require: required members,
// types, constants, enumerated values, formats the documents state; a message that breaks it is
// invalid (`validate`). The members it *names* are the shape plus `additionalProperties: false`
// (or `unevaluatedProperties: false`): a member the documents do not name is never a failure
// (docs/profile.md §2, rule 4), only an extra member (`extraMembers`) that a report notes.
import { resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';
import { SchemaError, SchemaInvalidError, UnknownSchemaError } from './errors.js';
import { readSchemaFolder } from './files.js';
import {
  ANNOTATION_KEYWORD,
  DATA_KEYWORDS,
  defaultSchemaRoot,
  NAMED_SUBSCHEMAS,
  SCHEMA_ID_PREFIX,
  SCHEMA_SUFFIX,
  type ExtraMember,
  type IdentifyCandidate,
  type IdentifyContext,
  type LoadedSchema,
  type SchemaExample,
  type SchemaQuery,
  type ValidationIssue,
} from './model.js';
import { propertyNames, referencedSchemas } from './refs.js';
import { loadStandalone, schemasFingerprint, type Standalone, type StandaloneIndex } from './standalone.js';
import { isRecord } from '../wire/index.js';

/** The result schemas of task-augmented requests (2025-11-25): `tools-call-task.result` and the like. */
const TASK_RESULT_FILE = /-task\.result\.schema\.json$/;

/** A compiled validator: ajv's, or the same code compiled at build time. */
type Validator = ((instance: unknown) => boolean) & { errors?: ErrorObject[] | null | undefined };

export class SchemaRegistry {
  readonly root: string;
  readonly #schemas: LoadedSchema[];
  readonly #byId = new Map<string, LoadedSchema>();
  readonly #byFile = new Map<string, LoadedSchema>();
  readonly #examples: SchemaExample[];
  /** The validators compiled at build time for exactly these schemas (src/schema/standalone.ts), if any. */
  readonly #standalone: Standalone | undefined;
  /** Whether the ajv instances keep each validator's source (to write it out as standalone code). */
  readonly #source: boolean;
  #ajvs: { shape: Ajv2020; named: Ajv2020 } | undefined;
  readonly #names = new Map<string, Set<string>>();
  readonly #reach = new Map<string, LoadedSchema[]>();
  /** The schemas already checked against the JSON Schema 2020-12 meta-schema. */
  readonly #metaChecked = new Set<string>();

  private constructor(root: string, schemas: LoadedSchema[], examples: SchemaExample[], options: { standalone: Standalone | undefined; source: boolean }) {
    this.root = root;
    this.#schemas = schemas;
    this.#examples = examples;
    this.#standalone = options.standalone;
    this.#source = options.source;
    for (const loaded of schemas) {
      this.#byId.set(loaded.id, loaded);
      this.#byFile.set(loaded.file, loaded);
    }
    // Schemas compiled at build time were checked then: ajv is loaded only if one is missing.
    if (this.#standalone === undefined) this.#compilers();
  }

  /**
   * Loads and checks every schema (and examples file) under `root` (default: the package's
   * schemas/). Their validators are those compiled at build time when these are the schemas they
   * were compiled from, unless `standalone: false`; otherwise each is compiled at first use.
   */
  static load(options: { root?: string; standalone?: boolean } = {}): SchemaRegistry {
    const root = resolve(options.root ?? defaultSchemaRoot());
    const { schemas, examples } = readSchemaFolder(root);
    const standalone = options.standalone === false ? undefined : loadStandalone(schemas);
    return new SchemaRegistry(root, schemas, examples, { standalone, source: false });
  }

  /** Whether the validators are those compiled at build time (src/schema/standalone.ts). */
  get usesStandalone(): boolean {
    return this.#standalone !== undefined;
  }

  /**
   * Every schema under `root` compiled as standalone code (CommonJS), one module per reading,
   * and the index that names their exports (written to dist/ by scripts/schema-validators.mjs).
   */
  static standaloneCode(standalone: (ajv: Ajv2020, exports: Record<string, string>) => string, options: { root?: string } = {}): { index: StandaloneIndex; shape: string; named: string } {
    const root = resolve(options.root ?? defaultSchemaRoot());
    const { schemas, examples } = readSchemaFolder(root);
    const registry = new SchemaRegistry(root, schemas, examples, { standalone: undefined, source: true });
    registry.compileAll();
    const exports = Object.fromEntries(schemas.map((loaded, i) => [`s${i}`, loaded.id]));
    const { shape, named } = registry.#compilers();
    return { index: { fingerprint: schemasFingerprint(schemas), exports }, shape: standalone(shape, exports), named: standalone(named, exports) };
  }

  /** The two ajv instances, created with every schema registered at first need. */
  #compilers(): { shape: Ajv2020; named: Ajv2020 } {
    if (this.#ajvs !== undefined) return this.#ajvs;
    const shape = newAjv(this.#source);
    const named = newAjv(this.#source);
    // Registered without the meta-schema check, which runs per schema when one is first compiled
    // (#compiled): a run checks only the schemas it uses, not all of them at every start.
    for (const loaded of this.#schemas) {
      try {
        named.addSchema(loaded.schema, undefined, undefined, false);
        shape.addSchema(openSchema(loaded.schema) as object, undefined, undefined, false);
      } catch (error) {
        throw new SchemaInvalidError(loaded.file, (error as Error).message, { cause: error });
      }
    }
    return (this.#ajvs = { shape, named });
  }

  schemas(): readonly LoadedSchema[] {
    return this.#schemas;
  }

  /**
   * The schema with this `$id`, or with this path below schemas/ (with or without the
   * `.schema.json` suffix). Throws UnknownSchemaError otherwise.
   */
  get(id: string): LoadedSchema {
    const found =
      this.#byId.get(id) ??
      this.#byFile.get(id) ??
      this.#byFile.get(id + SCHEMA_SUFFIX) ??
      (id.startsWith(SCHEMA_ID_PREFIX) ? undefined : this.#byId.get(SCHEMA_ID_PREFIX + id));
    if (!found) throw new UnknownSchemaError(id);
    return found;
  }

  /** Schemas whose `$id`/file ends with `suffix` (with or without `.schema.json`). */
  matchSuffix(suffix: string): LoadedSchema[] {
    const exact = this.#lookup(suffix);
    if (exact) return [exact];
    return this.#schemas.filter(
      (s) =>
        s.file.endsWith(suffix) ||
        s.file.endsWith(suffix + SCHEMA_SUFFIX) ||
        s.file.slice(0, -SCHEMA_SUFFIX.length).endsWith(suffix),
    );
  }

  /**
   * Validates `instance` against the shape the schema `id` requires; `[]` when valid. Members the
   * documents do not name never make it invalid: `extraMembers` lists them.
   */
  validate(id: string, instance: unknown): ValidationIssue[] {
    const validateFn = this.#compiled('shape', this.get(id));
    if (validateFn(instance)) return [];
    return (validateFn.errors ?? []).map(toIssue);
  }

  /**
   * The members of `instance` that the schema `id` does not name, where it names them all (an
   * object closed by `additionalProperties: false`): extension fields, an extra object next to a
   * prompt. Never a failure; a report notes them.
   */
  extraMembers(id: string, instance: unknown): ExtraMember[] {
    const validateFn = this.#compiled('named', this.get(id));
    if (validateFn(instance)) return [];
    const found = new Map<string, ExtraMember>();
    for (const error of validateFn.errors ?? []) {
      const params = error.params as { additionalProperty?: unknown; unevaluatedProperty?: unknown };
      const member = error.keyword === 'additionalProperties' ? params.additionalProperty : error.keyword === 'unevaluatedProperties' ? params.unevaluatedProperty : undefined;
      if (typeof member !== 'string') continue;
      const pointer = `${error.instancePath}/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      found.set(pointer, { pointer, member });
    }
    return [...found.values()].sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
  }

  /** Compiles every schema now (ajv strict mode runs at compile time); throws SchemaInvalidError naming the file. */
  compileAll(): void {
    for (const loaded of this.#schemas) {
      this.#compiled('named', loaded);
      this.#compiled('shape', loaded);
    }
  }

  examples(): SchemaExample[] {
    return [...this.#examples];
  }

  /**
   * Why an example does not get the verdict its file declares, or undefined when it does: a valid
   * example breaks no required shape and carries exactly the extra members it lists; an invalid
   * one is rejected by the keyword it names (at its instancePath, if it names one).
   */
  exampleProblem(example: SchemaExample): string | undefined {
    const issues = this.validate(example.schemaId, example.instance);
    if (example.valid) {
      if (issues.length > 0) return `valid example rejected: ${issues.map((i) => `${i.instancePath || '/'} ${i.message}`).join('; ')}`;
      const extras = this.extraMembers(example.schemaId, example.instance).map((m) => m.pointer);
      const listed = example.extraMembers ?? [];
      if (extras.join('\n') === listed.join('\n')) return undefined;
      return `valid example has extra members [${extras.join(', ')}], its file lists [${listed.join(', ')}]`;
    }
    if (issues.length === 0) return 'invalid example accepted';
    const named = issues.some((i) => i.keyword === example.keyword && (example.instancePath === undefined || i.instancePath === example.instancePath));
    if (named) return undefined;
    const where = example.instancePath === undefined ? '' : ` at ${example.instancePath || '/'}`;
    return `invalid example rejected, but not by "${example.keyword}"${where}: ${issues.map((i) => `${i.instancePath || '/'} ${i.keyword}`).join(', ')}`;
  }

  find(query: SchemaQuery): LoadedSchema[] {
    return this.#schemas.filter(
      (s) =>
        (query.family === undefined || s.meta.family === query.family) &&
        (query.kind === undefined || s.meta.kind === query.kind) &&
        (query.method === undefined || s.meta.method === query.method) &&
        (query.protocolVersion === undefined ||
          s.meta.protocolVersion === undefined ||
          s.meta.protocolVersion === query.protocolVersion),
    );
  }

  /**
   * The schemas that could describe `message`, best first, each with its validation issues
   * (`[]` for a match). Requests and notifications are looked up by `method`; responses by
   * `context.requestMethod` (every result/error schema when it is unknown); anything else that is
   * not a JSON-RPC message is tried against every payload schema.
   */
  identify(message: unknown, context: IdentifyContext = {}): IdentifyCandidate[] {
    const families = context.families ? new Set(context.families) : undefined;
    const inScope = (s: LoadedSchema) =>
      (!families || families.has(s.meta.family)) &&
      (context.direction === undefined || s.meta.direction === undefined || s.meta.direction === 'both' || s.meta.direction === context.direction) &&
      (context.protocolVersion === undefined ||
        s.meta.protocolVersion === undefined ||
        s.meta.protocolVersion === context.protocolVersion);

    let candidates: LoadedSchema[];
    const record = isRecord(message) ? message : undefined;
    if (record && typeof record.method === 'string') {
      const method = record.method;
      const preferred = 'id' in record ? 'request' : 'notification';
      candidates = this.#schemas
        .filter((s) => inScope(s) && s.meta.method === method && (s.meta.kind === 'request' || s.meta.kind === 'notification'))
        .sort((a, b) => Number(b.meta.kind === preferred) - Number(a.meta.kind === preferred));
    } else if (record && 'error' in record) {
      candidates = this.#schemas.filter(
        (s) =>
          inScope(s) &&
          s.meta.kind === 'error' &&
          (context.requestMethod === undefined || s.meta.method === undefined || s.meta.method === context.requestMethod),
      );
    } else if (record && 'result' in record) {
      candidates = this.#schemas.filter(
        (s) =>
          inScope(s) &&
          s.meta.kind === 'result' &&
          (context.requestMethod === undefined || s.meta.method === context.requestMethod) &&
          (context.taskRequested === undefined || context.taskRequested || !TASK_RESULT_FILE.test(s.file)),
      );
    } else {
      candidates = this.#schemas.filter((s) => inScope(s) && s.meta.kind === 'payload');
    }

    const instanceKeys = collectInstanceKeys(message);
    const ranked = candidates.map((schema, order) => {
      const issues = this.validate(schema.id, message);
      const extraMembers = this.extraMembers(schema.id, message);
      const depth = issues.reduce((max, i) => Math.max(max, pointerDepth(i.instancePath)), 0);
      const known = this.#propertyNames(schema);
      const score = [...instanceKeys].filter((key) => known.has(key)).length;
      return { schema, issues, extraMembers, order, depth, score };
    });
    // Valid before invalid; then the schema that names more of the message's property names
    // (a specific schema beats a permissive one such as an empty result), and where the message
    // has fewer members it does not name; then fewer and deeper issues.
    ranked.sort(
      (a, b) =>
        Number(a.issues.length > 0) - Number(b.issues.length > 0) ||
        b.score - a.score ||
        a.extraMembers.length - b.extraMembers.length ||
        a.issues.length - b.issues.length ||
        b.depth - a.depth ||
        a.order - b.order,
    );
    return ranked.map(({ schema, issues, extraMembers }) => ({ schema, issues, extraMembers }));
  }

  /**
   * The requirements a schema checks: its own annotation first, then those of the schemas it
   * references (transitively), so a message schema owns what the prompt or content schemas inside
   * it check.
   */
  requirementsOf(id: string): string[] {
    const out = new Set<string>();
    for (const loaded of this.#referenced(this.get(id))) for (const requirement of loaded.meta.requirements ?? []) out.add(requirement);
    return [...out];
  }

  /** `start` and every schema file its `$ref`s reach, transitively, in the order they are first reached. */
  #referenced(start: LoadedSchema): LoadedSchema[] {
    const cached = this.#reach.get(start.id);
    if (cached) return cached;
    const reached = referencedSchemas(start, this.#byId);
    this.#reach.set(start.id, reached);
    return reached;
  }

  /** Every property name a schema declares, following its `$ref`s (propertyNames in refs.ts). */
  #propertyNames(start: LoadedSchema): Set<string> {
    const cached = this.#names.get(start.id);
    if (cached) return cached;
    const names = propertyNames(start, this.#byId);
    this.#names.set(start.id, names);
    return names;
  }

  #lookup(id: string): LoadedSchema | undefined {
    try {
      return this.get(id);
    } catch (error) {
      if (error instanceof UnknownSchemaError) return undefined;
      throw error;
    }
  }

  /** Checks a schema against the JSON Schema 2020-12 meta-schema once; throws SchemaInvalidError naming the file. */
  #checkMeta(loaded: LoadedSchema): void {
    if (this.#metaChecked.has(loaded.id)) return;
    const { named } = this.#compilers();
    if (named.validateSchema(loaded.schema) !== true) {
      throw new SchemaInvalidError(loaded.file, `schema is invalid: ${named.errorsText(named.errors)}`);
    }
    this.#metaChecked.add(loaded.id);
  }

  #compiled(reading: 'shape' | 'named', loaded: LoadedSchema): Validator {
    const built = this.#standalone?.[reading][loaded.id];
    if (built !== undefined) return built as Validator;
    for (const reached of this.#referenced(loaded)) this.#checkMeta(reached);
    try {
      const fn = this.#compilers()[reading].getSchema(loaded.id);
      if (!fn) throw new SchemaInvalidError(loaded.file, 'ajv did not register the schema');
      return fn;
    } catch (error) {
      if (error instanceof SchemaError) throw error;
      throw new SchemaInvalidError(loaded.file, (error as Error).message, { cause: error });
    }
  }
}

/** ajv, loaded when a registry is first loaded: a command that only imports this module (server --list) never loads it. */
function newAjv(source: boolean): Ajv2020 {
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true, ...(source ? { code: { source: true, lines: false } } : {}) });
  (require('ajv-formats') as typeof import('ajv-formats')).default(ajv);
  ajv.addKeyword({ keyword: ANNOTATION_KEYWORD, schemaType: 'object' });
  return ajv;
}

/**
 * The shape a schema requires: a copy without `additionalProperties: false` and
 * `unevaluatedProperties: false` (a map's value schema, `additionalProperties: {...}`, stays).
 */
function openSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openSchema);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'additionalProperties' || key === 'unevaluatedProperties') && value === false) continue;
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (NAMED_SUBSCHEMAS.has(key) && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, openSchema(sub)]));
    else out[key] = openSchema(value);
  }
  return out;
}

function toIssue(error: ErrorObject): ValidationIssue {
  return {
    instancePath: error.instancePath,
    keyword: error.keyword,
    message: error.message ?? error.keyword,
    schemaPath: error.schemaPath,
    params: error.params,
  };
}

/** The property names used anywhere in a JSON value. */
function collectInstanceKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) collectInstanceKeys(item, into);
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      collectInstanceKeys(item, into);
    }
  }
  return into;
}

function pointerDepth(pointer: string): number {
  return pointer === '' ? 0 : pointer.split('/').length - 1;
}

