// Validates tool arguments against a tool's inputSchema (CORE-TOOLS-4) and structured output
// against its outputSchema (CORE-TOOLS-6), with one compiled validator per schema object.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

const ajv = new Ajv2020({ strict: false, allErrors: true });
// Standard formats (date, uri...) are checked; without them ajv prints "unknown format" warnings.
formatsModule.default(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

/** undefined when `value` matches `schema`; otherwise a readable list of what is wrong. */
export function schemaErrors(schema: object, value: unknown): string | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return undefined;
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`).join('; ');
}
