// The standalone validators (scripts/generate-validators.ts) are committed: each must be exactly
// what the script produces from its schema now, and must judge as ajv compiling the schema does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { defaultToolSchemas, GENERATED_VALIDATORS, staleValidators } from '../../scripts/generate-validators.js';
import { TOOL_ARGUMENT_OPTIONS } from '../../src/peer/server/core/arguments.js';
import { BY_SCHEMA_TEXT } from '../../src/peer/server/core/arguments.validators.generated.js';
import { validate as generatedWizardValidator } from '../../src/peer/server/flow/wizard.validator.generated.js';

const root = new URL('../../', import.meta.url);
const validateWizard = generatedWizardValidator as ValidateFunction;

describe('scripts/generate-validators.ts', () => {
  it('every committed validator equals the script output (run npx tsx scripts/generate-validators.ts)', () => {
    expect(staleValidators()).toEqual([]);
  });

  it('the wizard validator gives the verdict and first error ajv gives', () => {
    const entry = GENERATED_VALIDATORS.find((e) => e.output.endsWith('wizard.validator.generated.ts'))!;
    const compiled = new Ajv2020(entry.options).compile(JSON.parse(readFileSync(new URL(entry.schema, root), 'utf8')) as object);
    const shipped = JSON.parse(readFileSync(new URL('wizards/booking.json', root), 'utf8')) as Record<string, unknown>;
    const documents: unknown[] = [
      shipped,
      {},
      { ...shipped, steps: [] },
      { ...shipped, extra: true },
      { ...shipped, name: 'has space' },
      { ...shipped, steps: [{ id: 'a', prompt: { type: 'text', message: '' } }] },
    ];
    for (const document of documents) {
      const verdict = validateWizard(document);
      expect(verdict).toBe(compiled(document));
      expect(validateWizard.errors?.[0] ?? null).toEqual(compiled.errors?.[0] ?? null);
    }
  });

  it('each default tool schema has a generated validator that gives the verdict and the errors ajv gives', () => {
    const ajv = new Ajv2020(TOOL_ARGUMENT_OPTIONS);
    formatsModule.default(ajv);
    const schemas = defaultToolSchemas();
    expect(BY_SCHEMA_TEXT.size).toBe(schemas.length);
    for (const schema of schemas) {
      const generated = BY_SCHEMA_TEXT.get(JSON.stringify(schema)) as ValidateFunction | undefined;
      expect(generated, JSON.stringify(schema)).toBeDefined();
      const compiled = ajv.compile(schema);
      const names = Object.keys((schema as { properties?: object }).properties ?? {});
      const wrong = [12345, -1, 1.5, 'text', '', '2024-02-30', '2024-02-03', 'a@b.c', true, null, [], {}, { name: 'f.txt', size: -1 }];
      const documents: unknown[] = [{}, { unknown: 1 }, [], 'text', null, ...names.flatMap((name) => wrong.map((value) => ({ [name]: value })))];
      for (const document of documents) {
        expect(generated!(document), `${JSON.stringify(document)} against ${JSON.stringify(schema)}`).toBe(compiled(document));
        expect(generated!.errors ?? null).toEqual(compiled.errors ?? null);
      }
    }
  });
});
