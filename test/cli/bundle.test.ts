// The bundled CLI (scripts/bundle-cli.mjs) is the compiled CLI joined, with string-width loaded at
// its first call: a command that lays out no help text never builds its Intl.Segmenter and
// Unicode regexps, and a help text is the same as the unbundled CLI prints.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDist, ROOT } from '../support/build.js';

/**
 * Runs `main(argv)` of the CLI module `entry` (under dist/) in a fresh node, counting the
 * Intl.Segmenter objects built (string-width builds one when its module is evaluated).
 */
function run(entry: string, argv: string[]): { stdout: string; segmenters: number } {
  const script = [
    'let built = 0;',
    'const Segmenter = Intl.Segmenter;',
    'Intl.Segmenter = class extends Segmenter { constructor(...args) { super(...args); built++; } };',
    `const { main } = await import(${JSON.stringify(join(ROOT, 'dist', entry))});`,
    'const out = [];',
    `const code = await main(${JSON.stringify(argv)}, { out: (text) => out.push(text), err: (text) => out.push(text), readStdin: async () => '', env: {} });`,
    'process.stdout.write(JSON.stringify({ code, stdout: out.join("\\n"), segmenters: built }));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (child.status !== 0) throw new Error(`${entry} ${argv.join(' ')} failed: ${child.stderr}`);
  const result = JSON.parse(child.stdout) as { code: number; stdout: string; segmenters: number };
  expect(result.code).toBe(0);
  return result;
}

/** The modules (as the bundle's `// path` comments name them) that loading `file` evaluates: its static imports, transitively. */
function modulesLoadedBy(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return new Set();
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const modules = new Set([...text.matchAll(/^\/\/ (\S+)$/gm)].map((match) => match[1]!));
  for (const match of text.matchAll(/^import\s(?:[^;]*?\sfrom\s*)?"(\.[^"]+)"/gm)) {
    for (const module of modulesLoadedBy(resolve(dirname(file), match[1]!), seen)) modules.add(module);
  }
  return modules;
}

const BUNDLE = join(ROOT, 'dist', 'bundle');

/** The modules starting `command` evaluates: the bundle's front door, and its command's chunk (asserted to exist). */
function modulesStarting(command: string): string[] {
  const chunk = readdirSync(join(BUNDLE, 'chunks')).find((name) => name.startsWith(`${command}-`));
  expect(chunk, `the chunk of ${command}`).toBeDefined();
  return [...modulesLoadedBy(join(BUNDLE, 'main.mjs')), ...modulesLoadedBy(join(BUNDLE, 'chunks', chunk!))];
}

describe('the bundled CLI', () => {
  beforeAll(() => void ensureDist(), 240_000);

  it('starts a command run per case (mock-server, mock-client) without the harness (its error classes aside), the reports or fast-check', () => {
    for (const command of ['mock-server', 'mock-client', 'server']) {
      const heavy = modulesStarting(command).filter((module) => /^(dist\/src\/(harness|report)\/|node_modules\/fast-check\/)/.test(module) && module !== 'dist/src/harness/errors.js');
      // The server command shows the rule can fail: it needs all three.
      if (command === 'server') expect(heavy.length).toBeGreaterThan(0);
      else expect(heavy, command).toEqual([]);
    }
  });

  it('starts mock-server and mock-client without yargs (quick-args.ts reads their command lines), and loads yargs for any other command', () => {
    const yargsIn = (modules: Iterable<string>) => [...modules].filter((module) => module.startsWith('node_modules/yargs/'));
    for (const command of ['mock-server', 'mock-client']) expect(yargsIn(modulesStarting(command)), command).toEqual([]);
    // main.ts imports it when yargs reads the line: its chunk is there, the rule above can fail.
    const yargsChunks = readdirSync(join(BUNDLE, 'chunks')).filter((name) => yargsIn(modulesLoadedBy(join(BUNDLE, 'chunks', name))).length > 0);
    expect(yargsChunks.length).toBeGreaterThan(0);
  });

  it('starts mock-server without cbor-x (over stdio it speaks JSON alone), which the server command loads', () => {
    const cborIn = (command: string) => modulesStarting(command).filter((module) => module.startsWith('node_modules/cbor-x/'));
    expect(cborIn('mock-server')).toEqual([]);
    expect(cborIn('server').length).toBeGreaterThan(0);
  });

  it('builds no Intl.Segmenter for a command line that shows no help', () => {
    expect(run('bundle/main.mjs', ['--version']).segmenters).toBe(0);
    expect(run('bundle/main.mjs', ['server', '--list']).segmenters).toBe(0);
  });

  it('lays out a help text as the unbundled CLI does (string-width loaded when first called)', () => {
    for (const argv of [['--help'], ['server', '--help']]) {
      const bundled = run('bundle/main.mjs', argv);
      expect(bundled.segmenters).toBeGreaterThan(0);
      expect(bundled.stdout).toBe(run('src/cli/main.js', argv).stdout);
    }
  });
});
