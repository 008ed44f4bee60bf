// Schema files: every `*.schema.json` under schemas/ read and checked against the naming and
// annotation conventions of docs/architecture.md "Schemas" (family folder, protocol-version
// folder, slug and kind, `$schema`, `$id`, the `x-mcp-flow` annotation), every `$ref` resolved,
// and the examples file beside each schema read.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import {
  SchemaBadAnnotationError,
  SchemaBadFileNameError,
  SchemaDuplicateIdError,
  SchemaExamplesInvalidError,
  SchemaFileUnreadableError,
  SchemaIdMismatchError,
  SchemaInvalidError,
  SchemaInvalidJsonError,
  SchemaMissingAnnotationError,
  SchemaRootMissingError,
} from './errors.js';
import { parseExamples } from './examples.js';
import {
  ANNOTATION_KEYWORD,
  EXAMPLES_SUFFIX,
  SCHEMA_DIRECTIONS,
  SCHEMA_FAMILIES,
  SCHEMA_ID_PREFIX,
  SCHEMA_KINDS,
  SCHEMA_SUFFIX,
  type LoadedSchema,
  type SchemaDirection,
  type SchemaExample,
  type SchemaFamily,
  type SchemaKind,
  type SchemaMeta,
} from './model.js';
import { checkRefs, collectDocuments } from './refs.js';
import { isRecord } from '../wire/index.js';

const VERSION_FOLDER = /^\d{4}-\d{2}-\d{2}$/;
const MESSAGE_KINDS: ReadonlySet<string> = new Set(['request', 'result', 'notification']);

/**
 * Every `*.schema.json` below `root`, named and annotated as docs/architecture.md "Schemas" says,
 * with every `$ref` resolved, and the examples file beside each. Throws a SchemaError naming the
 * first file that breaks a convention.
 */
export function readSchemaFolder(root: string): { schemas: LoadedSchema[]; examples: SchemaExample[] } {
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
      examples.push(...parseExamples(examplesFile, readJson(root, examplesFile), loaded.id));
    }
    for (const orphan of [...exampleFiles].sort()) {
      throw new SchemaExamplesInvalidError(orphan, `no schema file ${orphan.slice(0, -EXAMPLES_SUFFIX.length)}${SCHEMA_SUFFIX} beside it`);
    }
    return { schemas, examples };
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
