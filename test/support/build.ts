// dist/ as `npm ci` leaves it (its prepare script builds): tests that run the package as installed
// (the packed tarball, the GitHub Action) need it current. In CI it is; after a change to the
// sources it is rebuilt here, once at a time (a lock folder), into a fresh folder that replaces
// dist/ in one rename, so a test reading dist/ meanwhile never sees half a build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Whether dist/ was built after the last change to src/ and suites/. An incremental build
 * (`npm run build`) rewrites only what changed, and its build info file every time it builds.
 */
export function distIsCurrent(): boolean {
  const built = join(ROOT, 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(built)) return false;
  const info = join(ROOT, 'dist', 'tsconfig.build.tsbuildinfo');
  const builtAt = Math.max(statSync(built).mtimeMs, existsSync(info) ? statSync(info).mtimeMs : 0);
  return Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'suites'))) <= builtAt;
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
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', fresh], { cwd: ROOT, encoding: 'utf8' });
    if (tsc.status !== 0) throw new Error(`the build failed:\n${tsc.stdout}${tsc.stderr}`);
    // The rest of `npm run build`: the bundled CLI and the schemas' standalone validators.
    for (const script of ['bundle-cli.mjs', 'schema-validators.mjs']) {
      const step = spawnSync(process.execPath, [join(ROOT, 'scripts', script), fresh], { cwd: ROOT, encoding: 'utf8' });
      if (step.status !== 0) throw new Error(`the build failed (scripts/${script}):\n${step.stdout}${step.stderr}`);
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
