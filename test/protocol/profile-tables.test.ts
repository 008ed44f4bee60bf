import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_LAYERS, nameErrorCode } from '../../src/protocol/error-codes.js';
import { ProfileDocumentError } from '../../src/protocol/errors.js';
import { GENERATED_SECTIONS, beginMarker, endMarker, extractSection, renderRequirements, updateProfile } from '../../src/protocol/profile-tables.js';
import { parseCatalog } from '../../src/protocol/requirements.js';

const catalog = parseCatalog({
  version: 1,
  requirements: [
    {
      id: 'FLOW-VALID-1',
      level: 'MUST',
      system: 'FLOW',
      area: 'VALID',
      text: 'A value like `a|b` is\nchecked.',
      source: '000_73a733fb938bdd0a.txt §Input Validation',
      role: 'server',
      testable: 'needs a | pipe',
      conflict: 'C-31',
      accepts: ['one', 'two'],
    },
  ],
});

describe('renderRequirements', () => {
  it('keeps each requirement on one table row, escaping pipes and line breaks', () => {
    const table = renderRequirements(catalog);
    const row = table.split('\n').find((line) => line.startsWith('| FLOW-VALID-1 |'));
    expect(row).toBe(
      '| FLOW-VALID-1 | MUST | server | A value like `a\\|b` is checked. <br>Accepted readings (reported as INFO): (1) one; (2) two. See [C-31](#c-31). | 000 §Input Validation | no: needs a \\| pipe |',
    );
    expect(table).toContain('#### FLOW-VALID: Server-side validation');
  });
});

describe('updateProfile', () => {
  const skeleton = GENERATED_SECTIONS.map((s) => `## ${s}\n\n${beginMarker(s)}\nstale\n${endMarker(s)}\n`).join('\n');

  it('replaces every generated section and is stable', () => {
    const once = updateProfile(skeleton, catalog);
    expect(once).not.toContain('stale');
    expect(updateProfile(once, catalog)).toBe(once);
    expect(extractSection(once, 'requirements')).toBe(renderRequirements(catalog));
  });

  it('throws a typed error naming a missing or doubled marker', () => {
    expect(() => updateProfile(skeleton.replace(endMarker('methods'), ''), catalog)).toThrow(ProfileDocumentError);
    expect(() => updateProfile(skeleton.replace(beginMarker('summary'), ''), catalog)).toThrow(/"summary": missing the line/);
    expect(() => updateProfile(skeleton + beginMarker('methods'), catalog)).toThrow(/appears twice/);
  });
});

describe('nameErrorCode', () => {
  it('names any number in any layer without throwing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double()), fc.constantFrom(...ERROR_LAYERS), (code, layer) => {
        expect(nameErrorCode(code, layer).length).toBeGreaterThan(0);
      }),
    );
  });
});
