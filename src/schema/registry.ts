// The schema registry: loads every `*.schema.json` under schemas/ (with the examples beside it),
// checks the naming and annotation conventions of docs/architecture.md "Schemas", and validates
// messages with Ajv (JSON Schema 2020-12, strict mode, compiled lazily and cached).
//
// Each schema is read two ways. Its *shape* is what the documents require: required members,
// types, constants, enumerated values, formats the documents state; a message that breaks it is
// invalid (`validate`). The members it *names* are the shape plus `additionalProperties: false`
// (or `unevaluatedProperties: false`): a member the documents do not name is never a failure
// (docs/profile.md §2, rule 4), only an extra member (`extraMembers`) that a report notes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';
import {
  SchemaBadAnnotationError,
  SchemaBadFileNameError,
  SchemaDuplicateIdError,
  SchemaError,
  SchemaExamplesInvalidError,
  SchemaFileUnreadableError,
  SchemaIdMismatchError,
  SchemaInvalidError,
  SchemaInvalidJsonError,
  SchemaMissingAnnotationError,
  SchemaRootMissingError,
  SchemaUnresolvedRefError,
  UnknownSchemaError,
} from './errors.js';
import { isRecord } from '../wire/index.js';
import { findPackageFolder } from '../package-folder.js';

export const SCHEMA_FAMILIES = ['core', 'flow', 'binding', 'fastworkflow'] as const;
export const SCHEMA_KINDS = ['request', 'result', 'notification', 'error', 'definition', 'payload'] as const;
export const SCHEMA_DIRECTIONS = ['client-to-server', 'server-to-client', 'both'] as const;
/** Every `$id` is this prefix followed by the file's path below schemas/. */
export const SCHEMA_ID_PREFIX = 'https://mcp-flow-conformance.dev/schemas/';
export const ANNOTATION_KEYWORD = 'x-mcp-flow';

export type SchemaFamily = (typeof SCHEMA_FAMILIES)[number];
export type SchemaKind = (typeof SCHEMA_KINDS)[number];
export type SchemaDirection = (typeof SCHEMA_DIRECTIONS)[number];

/** The `x-mcp-flow` annotation of a schema. */
export interface SchemaMeta {
  family: SchemaFamily;
  kind: SchemaKind;
  method?: string;
  direction?: SchemaDirection;
  protocolVersion?: string;
  requirements?: string[];
  official?: string;
}

export interface LoadedSchema {
  /** The schema's `$id` (`https://mcp-flow-conformance.dev/schemas/<file>`). */
  id: string;
  /** Path relative to schemas/, with `/` separators. */
  file: string;
  meta: SchemaMeta;
  schema: object;
}

export interface SchemaExample {
  schemaId: string;
  /** The examples file, relative to schemas/. */
  file: string;
  valid: boolean;
  description: string;
  instance: unknown;
  /** For invalid examples: the ajv keyword that must be among the errors. */
  keyword?: string;
  instancePath?: string;
  /** For valid examples: the pointers of the members the documents do not name (none when absent). */
  extraMembers?: string[];
}

export interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message: string;
  schemaPath: string;
  params: object;
}

/** A member the documents do not name (an extension field, an extra object next to a prompt). */
export interface ExtraMember {
  /** JSON Pointer of the member itself. */
  pointer: string;
  /** The member's name. */
  member: string;
}

export interface SchemaQuery {
  family?: string;
  kind?: string;
  method?: string;
  /** Schemas without a protocolVersion (every family but core) match any version. */
  protocolVersion?: string;
}

export interface IdentifyContext {
  /** Only schemas for this version (plus the version-independent ones). */
  protocolVersion?: string;
  /** The method of the request a response answers; narrows result and error candidates. */
  requestMethod?: string;
  /** Only schemas of these families. */
  families?: string[];
  /**
   * Which way the message went: only schemas for that direction (or `both`) are candidates, so a
   * server's message is judged by a server-to-client schema.
   */
  direction?: 'client-to-server' | 'server-to-client';
  /**
   * For a result: whether the request asked for a task (2025-11-25 `params.task`). When known,
   * the task-result schemas (`*-task.result`) are candidates only for a request that asked.
   */
  taskRequested?: boolean;
}

/** The result schemas of task-augmented requests (2025-11-25): `tools-call-task.result` and the like. */
const TASK_RESULT_FILE = /-task\.result\.schema\.json$/;

export interface IdentifyCandidate {
  schema: LoadedSchema;
  /** Breaks of the shape the documents require (`[]` for a match). */
  issues: ValidationIssue[];
  /** Members the documents do not name (never a failure). */
  extraMembers: ExtraMember[];
}

/** The package's own schemas/ folder, found upwards from this file (in src/ and in dist/src/). */
export function defaultSchemaRoot(): string {
  return findPackageFolder(import.meta.url, 'schemas', 'core') ?? resolve('schemas');
}

const SCHEMA_SUFFIX = '.schema.json';
const EXAMPLES_SUFFIX = '.examples.json';
const VERSION_FOLDER = /^\d{4}-\d{2}-\d{2}$/;
const MESSAGE_KINDS: ReadonlySet<string> = new Set(['request', 'result', 'notification']);

export class SchemaRegistry {
  readonly root: string;
  readonly #schemas: LoadedSchema[];
  readonly #byId = new Map<string, LoadedSchema>();
  readonly #byFile = new Map<string, LoadedSchema>();
  readonly #examples: SchemaExample[];
  /** The shape the documents require: the schemas with every `additionalProperties: false` opened. */
  readonly #shape: Ajv2020;
  /** The members the documents name: the schemas as written. */
  readonly #named: Ajv2020;
  readonly #names = new Map<string, Set<string>>();
  readonly #reach = new Map<string, LoadedSchema[]>();
  /** The schemas already checked against the JSON Schema 2020-12 meta-schema. */
  readonly #metaChecked = new Set<string>();

  private constructor(root: string, schemas: LoadedSchema[], examples: SchemaExample[]) {
    this.root = root;
    this.#schemas = schemas;
    this.#examples = examples;
    for (const loaded of schemas) {
      this.#byId.set(loaded.id, loaded);
      this.#byFile.set(loaded.file, loaded);
    }
    this.#shape = newAjv();
    this.#named = newAjv();
    // Registered without the meta-schema check, which runs per schema when one is first compiled
    // (#compiled): a run checks only the schemas it uses, not all of them at every start.
    for (const loaded of schemas) {
      try {
        this.#named.addSchema(loaded.schema, undefined, undefined, false);
        this.#shape.addSchema(openSchema(loaded.schema) as object, undefined, undefined, false);
      } catch (error) {
        throw new SchemaInvalidError(loaded.file, (error as Error).message, { cause: error });
      }
    }
  }

  /** Loads and checks every schema (and examples file) under `root` (default: the package's schemas/). */
  static load(options: { root?: string } = {}): SchemaRegistry {
    const root = resolve(options.root ?? defaultSchemaRoot());
    let isDir = false;
    try {
      isDir = statSync(root).isDirectory();
    } catch (error) {
      throw new SchemaRootMissingError(root, { cause: error });
    }
    if (!isDir) throw new SchemaRootMissingError(root);

    const files = listFiles(root).map((abs) => relative(root, abs).split(sep).join('/'));
    const schemaFiles = files.filter((f) => f.endsWith(SCHEMA_SUFFIX)).sort();
    const exampleFiles = new Set(files.filter((f) => f.endsWith(EXAMPLES_SUFFIX)));

    const schemas: LoadedSchema[] = [];
    const byId = new Map<string, LoadedSchema>();
    for (const file of schemaFiles) {
      const loaded = loadSchemaFile(root, file);
      const other = byId.get(loaded.id);
      if (other) throw new SchemaDuplicateIdError(file, loaded.id, other.file);
      byId.set(loaded.id, loaded);
      schemas.push(loaded);
    }
    const docs = collectDocuments(schemas);
    for (const loaded of schemas) checkRefs(loaded, docs);

    const examples: SchemaExample[] = [];
    for (const loaded of schemas) {
      const examplesFile = loaded.file.slice(0, -SCHEMA_SUFFIX.length) + EXAMPLES_SUFFIX;
      if (!exampleFiles.delete(examplesFile)) continue;
      examples.push(...loadExamplesFile(root, examplesFile, loaded.id));
    }
    for (const orphan of [...exampleFiles].sort()) {
      throw new SchemaExamplesInvalidError(orphan, `no schema file ${orphan.slice(0, -EXAMPLES_SUFFIX.length)}${SCHEMA_SUFFIX} beside it`);
    }
    return new SchemaRegistry(root, schemas, examples);
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
    const validateFn = this.#compiled(this.#shape, this.get(id));
    if (validateFn(instance)) return [];
    return (validateFn.errors ?? []).map(toIssue);
  }

  /**
   * The members of `instance` that the schema `id` does not name, where it names them all (an
   * object closed by `additionalProperties: false`): extension fields, an extra object next to a
   * prompt. Never a failure; a report notes them.
   */
  extraMembers(id: string, instance: unknown): ExtraMember[] {
    const validateFn = this.#compiled(this.#named, this.get(id));
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
      this.#compiled(this.#named, loaded);
      this.#compiled(this.#shape, loaded);
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
    const reached: LoadedSchema[] = [];
    const seen = new Set<string>();
    const walkDoc = (loaded: LoadedSchema) => {
      if (seen.has(loaded.id)) return;
      seen.add(loaded.id);
      reached.push(loaded);
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (!isRecord(node)) return;
        for (const [key, value] of Object.entries(node)) {
          if (DATA_KEYWORDS.has(key)) continue;
          if (key === '$ref' && typeof value === 'string') {
            const target = this.#byId.get(stripHash(new URL(value, loaded.id).href));
            if (target) walkDoc(target);
          }
          visit(value);
        }
      };
      visit(loaded.schema);
    };
    walkDoc(start);
    this.#reach.set(start.id, reached);
    return reached;
  }

  /**
   * Every property name a schema declares (in `properties` or `required`), following its `$ref`s to
   * the definitions they name (not every definition of a referenced file: a shared defs file names
   * the members of every message, which would tell no two schemas apart).
   */
  #propertyNames(start: LoadedSchema): Set<string> {
    const cached = this.#names.get(start.id);
    if (cached) return cached;
    const names = new Set<string>();
    const seen = new Set<string>();
    const follow = (ref: string, base: string): void => {
      const url = new URL(ref, base);
      const target = this.#byId.get(stripHash(url.href));
      const key = `${target?.id ?? ''}${url.hash}`;
      if (!target || seen.has(key)) return;
      seen.add(key);
      let node: unknown = target.schema;
      for (const part of url.hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '')) {
        node = isRecord(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
      }
      visit(node, target.id);
    };
    const visit = (node: unknown, base: string): void => {
      if (Array.isArray(node)) return node.forEach((item) => visit(item, base));
      if (!isRecord(node)) return;
      for (const [key, value] of Object.entries(node)) {
        if (DATA_KEYWORDS.has(key) || key === '$defs') continue;
        if (key === '$ref' && typeof value === 'string') follow(value, base);
        if (key === 'properties' && isRecord(value)) Object.keys(value).forEach((k) => names.add(k));
        if (key === 'required' && Array.isArray(value)) value.forEach((k) => typeof k === 'string' && names.add(k));
        visit(value, base);
      }
    };
    visit(start.schema, start.id);
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
    if (this.#named.validateSchema(loaded.schema) !== true) {
      throw new SchemaInvalidError(loaded.file, `schema is invalid: ${this.#named.errorsText(this.#named.errors)}`);
    }
    this.#metaChecked.add(loaded.id);
  }

  #compiled(ajv: Ajv2020, loaded: LoadedSchema) {
    for (const reached of this.#referenced(loaded)) this.#checkMeta(reached);
    try {
      const fn = ajv.getSchema(loaded.id);
      if (!fn) throw new SchemaInvalidError(loaded.file, 'ajv did not register the schema');
      return fn;
    } catch (error) {
      if (error instanceof SchemaError) throw error;
      throw new SchemaInvalidError(loaded.file, (error as Error).message, { cause: error });
    }
  }
}

/** ajv, loaded when a registry is first loaded: a command that only imports this module (server --list) never loads it. */
function newAjv(): Ajv2020 {
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
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

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(abs));
    else if (entry.isFile()) out.push(abs);
  }
  return out;
}

function readJson(root: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch (error) {
    throw new SchemaFileUnreadableError(file, (error as Error).message, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SchemaInvalidJsonError(file, (error as Error).message, { cause: error });
  }
}

function loadSchemaFile(root: string, file: string): LoadedSchema {
  const parts = file.split('/');
  const base = parts[parts.length - 1] ?? '';
  const folders = parts.slice(0, -1);
  const family = folders[0];
  if (folders.length < 1 || folders.length > 2) {
    throw new SchemaBadFileNameError(file, 'expected <family>/[<protocolVersion>/]<slug>.<kind>.schema.json');
  }
  if (!(SCHEMA_FAMILIES as readonly string[]).includes(family ?? '')) {
    throw new SchemaBadFileNameError(file, `folder ${JSON.stringify(family)} is not a family (${SCHEMA_FAMILIES.join(', ')})`);
  }
  const version = folders[1];
  if (version !== undefined && !VERSION_FOLDER.test(version)) {
    throw new SchemaBadFileNameError(file, `folder ${JSON.stringify(version)} is not a protocol version (YYYY-MM-DD)`);
  }
  const stem = base.slice(0, -SCHEMA_SUFFIX.length);
  const dot = stem.lastIndexOf('.');
  const slug = stem.slice(0, Math.max(dot, 0));
  const kind = stem.slice(dot + 1);
  if (dot <= 0 || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(slug)) {
    throw new SchemaBadFileNameError(file, `slug ${JSON.stringify(slug)} must be letters, digits, "_", "-" and "." (method names keep their case)`);
  }
  if (!(SCHEMA_KINDS as readonly string[]).includes(kind)) {
    throw new SchemaBadFileNameError(file, `kind ${JSON.stringify(kind)} is not one of ${SCHEMA_KINDS.join(', ')}`);
  }

  const schema = readJson(root, file);
  if (!isRecord(schema)) throw new SchemaInvalidError(file, 'a schema file must hold a JSON object');
  if (schema.$schema !== 'https://json-schema.org/draft/2020-12/schema') {
    throw new SchemaInvalidError(file, `"$schema" must be "https://json-schema.org/draft/2020-12/schema", found ${JSON.stringify(schema.$schema)}`);
  }
  const expectedId = SCHEMA_ID_PREFIX + file;
  if (schema.$id !== expectedId) throw new SchemaIdMismatchError(file, expectedId, schema.$id);
  const meta = checkMeta(file, schema[ANNOTATION_KEYWORD], { family: family as SchemaFamily, kind: kind as SchemaKind, version });
  return { id: expectedId, file, meta, schema };
}

function checkMeta(
  file: string,
  raw: unknown,
  fromPath: { family: SchemaFamily; kind: SchemaKind; version: string | undefined },
): SchemaMeta {
  if (raw === undefined) throw new SchemaMissingAnnotationError(file);
  if (!isRecord(raw)) throw new SchemaBadAnnotationError(file, 'must be an object');
  const allowed = new Set(['family', 'kind', 'method', 'direction', 'protocolVersion', 'requirements', 'official']);
  for (const key of Object.keys(raw)) {
    if (!allowed.has(key)) throw new SchemaBadAnnotationError(file, `unknown property ${JSON.stringify(key)}`);
  }
  if (raw.family !== fromPath.family) {
    throw new SchemaBadAnnotationError(file, `family ${JSON.stringify(raw.family)} does not match the folder ${JSON.stringify(fromPath.family)}`);
  }
  if (raw.kind !== fromPath.kind) {
    throw new SchemaBadAnnotationError(file, `kind ${JSON.stringify(raw.kind)} does not match the file name's kind ${JSON.stringify(fromPath.kind)}`);
  }
  const meta: SchemaMeta = { family: fromPath.family, kind: fromPath.kind };
  if (raw.method !== undefined) {
    if (typeof raw.method !== 'string' || raw.method === '') throw new SchemaBadAnnotationError(file, 'method must be a non-empty string');
    meta.method = raw.method;
  } else if (MESSAGE_KINDS.has(fromPath.kind)) {
    throw new SchemaBadAnnotationError(file, `a ${fromPath.kind} schema must name its method`);
  }
  if (raw.direction !== undefined) {
    if (!(SCHEMA_DIRECTIONS as readonly unknown[]).includes(raw.direction)) {
      throw new SchemaBadAnnotationError(file, `direction must be one of ${SCHEMA_DIRECTIONS.join(', ')}`);
    }
    meta.direction = raw.direction as SchemaDirection;
  }
  if (raw.protocolVersion !== undefined) {
    if (typeof raw.protocolVersion !== 'string') throw new SchemaBadAnnotationError(file, 'protocolVersion must be a string');
    meta.protocolVersion = raw.protocolVersion;
  }
  if (meta.protocolVersion !== fromPath.version) {
    throw new SchemaBadAnnotationError(
      file,
      `protocolVersion ${JSON.stringify(meta.protocolVersion)} does not match the version folder ${JSON.stringify(fromPath.version)}`,
    );
  }
  if (raw.requirements !== undefined) {
    if (!Array.isArray(raw.requirements) || !raw.requirements.every((r) => typeof r === 'string' && r !== '')) {
      throw new SchemaBadAnnotationError(file, 'requirements must be an array of requirement IDs');
    }
    meta.requirements = [...(raw.requirements as string[])];
  }
  if (raw.official !== undefined) {
    if (typeof raw.official !== 'string' || raw.official === '') throw new SchemaBadAnnotationError(file, 'official must be a non-empty string');
    meta.official = raw.official;
  }
  return meta;
}

/** A JSON document (or embedded resource with its own `$id`) that a `$ref` can land in. */
interface RefDocument {
  file: string;
  root: unknown;
  anchors: Set<string>;
}

/** The keywords that close an object to the members a schema names. */
const EXTRA_MEMBER_KEYWORDS: ReadonlySet<string> = new Set(['additionalProperties', 'unevaluatedProperties']);

/** Keywords whose values are data, not subschemas: never walked for `$ref`/`$id`. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'examples', 'default', ANNOTATION_KEYWORD]);
/** Keywords whose values map names to subschemas (the names themselves are not keywords). */
const NAMED_SUBSCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

function collectDocuments(schemas: LoadedSchema[]): Map<string, RefDocument> {
  const docs = new Map<string, RefDocument>();
  for (const loaded of schemas) {
    const visit = (node: unknown, base: string, doc: RefDocument) => {
      if (Array.isArray(node)) {
        for (const item of node) visit(item, base, doc);
        return;
      }
      if (!isRecord(node)) return;
      let here = base;
      let current = doc;
      if (typeof node.$id === 'string' && node !== loaded.schema) {
        here = resolveId(loaded.file, node.$id, base);
        current = { file: loaded.file, root: node, anchors: new Set() };
        const other = docs.get(stripHash(here));
        if (other) throw new SchemaDuplicateIdError(loaded.file, stripHash(here), other.file);
        docs.set(stripHash(here), current);
      }
      if (typeof node.$anchor === 'string') current.anchors.add(node.$anchor);
      if (typeof node.$dynamicAnchor === 'string') current.anchors.add(node.$dynamicAnchor);
      for (const [key, value] of Object.entries(node)) {
        if (DATA_KEYWORDS.has(key)) continue;
        if (NAMED_SUBSCHEMAS.has(key)) {
          if (isRecord(value)) for (const sub of Object.values(value)) visit(sub, here, current);
        } else {
          visit(value, here, current);
        }
      }
    };
    const doc: RefDocument = { file: loaded.file, root: loaded.schema, anchors: new Set() };
    const other = docs.get(loaded.id);
    if (other) throw new SchemaDuplicateIdError(other.file, loaded.id, loaded.file);
    docs.set(loaded.id, doc);
    visit(loaded.schema, loaded.id, doc);
  }
  return docs;
}

function checkRefs(loaded: LoadedSchema, docs: Map<string, RefDocument>): void {
  const visit = (node: unknown, base: string) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, base);
      return;
    }
    if (!isRecord(node)) return;
    const here = typeof node.$id === 'string' ? resolveId(loaded.file, node.$id, base) : base;
    for (const key of ['$ref', '$dynamicRef'] as const) {
      const ref = node[key];
      if (ref === undefined) continue;
      if (typeof ref !== 'string') throw new SchemaUnresolvedRefError(loaded.file, String(ref), `${key} must be a string`);
      resolveRef(loaded.file, ref, here, docs);
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (NAMED_SUBSCHEMAS.has(key)) {
        if (isRecord(value)) for (const sub of Object.values(value)) visit(sub, here);
      } else {
        visit(value, here);
      }
    }
  };
  visit(loaded.schema, loaded.id);
}

function resolveRef(file: string, ref: string, base: string, docs: Map<string, RefDocument>): void {
  let url: URL;
  try {
    url = new URL(ref, base);
  } catch {
    throw new SchemaUnresolvedRefError(file, ref, 'not a valid URI reference');
  }
  const target = docs.get(stripHash(url.href));
  if (!target) throw new SchemaUnresolvedRefError(file, ref, `no loaded schema has $id ${stripHash(url.href)}`);
  let fragment: string;
  try {
    fragment = decodeURIComponent(url.hash.replace(/^#/, ''));
  } catch {
    throw new SchemaUnresolvedRefError(file, ref, 'its fragment has malformed percent-encoding');
  }
  if (fragment === '') return;
  if (!fragment.startsWith('/')) {
    if (!target.anchors.has(fragment)) throw new SchemaUnresolvedRefError(file, ref, `${target.file} has no $anchor ${JSON.stringify(fragment)}`);
    return;
  }
  let node: unknown = target.root;
  for (const token of fragment.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key) && Number(key) < node.length) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else throw new SchemaUnresolvedRefError(file, ref, `${target.file} has nothing at ${fragment}`);
  }
}

/** The absolute URI an embedded `$id` names, resolved against the enclosing base. */
function resolveId(file: string, id: string, base: string): string {
  try {
    return new URL(id, base).href;
  } catch {
    throw new SchemaInvalidError(file, `"$id" ${JSON.stringify(id)} is not a valid URI reference`);
  }
}

function stripHash(href: string): string {
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

function loadExamplesFile(root: string, file: string, schemaId: string): SchemaExample[] {
  const raw = readJson(root, file);
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
