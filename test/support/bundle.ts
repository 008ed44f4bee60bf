// A TypeScript script run as a process per case, bundled once into one plain .mjs file: a child
// process then starts as plain node, about three times cheaper in CPU than `node --import tsx`
// (which loads its loader, then every module of the sources through it). The bundle keeps the
// packages external, so it is written inside the repository (the ignored .vitest-cache/ folder)
// where node finds node_modules, under a name of this process's own, removed when it exits.
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './build.js';

const folder = join(ROOT, '.vitest-cache', `bundles-${process.pid}`);
const bundles = new Map<string, Promise<string>>();

/** The argv that runs the TypeScript file `entry` (an absolute path) as plain node, bundled once per test process. */
export async function bundledScript(entry: string): Promise<string[]> {
  let bundle = bundles.get(entry);
  if (bundle === undefined) {
    if (bundles.size === 0) {
      mkdirSync(folder, { recursive: true });
      process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    }
    const outfile = join(folder, `${bundles.size}-${basename(entry).replace(/\.ts$/, '')}.mjs`);
    bundle = build({ entryPoints: [entry], outfile, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', logLevel: 'silent' }).then(() => outfile);
    bundles.set(entry, bundle);
  }
  return [process.execPath, await bundle];
}
