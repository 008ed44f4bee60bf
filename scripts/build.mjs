// `npm run build` (also the prepare and prestart scripts): tsc into dist/, the bundled CLI
// (scripts/bundle-cli.mjs) and the schemas' standalone validators (scripts/schema-validators.mjs).
// Each step is skipped when what it makes is newer than everything it is made from: `npm start`
// builds first every time, and an up-to-date tsc still takes seconds to find nothing to do.
//
//   node scripts/build.mjs [dist folder, default dist]   builds what is out of date
//   node scripts/build.mjs --check [dist folder]          exit 0 when nothing is (test/support/build.ts)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const dist = resolve(args.find((arg) => !arg.startsWith('--')) ?? join(root, 'dist'));

/** The newest modification time of the files under `path` (a file or a folder) whose names pass `wanted`. */
function newest(path, wanted = () => true) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return wanted(path) ? stat.mtimeMs : 0;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry), wanted));
  return latest;
}

function run(script, ...scriptArgs) {
  const step = spawnSync(process.execPath, [script, ...scriptArgs], { cwd: root, stdio: 'inherit' });
  if (step.status !== 0) process.exit(step.status ?? 1);
}

const typescript = (file) => /\.(ts|json)$/.test(file);
const buildInfo = join(dist, 'tsconfig.build.tsbuildinfo');
const sources = Math.max(
  newest(join(root, 'src'), typescript),
  newest(join(root, 'suites'), typescript),
  ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((file) => newest(join(root, file))),
);
const compiledIsStale = () => !existsSync(buildInfo) || statSync(buildInfo).mtimeMs < sources;
const bundleIsStale = () =>
  newest(join(dist, 'bundle', 'main.mjs')) <
  Math.max(newest(join(dist, 'src'), (file) => file.endsWith('.js')), ...['bundle-cli.mjs', 'node-bundle.mjs'].map((file) => newest(join(root, 'scripts', file))));

if (checkOnly) process.exit(compiledIsStale() || bundleIsStale() ? 1 : 0);
if (compiledIsStale()) {
  run(join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--incremental', '--outDir', dist);
  // tsc leaves its build info as it was when nothing changed (a file saved again): date it now.
  const now = new Date();
  utimesSync(buildInfo, now, now);
}
if (bundleIsStale()) run(join(root, 'scripts', 'bundle-cli.mjs'), dist);
// It decides for itself (the schemas' fingerprint, the schema code's age).
run(join(root, 'scripts', 'schema-validators.mjs'), dist);
