// Every MUST rests on words a document states (docs/profile.md §2, "Basis"): each has a basis with
// at least one seed quote, and every quote is found where its source says (seeds and the official
// MCP schemas here, where ../shared is present; MCP specification pages by scripts/check-basis.ts).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { containsQuote, normalizeQuoteText, schemaQuoteProblem, sectionsTitled, seedQuoteProblem } from '../../src/protocol/basis.js';
import { BASIS_SOURCE_PATTERNS, basisSourceKind, parseCatalog, readCatalog } from '../../src/protocol/requirements.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const catalog = readCatalog(join(root, 'suites', 'requirements.json'));
const seedsFolder = join(root, '..', 'shared', 'seeds');
const referenceFolder = join(root, '..', 'shared', 'reference', 'mcp-schema');
const seeds = existsSync(seedsFolder)
  ? new Map(readdirSync(seedsFolder).filter((f) => /^\d{3}_/.test(f)).map((f) => [f.slice(0, 3), readFileSync(join(seedsFolder, f), 'utf8')]))
  : undefined;
const schemas = existsSync(referenceFolder)
  ? new Map(readdirSync(referenceFolder).map((v) => [v, JSON.parse(readFileSync(join(referenceFolder, v, 'schema.json'), 'utf8')) as Record<string, unknown>]))
  : undefined;
const live = catalog.requirements.filter((r) => r.withdrawn === undefined);

describe('the basis of every MUST', () => {
  it('every MUST has a basis with at least one seed quote', () => {
    const missing = live
      .filter((r) => r.level === 'MUST')
      .filter((r) => !r.basis?.some((b) => basisSourceKind(b.source) === 'seed'))
      .map((r) => r.id);
    expect(missing, `MUSTs without a seed quote in "basis": ${missing.join(', ')}`).toEqual([]);
  });

  it('every basis source follows one of the patterns', () => {
    const bad = live.flatMap((r) => (r.basis ?? []).filter((b) => basisSourceKind(b.source) === undefined).map((b) => `${r.id}: ${b.source}`));
    expect(bad).toEqual([]);
  });

  it.skipIf(seeds === undefined)('every seed quote is in the seed section it names (../shared/seeds)', () => {
    const problems = live.flatMap((r) =>
      (r.basis ?? [])
        .filter((b) => basisSourceKind(b.source) === 'seed')
        .map((b) => {
          const seed = BASIS_SOURCE_PATTERNS.seed.exec(b.source)![1]!;
          const problem = seedQuoteProblem(b, seeds!.get(seed) ?? '');
          return problem === undefined ? undefined : `${r.id}: ${problem}`;
        })
        .filter((line): line is string => line !== undefined),
    );
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it.skipIf(schemas === undefined)('every MCP schema quote is in the descriptions of the definition it names (../shared/reference)', () => {
    const problems = live.flatMap((r) =>
      (r.basis ?? [])
        .filter((b) => basisSourceKind(b.source) === 'mcpSchema')
        .map((b) => {
          const version = BASIS_SOURCE_PATTERNS.mcpSchema.exec(b.source)![1]!;
          const problem = schemaQuoteProblem(b, schemas!.get(version) ?? {});
          return problem === undefined ? undefined : `${r.id}: ${problem}`;
        })
        .filter((line): line is string => line !== undefined),
    );
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('an audit record names the level the requirement had before', () => {
    for (const r of live.filter((x) => x.audit !== undefined)) expect(['MUST', 'SHOULD', 'MAY', 'INFO']).toContain(r.audit!.level);
  });
});

describe('quote matching', () => {
  const seed = '# Doc\n\n## Rules\n\n1. `initialize` request: **MUST** be JSON\n2. Other\n\n### Sub\n\nDeep words here.\n\n## Next\n\nNot here.\n';

  it('finds words in a section and its subsections, ignoring emphasis, ticks and list markers', () => {
    expect(sectionsTitled(seed, 'Rules')).toHaveLength(1);
    expect(seedQuoteProblem({ source: '001 §Rules', quote: 'initialize request: MUST be JSON' }, seed)).toBeUndefined();
    expect(seedQuoteProblem({ source: '001 §Rules', quote: 'Deep words here.' }, seed)).toBeUndefined();
  });

  it('refuses words from another section, a heading that does not exist, and changed words', () => {
    expect(seedQuoteProblem({ source: '001 §Rules', quote: 'Not here.' }, seed)).toMatch(/not in seed 001/);
    expect(seedQuoteProblem({ source: '001 §Nowhere', quote: 'Other' }, seed)).toMatch(/no section headed/);
    expect(seedQuoteProblem({ source: '001 §Rules', quote: 'initialize request: SHOULD be JSON' }, seed)).toMatch(/not in seed/);
  });

  it('normalises quotes and whitespace only', () => {
    expect(normalizeQuoteText('a  “b”\n  c')).toBe('a "b" c');
    expect(containsQuote('The Server **MUST NOT** reply', 'The Server MUST NOT reply')).toBe(true);
    expect(containsQuote('The Server MUST reply', 'The Server MUST NOT reply')).toBe(false);
  });

  it('finds schema quotes in a definition or one of its properties', () => {
    const schema = { definitions: { A: { description: 'Top words.', properties: { p: { description: 'The client MUST disconnect.' } } } } };
    expect(schemaQuoteProblem({ source: 'MCP schema 2025-06-18 A', quote: 'MUST disconnect' }, schema)).toBeUndefined();
    expect(schemaQuoteProblem({ source: 'MCP schema 2025-06-18 A.p', quote: 'MUST disconnect' }, schema)).toBeUndefined();
    expect(schemaQuoteProblem({ source: 'MCP schema 2025-06-18 A.p', quote: 'Top words.' }, schema)).toMatch(/not in the descriptions/);
    expect(schemaQuoteProblem({ source: 'MCP schema 2025-06-18 B', quote: 'x' }, schema)).toMatch(/no definition B/);
  });

  it('the loader refuses a malformed basis or audit', () => {
    const entry = { id: 'CORE-RPC-1', level: 'MUST', system: 'CORE', area: 'RPC', text: 't', source: '002_a41331816123f095.txt §Message Types', role: 'both', testable: true };
    expect(() => parseCatalog({ version: 1, requirements: [{ ...entry, basis: [] }] })).toThrow(/basis/);
    expect(() => parseCatalog({ version: 1, requirements: [{ ...entry, basis: [{ source: 'somewhere', quote: 'x' }] }] })).toThrow(/source/);
    expect(() => parseCatalog({ version: 1, requirements: [{ ...entry, basis: [{ source: '002 §Message Types', quote: '' }] }] })).toThrow(/quote/);
    expect(() => parseCatalog({ version: 1, requirements: [{ ...entry, audit: { level: 'OFTEN', why: 'x' } }] })).toThrow(/audit.level/);
    expect(parseCatalog({ version: 1, requirements: [{ ...entry, basis: [{ source: 'JSON-RPC 2.0 §4.1', quote: 'x' }], audit: { level: 'MUST', why: 'y' } }] }).requirements).toHaveLength(1);
  });
});
