// The standalone validators (scripts/generate-validators.ts) are committed: each must be exactly
// what the script produces from its schema now, and must judge as ajv compiling the schema does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { GENERATED_VALIDATORS, staleValidators } from '../../scripts/generate-validators.js';
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
});
