// The schemas' validators compiled once, at build time, into standalone code (ajv standalone,
// CommonJS): dist/schema-validators/ holds one module per reading of the schemas (their shape, the
// members they name) and an index with the fingerprint of the schemas they were compiled from.
// Compiling the schemas a run uses costs some seconds of CPU in every process that judges
// messages (a test worker, each `server` run); loading the compiled code costs tens of
// milliseconds. A registry uses them only when its schemas are exactly the ones compiled (the same
// fingerprint): other schemas (another root, a schema edited since the build) are compiled as
// before. scripts/schema-validators.mjs writes them after tsc (npm run build). Code running from
// the sources (tests, tsx) uses them only if no source of the schema code changed since they were
// written (a changed way of compiling would otherwise go unseen).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPackageFolder } from '../package-folder.js';
import type { LoadedSchema } from './model.js';

/** The validators of one reading: by schema `$id`. */
export type StandaloneValidators = Readonly<Record<string, ((instance: unknown) => boolean) & { errors?: unknown }>>;

export interface Standalone {
  shape: StandaloneValidators;
  named: StandaloneValidators;
}

/** The folder below dist/, and its index. */
export const STANDALONE_FOLDER = 'schema-validators';
const INDEX = 'index.json';

export interface StandaloneIndex {
  /** `schemasFingerprint` of the schemas compiled. */
  fingerprint: string;
  /** Export name -> schema `$id`, the same in both modules. */
  exports: Record<string, string>;
}

/** A digest of every schema (its file and its JSON), in file order: equal fingerprints, equal schemas. */
export function schemasFingerprint(schemas: readonly LoadedSchema[]): string {
  const hash = createHash('sha256');
  for (const loaded of [...schemas].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    hash.update(loaded.file).update('\0').update(JSON.stringify(loaded.schema)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * The compiled validators for these schemas, or undefined when there are none (not built, built
 * from other schemas, or unreadable: the caller compiles instead).
 */
export function loadStandalone(schemas: readonly LoadedSchema[], moduleUrl: string = import.meta.url): Standalone | undefined {
  const dist = findPackageFolder(moduleUrl, 'dist', join(STANDALONE_FOLDER, INDEX));
  if (dist === undefined) return undefined;
  const folder = join(dist, STANDALONE_FOLDER);
  try {
    const here = dirname(fileURLToPath(moduleUrl));
    if (relative(dist, here).startsWith('..') && !compiledAfterSources(here, statSync(join(folder, INDEX)).mtimeMs)) return undefined;
    const index = JSON.parse(readFileSync(join(folder, INDEX), 'utf8')) as StandaloneIndex;
    if (index.fingerprint !== schemasFingerprint(schemas)) return undefined;
    if (!existsSync(join(folder, 'shape.cjs')) || !existsSync(join(folder, 'named.cjs'))) return undefined;
    const require = createRequire(join(folder, INDEX));
    const byId = (module: Record<string, StandaloneValidators[string]>): StandaloneValidators =>
      Object.fromEntries(Object.entries(index.exports).map(([name, id]) => [id, module[name]!]));
    return { shape: byId(require('./shape.cjs')), named: byId(require('./named.cjs')) };
  } catch {
    return undefined;
  }
}

/** Whether every TypeScript source in `folder` (the schema code, run from the sources) is older than `builtAt`. */
function compiledAfterSources(folder: string, builtAt: number): boolean {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.ts'))
    .every((name) => statSync(join(folder, name)).mtimeMs < builtAt);
}
