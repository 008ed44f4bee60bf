// Every vector names the requirements it exercises by well-formed IDs that exist in the catalog.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REQUIREMENT_ID_PATTERN } from '../../src/protocol/requirements.js';
import { allVectors, rows, vectorsDir } from './committed.js';

const catalogPath = join(vectorsDir, '..', 'suites', 'requirements.json');
const catalog = JSON.parse(readFileSync(catalogPath, 'utf8')) as { requirements: Array<{ id: string; withdrawn?: unknown }> };

describe('profile IDs', () => {
  it.each(rows(allVectors))('%s names well-formed requirement IDs', (_id, vector) => {
    expect(vector.profile.length).toBeGreaterThan(0);
    for (const id of vector.profile) expect(id).toMatch(REQUIREMENT_ID_PATTERN);
    expect(new Set(vector.profile).size).toBe(vector.profile.length);
  });

  it('every profile ID is in suites/requirements.json and not withdrawn', () => {
    const entries = new Map(catalog.requirements.map((r) => [r.id, r]));
    const unknown = new Set<string>();
    const withdrawn = new Set<string>();
    for (const vector of allVectors) {
      for (const id of vector.profile) {
        const entry = entries.get(id);
        if (!entry) unknown.add(`${id} (${vector.id})`);
        else if (entry.withdrawn) withdrawn.add(`${id} (${vector.id})`);
      }
    }
    expect([...unknown]).toEqual([]);
    expect([...withdrawn]).toEqual([]);
  });
});
