// The committed vectors are exactly what scripts/generate-vectors.ts computes, so nobody can
// hand-edit them out of sync with the rules (or with the schema examples behind messages.json).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEED_001_INITIALIZE, VectorGeneratorInputError, generateVectorFiles, serializeVectorFile } from '../../scripts/generate-vectors.js';
import { fromHex } from '../../src/wire/index.js';
import { vectorFileNames, vectorFiles, vectorsDir } from './committed.js';

const generated = generateVectorFiles();

describe('vectors/ is up to date with scripts/generate-vectors.ts', () => {
  it('has exactly the files the generator writes', () => {
    expect(vectorFileNames).toEqual(Object.keys(generated).sort());
  });

  it.each(Object.keys(generated))('%s equals the generator output (fix: npx tsx scripts/generate-vectors.ts)', (name) => {
    const committed = readFileSync(join(vectorsDir, name), 'utf8');
    expect(committed === serializeVectorFile(generated[name]!), `vectors/${name} is stale: run npx tsx scripts/generate-vectors.ts`).toBe(true);
  });

  it('generates the same output twice (deterministic)', () => {
    expect(generateVectorFiles()).toEqual(generated);
  });

  it('refuses a package root without schemas/, naming the folder', () => {
    expect(() => generateVectorFiles(join(vectorsDir, 'no-such-root'))).toThrow(VectorGeneratorInputError);
    expect(() => generateVectorFiles(join(vectorsDir, 'no-such-root'))).toThrow(/no-such-root.schemas: cannot list the folder/);
  });

  it('documents every file in vectors/README.md', () => {
    const readme = readFileSync(join(vectorsDir, 'README.md'), 'utf8');
    for (const name of Object.keys(generated)) expect(readme).toContain(`\`${name}\``);
  });
});

describe('the seed 001 §2.1 initialize erratum', () => {
  const vector = vectorFiles['control.json']!.vectors.find((v) => v.id === 'control/seed-001-initialize')!;
  const bytes = fromHex(vector.hex);

  it('is a 227-byte body: prefix 00 00 00 e3, 231 bytes in all', () => {
    expect(bytes.length).toBe(231);
    expect(vector.hex.slice(0, 8)).toBe('000000e3');
    expect(Buffer.from(bytes.subarray(4)).toString('utf8')).toBe(SEED_001_INITIALIZE);
  });

  const seedPath = join(vectorsDir, '..', '..', 'shared', 'seeds');
  let seedText: string | undefined;
  try {
    const name = readdirSync(seedPath).find((n) => n.startsWith('001_'));
    seedText = name ? readFileSync(join(seedPath, name), 'utf8') : undefined;
  } catch {
    seedText = undefined;
  }
  it.skipIf(seedText === undefined)('carries the JSON of seed 001 §2.1 character for character (needs ../shared/seeds)', () => {
    const line = seedText!.split('\n').find((l) => l.startsWith('{"jsonrpc":"2.0","id":1,"method":"initialize"'));
    expect(line).toBe(SEED_001_INITIALIZE);
  });
});
