// The layers of docs/architecture.md, from the imports themselves: each folder of src/ imports only
// from its own layer and the layers before it, the library entry (src/index.ts) builds on every
// layer but the CLI, and only the CLI and the library entry load the suites.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The layers in the order docs/architecture.md lists them; a layer imports from itself and those before it. */
const LAYERS = ['common', 'wire', 'vectors', 'schema', 'protocol', 'transport', 'judge', 'peer', 'harness', 'report', 'cli'];
/** Files at the top of src/ that every layer may use (they name where the package lives). */
const NEUTRAL = new Set(['src/package-folder.ts']);

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `common`, `wire`...; `index` for the library entry; `neutral`; `suites` for anything under suites/. */
function layerOf(path: string): string {
  if (path.startsWith('suites/')) return 'suites';
  if (NEUTRAL.has(path)) return 'neutral';
  const parts = path.split('/');
  return parts.length > 2 ? (parts[1] as string) : 'index';
}

function importsOf(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    found.push(relative(ROOT, normalize(join(ROOT, dirname(path), match[1] as string))).replace(/\.js$/, '.ts'));
  }
  return found;
}

function allowed(from: string, to: string): boolean {
  if (to === 'neutral' || from === to) return true;
  if (from === 'index') return to !== 'cli';
  if (to === 'suites') return from === 'cli';
  if (to === 'index') return false;
  return LAYERS.indexOf(to) >= 0 && LAYERS.indexOf(to) <= LAYERS.indexOf(from);
}

describe('the layers of src/', () => {
  const files = sourceFiles('src');

  it('every folder of src/ is a layer of docs/architecture.md', () => {
    const folders = new Set(files.map(layerOf).filter((layer) => layer !== 'index' && layer !== 'neutral'));
    expect([...folders].filter((folder) => !LAYERS.includes(folder))).toEqual([]);
  });

  it('each file imports only from its own layer and the layers before it; nothing outside the CLI imports the CLI', () => {
    const upward = files.flatMap((file) => importsOf(file).filter((target) => !allowed(layerOf(file), layerOf(target))).map((target) => `${file} -> ${target}`));
    expect(upward).toEqual([]);
  });
});
