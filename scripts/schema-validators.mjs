// Compiles every schema under schemas/ into standalone validators in <dist>/schema-validators/
// (src/schema/standalone.ts says why and when a registry uses them). Run by `npm run build` after
// tsc, from the compiled registry: node scripts/schema-validators.mjs [dist folder, default dist]
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const { SchemaRegistry } = await import(pathToFileURL(join(dist, 'src', 'schema', 'registry.js')).href);
const { STANDALONE_FOLDER } = await import(pathToFileURL(join(dist, 'src', 'schema', 'standalone.js')).href);
const require = createRequire(import.meta.url);
const folder = join(dist, STANDALONE_FOLDER);

// Nothing to do when the validators were compiled from these schemas, by this registry code (tsc
// rewrites a module only when its source changed) and this ajv: npm start builds every time.
// The sources too, when there are (code run from them uses the validators only if they are older).
const sources = join(dist, '..', 'src', 'schema');
const compiler = [
  ...readdirSync(join(dist, 'src', 'schema')).filter((name) => name.endsWith('.js')).map((name) => join(dist, 'src', 'schema', name)),
  ...(existsSync(sources) ? readdirSync(sources).filter((name) => name.endsWith('.ts')).map((name) => join(sources, name)) : []),
];
const ajvVersion = JSON.parse(readFileSync(require.resolve('ajv/package.json'), 'utf8')).version;
const indexFile = join(folder, 'index.json');
if (existsSync(indexFile)) {
  const builtAt = statSync(indexFile).mtimeMs;
  const index = JSON.parse(readFileSync(indexFile, 'utf8'));
  const registry = SchemaRegistry.load();
  if (index.ajv === ajvVersion && registry.usesStandalone && compiler.every((file) => statSync(file).mtimeMs < builtAt)) process.exit(0);
}

const standalone = require('ajv/dist/standalone/index.js').default;
const { index, shape, named } = SchemaRegistry.standaloneCode(standalone);
rmSync(folder, { recursive: true, force: true });
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'shape.cjs'), shape);
writeFileSync(join(folder, 'named.cjs'), named);
// The index last: a folder without it is never used.
writeFileSync(indexFile, `${JSON.stringify({ ...index, ajv: ajvVersion })}\n`);
