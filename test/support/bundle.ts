// A TypeScript script run as a process per case, bundled once into one plain .mjs file: a child
// process then starts as plain node, about three times cheaper in CPU than `node --import tsx`
// (which loads its loader, then every module of the sources through it). The packages are inside
// it but the WebTransport library's native HTTP/3 addon, which node must find in node_modules: it
// is written inside the repository (the ignored .vitest-cache/ folder), in a folder of this
// process's own, removed when it exits (vitest's workers were seen to end without an 'exit'
// event: the next process that bundles removes the folders of processes that are gone).
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { OUTSIDE, REQUIRE_SHIM } from '../../scripts/node-bundle.mjs';
import { ROOT } from './build.js';

const cache = join(ROOT, '.vitest-cache');
const folder = join(cache, `bundles-${process.pid}`);
const bundles = new Map<string, Promise<string>>();

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the bundle folders of processes that are gone. */
function removeOrphans(): void {
  for (const name of readdirSync(cache)) {
    const pid = /^bundles-(\d+)$/.exec(name)?.[1];
    if (pid !== undefined && !running(Number(pid))) rmSync(join(cache, name), { recursive: true, force: true });
  }
}

/** The argv that runs the TypeScript file `entry` (an absolute path) as plain node, bundled once per test process. */
export async function bundledScript(entry: string): Promise<string[]> {
  let bundle = bundles.get(entry);
  if (bundle === undefined) {
    if (bundles.size === 0) {
      mkdirSync(folder, { recursive: true });
      removeOrphans();
      process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    }
    const outfile = join(folder, `${bundles.size}-${basename(entry).replace(/\.ts$/, '')}.mjs`);
    bundle = build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      // The packages inside too (the WebTransport library's many modules load at each connect).
      external: OUTSIDE,
      banner: REQUIRE_SHIM,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
    }).then(() => outfile);
    bundles.set(entry, bundle);
  }
  return [process.execPath, await bundle];
}
