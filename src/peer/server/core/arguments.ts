// Validates tool arguments against a tool's inputSchema (CORE-TOOLS-4), with one validator per
// schema object: generated at development time for the tools the mock serves by default
// (scripts/generate-validators.ts), compiled by ajv for any other.
import { createRequire } from 'node:module';
import type { Ajv2020, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { BY_SCHEMA_TEXT } from './arguments.validators.generated.js';

/** The ajv options of the check (ajv-formats added), generated validators included. */
export const TOOL_ARGUMENT_OPTIONS: Options = { strict: false, allErrors: true };

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();
const generated = BY_SCHEMA_TEXT as unknown as ReadonlyMap<string, ValidateFunction>;

/** ajv, loaded at the first check: a mock process that is never asked to run a tool never loads it. */
function validator(): Ajv2020 {
  if (ajv) return ajv;
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  ajv = new Ajv(TOOL_ARGUMENT_OPTIONS);
  // Standard formats (date, uri...) are checked; without them ajv prints "unknown format" warnings.
  (require('ajv-formats') as typeof import('ajv-formats')).default(ajv);
  return ajv;
}

/** undefined when `value` matches `schema`; otherwise a readable list of what is wrong. */
export function schemaErrors(schema: object, value: unknown): string | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = generated.get(JSON.stringify(schema)) ?? validator().compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return undefined;
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`).join('; ');
}
