// The target's tools as the server suites see them: a tools/list entry, the arguments a tool is
// called with (built from its own inputSchema, never from the mock server's names), and the
// tools/call a suite sent. One definition of each for every suite (mcp-core's sweep, the
// in-flight rule of the cancellation cases, the WebTransport stream and datagram cases, the
// lifecycle sweeps).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { BoundedMap } from '../../src/common/bounded-map.js';
import { isRecord } from '../../src/wire/index.js';
import type { Message } from './session.js';

/** A tool as tools/list describes it (a missing description is '', a missing inputSchema {}). */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Message;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** A tools/list entry as a ListedTool; undefined for an entry without a string name. */
export function listedTool(entry: unknown): ListedTool | undefined {
  if (!isRecord(entry) || typeof entry.name !== 'string') return undefined;
  return {
    name: entry.name,
    description: typeof entry.description === 'string' ? entry.description : '',
    inputSchema: isRecord(entry.inputSchema) ? entry.inputSchema : {},
    ...(entry.outputSchema !== undefined ? { outputSchema: entry.outputSchema } : {}),
    ...(entry.annotations !== undefined ? { annotations: entry.annotations } : {}),
  };
}

/** A tools/call a suite sent. */
export interface ToolCall {
  tool: ListedTool;
  id: number;
  arguments: Message;
  /** The `_meta.progressToken` it carried, if any. */
  progressToken?: string;
}

// ---- validating what a target's schema allows ----------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
formatsModule.default(ajv);
/**
 * Validators by the schema's JSON text: every case lists the tools anew (new objects, the same
 * schemas), and compiling is what costs. A bounded number is kept; ajv's own cache is not used
 * (it would keep every schema a hostile target ever sent).
 */
const compiled = new BoundedMap<string, ValidateFunction | null>(512);

/** A validator for a schema a target sent, or undefined when the schema does not compile. */
export function validatorFor(schema: unknown): ValidateFunction | undefined {
  if (!isRecord(schema)) return undefined;
  const { $schema: _ignored, ...rest } = schema;
  const key = JSON.stringify(rest);
  let validate = compiled.get(key);
  if (validate === undefined) {
    try {
      validate = ajv.compile(rest);
    } catch {
      validate = null;
    } finally {
      // Kept here, not in ajv: a schema (or its $id) it kept would stay for the whole run.
      try {
        ajv.removeSchema(rest);
      } catch {
        // never registered
      }
    }
    compiled.set(key, validate);
  }
  return validate ?? undefined;
}

/** Readable ajv errors of the last validation. */
export function validationErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`).join('; ');
}

// ---- arguments -----------------------------------------------------------------------------------

/** Largest integer put into a "large" argument (16 MiB when the argument is a byte count). */
export const LARGE_INTEGER_CAP = 16 * 1024 * 1024;

/** A property that takes a size in bytes, and one that takes the byte count after which a transfer fails. */
const SIZE_PROPERTY = /^(bytes|size|length|byteLength|sizeBytes|numBytes)$/i;
const FAIL_PROPERTY = /fail/i;
/** A property that takes how long the tool works or waits (`duration`, `delayMs`, `sleepSeconds`, `waitTime`, `interval`...). */
const DURATION_PROPERTY = /duration|delay|sleep|wait|interval/i;

export interface ArgumentHints {
  /** Values offered for string members named like a URI (`uri`, `url`, `resourceUri`...). */
  uris?: readonly string[];
  /** A size in bytes, for an integer property named like bytes/size/length (required or not). */
  bytes?: number;
  /** A byte count after which the transfer fails, for an integer property named like fail... (required or not). */
  failAfterBytes?: number;
  /**
   * `large`: numbers take the largest value their schema allows (capped at LARGE_INTEGER_CAP) and
   * defaults are passed over, so that work sized by an argument (bytes to send, steps to take) lasts.
   */
  size?: 'small' | 'large';
  /**
   * Numbers named like a duration (DURATION_PROPERTY), required or not, take the smallest value
   * their schema allows (0 without a minimum) instead of their default: a call the case does not
   * need to last (a sweep, which only looks at what the call sends and answers) returns at once.
   */
  quick?: boolean;
}

function isNumberSchema(schema: unknown): schema is Message {
  return isRecord(schema) && (schema.type === 'integer' || schema.type === 'number');
}

function clampTo(schema: Message, value: number): number {
  let result = value;
  if (typeof schema.maximum === 'number') result = Math.min(result, schema.maximum);
  if (typeof schema.minimum === 'number') result = Math.max(result, schema.minimum);
  return result;
}

/** The largest value a number schema allows, capped. */
function largeNumber(schema: Message): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : undefined;
  return Math.max(min ?? 0, Math.min(max ?? LARGE_INTEGER_CAP, LARGE_INTEGER_CAP));
}

/** The smallest value a number schema allows (0 without a lower bound; an exclusive bound of a number schema is left alone: undefined). */
function smallestNumber(schema: Message): number | undefined {
  if (typeof schema.exclusiveMinimum === 'number') return schema.type === 'integer' ? Math.floor(schema.exclusiveMinimum) + 1 : undefined;
  const value = typeof schema.minimum === 'number' ? schema.minimum : 0;
  return schema.type === 'integer' ? Math.ceil(value) : value;
}

/** A minimal value for one schema (`name` is the member it is for), or undefined when none can be built. */
function sampleValue(schema: unknown, name: string, hints: ArgumentHints, depth: number): unknown {
  if (depth > 6) return undefined;
  if (schema === true || schema === undefined) return 'conformance';
  if (!isRecord(schema)) return undefined;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const large = hints.size === 'large';
  if ('default' in schema && !large) return schema.default;
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(alternatives)) {
    for (const alternative of alternatives) {
      const value = sampleValue(alternative, name, hints, depth + 1);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null') ?? types[0];
  switch (type) {
    case 'string': {
      if (/ur[il]$/i.test(name) && hints.uris && hints.uris.length > 0) return hints.uris[0];
      if (schema.format === 'date') return '2030-01-15';
      if (schema.format === 'date-time') return '2030-01-15T10:00:00Z';
      if (schema.format === 'email') return 'conformance@example.com';
      if (schema.format === 'uri') return 'https://example.com/conformance';
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return 'conformance'.padEnd(Math.max(min, 1), 'x').slice(0, Math.max(min, Math.min(11, typeof schema.maxLength === 'number' ? schema.maxLength : 11)));
    }
    case 'integer':
    case 'number': {
      if (large) return largeNumber(schema);
      let value = typeof schema.minimum === 'number' ? schema.minimum : 0;
      if (typeof schema.exclusiveMinimum === 'number') value = Math.max(value, schema.exclusiveMinimum + 1);
      if (typeof schema.maximum === 'number') value = Math.min(value, schema.maximum);
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      if (min === 0) return [];
      const item = sampleValue(schema.items, name, hints, depth + 1);
      return item === undefined ? undefined : Array.from({ length: min }, () => item);
    }
    case 'object':
    case undefined: {
      if (type === undefined && !isRecord(schema.properties)) return 'conformance';
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as unknown[]).filter((r): r is string => typeof r === 'string') : [];
      const value: Record<string, unknown> = {};
      for (const key of required) {
        const member = sampleValue(properties[key], key, hints, depth + 1);
        if (member === undefined) return undefined;
        value[key] = member;
      }
      return value;
    }
    default:
      return undefined;
  }
}

/** The hinted integer value for a top-level property, when a hint names it. */
function hintedValue(name: string, schema: unknown, hints: ArgumentHints): number | undefined {
  if (!isNumberSchema(schema)) return undefined;
  if (hints.quick && DURATION_PROPERTY.test(name)) return smallestNumber(schema);
  if (hints.failAfterBytes !== undefined && FAIL_PROPERTY.test(name)) return clampTo(schema, hints.failAfterBytes);
  if (hints.bytes !== undefined && SIZE_PROPERTY.test(name)) return clampTo(schema, hints.bytes);
  return undefined;
}

/**
 * Arguments that satisfy `inputSchema`: its required members, each with a minimal value (its
 * `const`, first `enum` value or `default`, else a value of its type), plus the members a hint
 * names (a size, a failure point, a short duration). Undefined when no such value could be built
 * or it does not validate (a pattern, say); `quick` arguments that do not validate (a maximum
 * below 0...) give way to the ones built without it.
 */
export function argumentsFor(inputSchema: unknown, hints: ArgumentHints = {}): Message | undefined {
  if (hints.quick) {
    const { quick: _quick, ...rest } = hints;
    return builtArguments(inputSchema, hints) ?? builtArguments(inputSchema, rest);
  }
  return builtArguments(inputSchema, hints);
}

function builtArguments(inputSchema: unknown, hints: ArgumentHints): Message | undefined {
  const value = sampleValue(inputSchema, '', hints, 0);
  if (!isRecord(value)) return undefined;
  const properties = isRecord(inputSchema) && isRecord(inputSchema.properties) ? inputSchema.properties : {};
  for (const [name, schema] of Object.entries(properties)) {
    const hinted = hintedValue(name, schema, hints);
    if (hinted !== undefined) value[name] = hinted;
  }
  const validate = validatorFor(inputSchema);
  return validate && validate(value) ? value : undefined;
}

/** Whether the tool's schema has a property the hint can go into. */
export function acceptsHint(tool: ListedTool, hint: 'bytes' | 'failAfterBytes'): boolean {
  const pattern = hint === 'bytes' ? SIZE_PROPERTY : FAIL_PROPERTY;
  const properties = isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  return Object.entries(properties).some(([name, schema]) => pattern.test(name) && isNumberSchema(schema));
}

/** The size in bytes `args` ask of the tool through a size property, when one took the `bytes` hint. */
export function askedBytes(tool: ListedTool, args: Message): number | undefined {
  const properties = isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const name = Object.keys(properties).find((key) => SIZE_PROPERTY.test(key) && isNumberSchema(properties[key]) && typeof args[key] === 'number');
  return name === undefined ? undefined : (args[name] as number);
}
