// `npm run build` (also the prepare and prestart scripts): tsc into dist/, the bundled CLI
// (scripts/bundle-cli.mjs) and the schemas' standalone validators (scripts/schema-validators.mjs).
// Each step is skipped when what it makes is newer than everything it is made from: `npm start`
// builds first every time, and an up-to-date tsc still takes seconds to find nothing to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The newest modification time of the files under `path` (a file or a folder) whose names pass `wanted`. */
function newest(path, wanted = () => true) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return wanted(path) ? stat.mtimeMs : 0;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry), wanted));
  return latest;
}

function run(args) {
  const step = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (step.status !== 0) process.exit(step.status ?? 1);
}

const typescript = (file) => /\.(ts|json)$/.test(file);
const buildInfo = join(root, 'dist', 'tsconfig.build.tsbuildinfo');
const sources = Math.max(
  newest(join(root, 'src'), typescript),
  newest(join(root, 'suites'), typescript),
  ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((file) => newest(join(root, file))),
);
if (!existsSync(buildInfo) || statSync(buildInfo).mtimeMs < sources) {
  run([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--incremental']);
  // tsc leaves its build info as it was when nothing changed (a file saved again): date it now.
  const now = new Date();
  utimesSync(buildInfo, now, now);
}
const compiled = newest(join(root, 'dist', 'src'), (file) => file.endsWith('.js'));
if (newest(join(root, 'dist', 'bundle', 'main.mjs')) < Math.max(compiled, newest(join(root, 'scripts', 'bundle-cli.mjs')))) {
  run([join(root, 'scripts', 'bundle-cli.mjs')]);
}
run([join(root, 'scripts', 'schema-validators.mjs')]);
