// Builds the CLI as one ES module with esbuild (a few hundred milliseconds), with one source file
// replaced by a mutant's text: each mutant is its own `mock-server` / `mock-client` command, which
// starts in a fraction of tsx's time. The bundles live in a temporary folder that links the
// package's data folders (schemas/, wizards/, suites/, vectors/, node_modules/), which the code
// finds by walking up from its own file.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

/** The folders and files the bundled code reads beside the package's code. */
const LINKED = ['node_modules', 'schemas', 'wizards', 'suites', 'vectors', 'package.json'];

export interface BundleWorkspace {
  readonly dir: string;
  /** Builds `<dir>/b/<name>/cli.mjs`, with `override` replacing one file's text; returns its path. */
  build(name: string, override?: { file: string; text: string }, options?: { sourcemap?: boolean }): Promise<string>;
  /** Removes one bundle's folder. */
  discard(bundle: string): void;
  /** Removes the whole workspace. */
  dispose(): void;
}

export function bundleWorkspace(root: string): BundleWorkspace {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-flow-mutation-'));
  for (const name of LINKED) symlinkSync(join(root, name), join(dir, name));
  const entry = resolve(root, 'src/cli/main.ts');
  return {
    dir,
    async build(name, override, options = {}) {
      const outdir = join(dir, 'b', name);
      mkdirSync(outdir, { recursive: true });
      const outfile = join(outdir, 'cli.mjs');
      const target = override ? resolve(root, override.file) : undefined;
      const plugins: esbuild.Plugin[] = override
        ? [
            {
              name: 'mutant',
              setup(build) {
                build.onLoad({ filter: /\.ts$/ }, (args) => (args.path === target ? { contents: override.text, loader: 'ts' } : undefined));
              },
            },
          ]
        : [];
      await esbuild.build({
        stdin: {
          contents: `import { main } from ${JSON.stringify(entry)};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
          resolveDir: root,
          loader: 'ts',
          sourcefile: 'mutation-entry.ts',
        },
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        outfile,
        sourcemap: options.sourcemap ? 'external' : false,
        sourcesContent: false,
        logLevel: 'silent',
        plugins,
      });
      return outfile;
    },
    discard(bundle) {
      rmSync(resolve(bundle, '..'), { recursive: true, force: true });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
