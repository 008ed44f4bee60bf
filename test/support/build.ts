// dist/ as `npm ci` leaves it (its prepare script builds): tests that run the package as installed
// (the packed tarball, the GitHub Action) need it current. In CI it is; after a change to the
// sources it is rebuilt here by scripts/build.mjs, once at a time (a lock folder), into a fresh
// folder that replaces dist/ in one rename, so a test reading dist/ meanwhile never sees half a build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Whether dist/ is as `npm run build` leaves it after the last change to the sources (the compiled
 * modules and the bundled CLI): scripts/build.mjs --check, the one rule the build itself follows.
 */
export function distIsCurrent(): boolean {
  return spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--check'], { cwd: ROOT }).status === 0;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds dist/ unless it is current; returns whether it had to. */
export function ensureDist(): boolean {
  if (distIsCurrent()) return false;
  const lock = join(ROOT, '.dist-build.lock');
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is held for over 3 minutes: remove it if no build runs`);
      sleep(250);
    }
  }
  try {
    if (distIsCurrent()) return false;
    const fresh = join(ROOT, `.dist-build-${process.pid}`);
    rmSync(fresh, { recursive: true, force: true });
    // The whole build (scripts/build.mjs), into the fresh folder.
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), fresh], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) {
      rmSync(fresh, { recursive: true, force: true });
      throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
    }
    const old = join(ROOT, `.dist-old-${process.pid}`);
    if (existsSync(join(ROOT, 'dist'))) renameSync(join(ROOT, 'dist'), old);
    renameSync(fresh, join(ROOT, 'dist'));
    rmSync(old, { recursive: true, force: true });
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
