// docs/profile.md and suites/requirements.json are one catalog: this proves they agree, that the
// catalog is well-formed, that every source names a real seed section, and that every
// requirement ID cited in the architecture, the profile or the rest of the project exists.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_SECTIONS, extractSection, renderSection, updateProfile } from '../../src/protocol/profile-tables.js';
import {
  CONFLICT_ID_PATTERN,
  REQUIREMENT_ID_IN_TEXT,
  REQUIREMENT_ID_PATTERN,
  REQUIREMENT_LEVELS,
  SEED_FILES,
  parseSource,
  readCatalog,
} from '../../src/protocol/requirements.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const profile = readFileSync(join(root, 'docs', 'profile.md'), 'utf8');
const architecture = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const raw = JSON.parse(readFileSync(join(root, 'suites', 'requirements.json'), 'utf8')) as {
  version: number;
  requirements: { id: string; level: string; source: string; conflict?: string }[];
};
const catalog = readCatalog(join(root, 'suites', 'requirements.json'));
const ids = new Set(catalog.requirements.map((r) => r.id));
const seedsFolder = join(root, '..', 'shared', 'seeds');
const haveSeeds = existsSync(seedsFolder);
const referenceFolder = join(root, '..', 'shared', 'reference', 'mcp-schema');
const haveReference = existsSync(referenceFolder);

/**
 * ID -> level as written in the profile's requirement tables (parsed independently of the
 * generator; only section 4's tables: the basis and audit tables of sections 9 and 10 name IDs too).
 */
function profileTableLevels(): Map<string, string> {
  const levels = new Map<string, string>();
  for (const line of extractSection(profile, 'requirements').split('\n')) {
    const match = /^\| ((?:CORE|FLOW|WT|FW)-[A-Z]+-[0-9]+) \| ([A-Z]+) \|/.exec(line);
    if (!match) continue;
    expect(levels.has(match[1] as string), `${match[1]} appears twice in the profile tables`).toBe(false);
    levels.set(match[1] as string, match[2] as string);
  }
  return levels;
}

describe('requirement catalog', () => {
  it('is version 1 and loads through the typed loader', () => {
    expect(raw.version).toBe(1);
    expect(catalog.requirements.length).toBe(raw.requirements.length);
    expect(catalog.requirements.length).toBeGreaterThanOrEqual(150);
  });

  it('has unique, well-formed IDs and valid levels', () => {
    const seen = new Set<string>();
    for (const r of raw.requirements) {
      expect(r.id, r.id).toMatch(REQUIREMENT_ID_PATTERN);
      expect(seen.has(r.id), `duplicate ${r.id}`).toBe(false);
      seen.add(r.id);
      expect(REQUIREMENT_LEVELS as readonly string[]).toContain(r.level);
    }
  });

  it('numbers each area 1, 2, 3... without gaps', () => {
    const byArea = new Map<string, number[]>();
    for (const r of raw.requirements) {
      const [system, area, n] = r.id.split('-');
      const key = `${system}-${area}`;
      byArea.set(key, [...(byArea.get(key) ?? []), Number(n)]);
    }
    for (const [area, numbers] of byArea) {
      expect(numbers, area).toEqual(numbers.map((_, index) => index + 1));
    }
  });

  it('names a known seed in every source', () => {
    for (const r of raw.requirements) {
      const parsed = parseSource(r.source);
      expect(parsed, `${r.id}: ${r.source}`).toBeDefined();
      expect(Object.keys(SEED_FILES)).toContain(parsed?.seed);
    }
  });

  it.skipIf(!haveSeeds)('cites seed sections that exist in the seed files (needs ../shared/seeds)', () => {
    const headings = new Map<string, Set<string>>();
    for (const seed of Object.keys(SEED_FILES)) {
      const path = join(seedsFolder, seed);
      expect(existsSync(path), `seed ${seed} is missing from ${seedsFolder}`).toBe(true);
      const lines = readFileSync(path, 'utf8').split('\n');
      headings.set(seed, new Set(lines.filter((l) => /^#+ /.test(l)).map((l) => l.replace(/^#+\s*/, '').trim())));
    }
    for (const r of raw.requirements) {
      const parsed = parseSource(r.source);
      if (!parsed) throw new Error(`${r.id} has an unparsable source`);
      expect(headings.get(parsed.seed)?.has(parsed.section), `${r.id}: no heading "${parsed.section}" in ${parsed.seed}`).toBe(true);
    }
  });

  it.skipIf(!haveReference)('cites official schema definitions that exist (needs ../shared/reference)', () => {
    type Definition = { properties?: Record<string, { properties?: Record<string, unknown> }> };
    const schemas = new Map<string, Record<string, Definition>>();
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const schema = JSON.parse(readFileSync(join(referenceFolder, version, 'schema.json'), 'utf8')) as {
        definitions?: Record<string, Definition>;
        $defs?: Record<string, Definition>;
      };
      schemas.set(version, (schema.$defs ?? schema.definitions) as Record<string, Definition>);
    }
    const defines = (defs: Record<string, Definition>, reference: string): boolean => {
      const [name, property] = reference.split('.') as [string, string | undefined];
      const definition = defs[name];
      if (definition === undefined) return false;
      if (property === undefined) return true;
      return (
        definition.properties?.[property] !== undefined ||
        definition.properties?.params?.properties?.[property] !== undefined ||
        defs[`${name}Params`]?.properties?.[property] !== undefined
      );
    };
    let checked = 0;
    for (const r of raw.requirements) {
      for (const match of r.source.matchAll(/official MCP schema (?:(\d{4}-\d{2}-\d{2}) )?([A-Za-z.]+(?: \/ [A-Za-z.]+)*)/g)) {
        const versions = match[1] ? [match[1]] : [...schemas.keys()];
        for (const reference of (match[2] as string).split(' / ')) {
          checked++;
          expect(
            versions.some((v) => defines(schemas.get(v) as Record<string, Definition>, reference)),
            `${r.id} cites ${reference}${match[1] ? ` in ${match[1]}` : ''}`,
          ).toBe(true);
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('defines the IDs the other parts were promised, with their levels', () => {
    const expected: Record<string, string> = {
      'WT-DGRAM-4': 'INFO',
      'WT-ID-1': 'MUST',
    };
    for (let n = 1; n <= 5; n++) expected[`WT-FRAME-${n}`] = 'MUST';
    for (let n = 1; n <= 7; n++) expected[`WT-ENC-${n}`] = 'MUST';
    for (let n = 1; n <= 3; n++) expected[`WT-EXEC-${n}`] = 'MUST';
    for (const n of [1, 2, 3, 5, 6]) expected[`WT-DGRAM-${n}`] = 'MUST';
    const levels = new Map(raw.requirements.map((r) => [r.id, r.level]));
    for (const [id, level] of Object.entries(expected)) expect(levels.get(id), id).toBe(level);
  });
});

describe('docs/profile.md', () => {
  it('lists exactly the catalog IDs with the same levels', () => {
    const tableLevels = profileTableLevels();
    expect([...tableLevels.keys()].sort()).toEqual(raw.requirements.map((r) => r.id).sort());
    for (const r of raw.requirements) expect(tableLevels.get(r.id), r.id).toBe(r.level);
  });

  it('has every generated section up to date (run npx tsx scripts/generate-profile-tables.ts)', () => {
    for (const section of GENERATED_SECTIONS) {
      expect(extractSection(profile, section), section).toBe(renderSection(section, catalog));
    }
    expect(updateProfile(profile, catalog)).toBe(profile);
  });

  it('has a conflict entry for every conflict a requirement names, each with an anchor', () => {
    const entries = new Set([...profile.matchAll(/^### (C-[0-9]{2}):/gm)].map((m) => m[1] as string));
    for (const r of raw.requirements) {
      if (r.conflict === undefined) continue;
      expect(r.conflict).toMatch(CONFLICT_ID_PATTERN);
      expect(entries.has(r.conflict), `${r.id} names ${r.conflict}, which docs/profile.md does not define`).toBe(true);
    }
    for (const entry of entries) expect(profile, entry).toContain(`<a id="${entry.toLowerCase()}"></a>\n### ${entry}:`);
  });

  it('gives every conflict entry a decision, a reason and the accepted readings', () => {
    const entries = profile.split(/^<a id="c-[0-9]{2}"><\/a>$/m).slice(1).map((entry) => entry.split(/^## /m)[0] as string);
    expect(entries.length).toBeGreaterThanOrEqual(20);
    for (const entry of entries) {
      for (const part of ['**Decision.**', '**Reason.**', '**Accepted readings']) expect(entry, `${entry.slice(0, 60)}: ${part}`).toContain(part);
    }
  });

  it('numbers conflict entries C-01, C-02... and shapes at least one requirement with each', () => {
    const entries = [...profile.matchAll(/^### (C-[0-9]{2}):/gm)].map((m) => m[1] as string);
    expect(entries).toEqual(entries.map((_, i) => `C-${String(i + 1).padStart(2, '0')}`));
    const used = new Set(raw.requirements.map((r) => r.conflict).filter((c) => c !== undefined));
    for (const entry of entries) expect(used.has(entry), `no requirement names ${entry}`).toBe(true);
  });

  it('cites only requirement IDs that exist', () => {
    for (const id of profile.match(REQUIREMENT_ID_IN_TEXT) ?? []) expect(ids.has(id), id).toBe(true);
  });
});

describe('requirement IDs cited elsewhere', () => {
  it('exist when docs/architecture.md cites them', () => {
    const cited = architecture.match(REQUIREMENT_ID_IN_TEXT) ?? [];
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(ids.has(id), `docs/architecture.md cites ${id}`).toBe(true);
  });

  it('exist when source, schemas, vectors, suites, tests or scripts cite them', () => {
    const folders = ['src', 'schemas', 'vectors', 'suites', 'test', 'scripts', 'bench', 'docs'];
    const files: string[] = [];
    const walk = (folder: string): void => {
      if (!existsSync(folder)) return;
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|json|md)$/.test(name)) files.push(path);
      }
    };
    for (const folder of folders) walk(join(root, folder));
    const unknown: string[] = [];
    for (const file of files) {
      for (const id of readFileSync(file, 'utf8').match(REQUIREMENT_ID_IN_TEXT) ?? []) {
        if (!ids.has(id)) unknown.push(`${relative(root, file)}: ${id}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
