// The schema layer's vocabulary (docs/architecture.md "Schemas"): the families, kinds and
// directions a schema's `x-mcp-flow` annotation names, what a loaded schema and an example are,
// what validation reports, and the keywords every walk over a schema treats specially.
import { resolve } from 'node:path';
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

/** A schema file's name ends with this; its examples file's with EXAMPLES_SUFFIX in its place. */
export const SCHEMA_SUFFIX = '.schema.json';
export const EXAMPLES_SUFFIX = '.examples.json';

/** The keywords that close an object to the members a schema names. */
export const EXTRA_MEMBER_KEYWORDS: ReadonlySet<string> = new Set(['additionalProperties', 'unevaluatedProperties']);

/** Keywords whose values are data, not subschemas: never walked for `$ref`/`$id`. */
export const DATA_KEYWORDS = new Set(['const', 'enum', 'examples', 'default', ANNOTATION_KEYWORD]);
/** Keywords whose values map names to subschemas (the names themselves are not keywords). */
export const NAMED_SUBSCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
