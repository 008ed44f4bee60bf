// Typed failures of the schema registry. Each names the file (or id) it is about and has a
// stable `code`, so the CLI and tests can tell them apart without parsing messages.

export type SchemaErrorCode =
  | 'SCHEMA_ROOT_MISSING'
  | 'SCHEMA_FILE_UNREADABLE'
  | 'SCHEMA_INVALID_JSON'
  | 'SCHEMA_MISSING_ANNOTATION'
  | 'SCHEMA_BAD_ANNOTATION'
  | 'SCHEMA_BAD_FILE_NAME'
  | 'SCHEMA_ID_MISMATCH'
  | 'SCHEMA_DUPLICATE_ID'
  | 'SCHEMA_UNRESOLVED_REF'
  | 'SCHEMA_INVALID'
  | 'SCHEMA_EXAMPLES_INVALID'
  | 'SCHEMA_UNKNOWN';

/** Base class of every registry failure. `file` is relative to the schemas root when known. */
export class SchemaError extends Error {
  readonly code: SchemaErrorCode;
  readonly file: string | undefined;

  constructor(code: SchemaErrorCode, message: string, file?: string, options?: { cause?: unknown }) {
    super(file ? `${file}: ${message}` : message, options);
    this.name = new.target.name;
    this.code = code;
    this.file = file;
  }
}

/** The schemas root folder does not exist or is not a folder. */
export class SchemaRootMissingError extends SchemaError {
  constructor(root: string, options?: { cause?: unknown }) {
    super('SCHEMA_ROOT_MISSING', `schemas root folder ${root} does not exist or is not a folder`, undefined, options);
  }
}

/** A schema or examples file could not be read. */
export class SchemaFileUnreadableError extends SchemaError {
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super('SCHEMA_FILE_UNREADABLE', `cannot read file: ${detail}`, file, options);
  }
}

/** A schema or examples file is not valid JSON. */
export class SchemaInvalidJsonError extends SchemaError {
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super('SCHEMA_INVALID_JSON', `not valid JSON: ${detail}`, file, options);
  }
}

/** A schema has no `x-mcp-flow` annotation object. */
export class SchemaMissingAnnotationError extends SchemaError {
  constructor(file: string) {
    super('SCHEMA_MISSING_ANNOTATION', 'schema has no "x-mcp-flow" annotation object', file);
  }
}

/** The `x-mcp-flow` annotation is present but wrong (bad family/kind, disagrees with the path...). */
export class SchemaBadAnnotationError extends SchemaError {
  constructor(file: string, detail: string) {
    super('SCHEMA_BAD_ANNOTATION', `bad "x-mcp-flow" annotation: ${detail}`, file);
  }
}

/** A file under schemas/ does not follow `<family>/[<version>/]<slug>.<kind>.schema.json`. */
export class SchemaBadFileNameError extends SchemaError {
  constructor(file: string, detail: string) {
    super('SCHEMA_BAD_FILE_NAME', `file name does not follow the schema naming convention: ${detail}`, file);
  }
}

/** The `$id` is not the one the file's path implies. */
export class SchemaIdMismatchError extends SchemaError {
  readonly expected: string;
  readonly actual: unknown;
  constructor(file: string, expected: string, actual: unknown) {
    super('SCHEMA_ID_MISMATCH', `"$id" must be ${JSON.stringify(expected)}, found ${JSON.stringify(actual)}`, file);
    this.expected = expected;
    this.actual = actual;
  }
}

/** Two files declare the same `$id`. */
export class SchemaDuplicateIdError extends SchemaError {
  readonly id: string;
  readonly otherFile: string;
  constructor(file: string, id: string, otherFile: string) {
    super('SCHEMA_DUPLICATE_ID', `"$id" ${id} is already declared by ${otherFile}`, file);
    this.id = id;
    this.otherFile = otherFile;
  }
}

/** A `$ref` points at a schema or a location that is not loaded. */
export class SchemaUnresolvedRefError extends SchemaError {
  readonly ref: string;
  constructor(file: string, ref: string, detail: string) {
    super('SCHEMA_UNRESOLVED_REF', `unresolved $ref ${JSON.stringify(ref)}: ${detail}`, file);
    this.ref = ref;
  }
}

/** A schema does not conform to the 2020-12 meta-schema, or ajv's strict mode rejects it. */
export class SchemaInvalidError extends SchemaError {
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super('SCHEMA_INVALID', `invalid schema: ${detail}`, file, options);
  }
}

/** An examples file does not have the `{valid: [...], invalid: [...]}` shape. */
export class SchemaExamplesInvalidError extends SchemaError {
  constructor(file: string, detail: string) {
    super('SCHEMA_EXAMPLES_INVALID', `bad examples file: ${detail}`, file);
  }
}

/** `get`/`validate` was asked for a schema id that is not loaded. */
export class UnknownSchemaError extends SchemaError {
  readonly id: string;
  constructor(id: string) {
    super('SCHEMA_UNKNOWN', `no schema with id or path ${JSON.stringify(id)} is loaded`);
    this.id = id;
  }
}
