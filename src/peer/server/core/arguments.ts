// Validates tool arguments against a tool's inputSchema (CORE-TOOLS-4) and structured output
// against its outputSchema (CORE-TOOLS-6), with one compiled validator per schema object.
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/** ajv, loaded at the first check: a mock process that is never asked to run a tool never loads it. */
function validator(): Ajv2020 {
  if (ajv) return ajv;
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  ajv = new Ajv({ strict: false, allErrors: true });
  // Standard formats (date, uri...) are checked; without them ajv prints "unknown format" warnings.
  (require('ajv-formats') as typeof import('ajv-formats')).default(ajv);
  return ajv;
}

/** undefined when `value` matches `schema`; otherwise a readable list of what is wrong. */
export function schemaErrors(schema: object, value: unknown): string | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = validator().compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return undefined;
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`).join('; ');
}
