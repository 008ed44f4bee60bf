// Bundles the compiled CLI (dist/src/cli/main.js, what tsc wrote) into dist/bundle/: one module for
// the command line and one chunk per command, with the pure-JavaScript packages inside. A process
// started per case (the stdio mock server, the mock client's driver) then reads a few files instead
// of some hundreds of modules resolved one by one: it answers its first message in about 60% of
// the time (bench/startup.ts). The bundle is the same compiled code, only joined; the library entry
// (dist/src/index.js) is not bundled. Packages loaded at run time by name (createRequire: ajv's
// runtime for generated validators, junit-report-builder) and the WebTransport library's native,
// optional HTTP/3 addon stay outside and come from node_modules (the library itself, pure
// JavaScript over HTTP/2, is inside).
//
// Run by `npm run build` after tsc: node scripts/bundle-cli.mjs [dist folder, default dist]
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { OUTSIDE, REQUIRE_SHIM } from './node-bundle.mjs';

/**
 * string-width (three copies, under yargs' help layout) builds an Intl.Segmenter and Unicode
 * property regexps when its module is evaluated: about 18 ms of every start (a tenth of the stdio
 * mock server's), though only a help text measures a string. Each import of it gets a stand-in
 * that loads the real module (bundled, unchanged) at its first call.
 */
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { real: true } });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-string-width' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents: [
        'let stringWidth;',
        `export default (text, options) => (stringWidth ??= require(${JSON.stringify(args.path)}).default)(text, options);`,
      ].join('\n'),
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

const dist = resolve(process.argv[2] ?? 'dist');
const outdir = join(dist, 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(dist, 'src', 'cli', 'main.js')],
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: OUTSIDE,
  banner: REQUIRE_SHIM,
  logLevel: 'warning',
  plugins: [lazyStringWidth],
});
