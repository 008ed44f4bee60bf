// The package as a user installs it: `npm pack`, then `npm install <tarball>` into a new project
// (from the local file; its dependencies from npm's cache, the registry only for what the cache
// lacks: where neither has them the test is skipped with the reason), then, from that project, the
// command (--help, --version, `server` against the mock server), the library entry and the
// vitest entry. A dependency the package needs at run time but declares only for development (as
// fast-check once was) fails here with ERR_MODULE_NOT_FOUND.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMockServer } from '../../src/index.js';
import { ensureDist, ROOT } from '../support/build.js';

const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const CASES = ['mcp-core/results-are-objects', 'mcp-core/tools-list'];
/** npm's errors that mean "nothing to install from": no registry and not in the cache. */
const UNREACHABLE = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTCACHED|ENETUNREACH|network/i;

/** The environment of a user's shell: nothing from the npm script or the vitest worker running this test. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|VITEST|NODE_OPTIONS$|TSX)/i.test(key)) env[key] = value;
  }
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0' };
}

function run(command: string, args: string[], cwd: string, timeout = 120_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: userEnv(), encoding: 'utf8', timeout });
}

/** As `run`, without blocking this process (the mock server it talks to lives here). */
function runAsync(command: string, args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('the packed package, installed into a new project', () => {
  let dir: string;
  let project: string;
  let server: RunningMockServer;
  let skipReason: string | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-flow-package-'));
    project = join(dir, 'consumer');
    // `npm ci` builds dist/ (the prepare script); after a change to the sources it is rebuilt here.
    ensureDist();
    const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
    expect(pack.status, pack.stderr).toBe(0);
    const { filename } = (JSON.parse(pack.stdout) as { filename: string }[])[0]!;
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    // The optional HTTP/3 package is left out: its install step downloads a binary from outside the registry.
    const install = run('npm', ['install', join(dir, filename), '--prefer-offline', '--omit=optional', '--no-audit', '--no-fund', '--loglevel=error'], project, 240_000);
    if (install.status !== 0) {
      const why = `${install.stderr}${install.stdout}`;
      if (UNREACHABLE.test(why)) skipReason = `npm could not install the tarball's dependencies (not in the cache and no registry): ${why.trim().split('\n')[0]}`;
      else expect.fail(`npm install of the packed tarball failed:\n${why}`);
    }
    server = await startMockServer({ transport: 'http' });
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the command: --help, --version, and `server` against the mock server', async (context) => {
    if (skipReason) context.skip(skipReason);
    const bin = join(project, 'node_modules', '.bin', MANIFEST.name);
    const help = run(bin, ['--help'], project);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('mcp-flow-conformance server');
    const version = run(bin, ['--version'], project);
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    const serverRun = await runAsync(bin, ['server', '--url', server.url, '--case', CASES.join(',')], project);
    expect(serverRun.status, serverRun.stdout + serverRun.stderr).toBe(0);
    expect(serverRun.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed, /);
  });

  it('imports the library entry and runs the suites from code', async (context) => {
    if (skipReason) context.skip(skipReason);
    const script = [
      "import { runServerConformance } from 'mcp-flow-conformance';",
      `const result = await runServerConformance({ url: ${JSON.stringify(server.url)}, cases: ${JSON.stringify(CASES)} });`,
      'console.log(JSON.stringify({ exitCode: result.exitCode, cases: result.cases.map((c) => c.id) }));',
    ].join('\n');
    const library = await runAsync(process.execPath, ['--input-type=module', '-e', script], project);
    expect(library.status, library.stderr).toBe(0);
    expect(JSON.parse(library.stdout)).toEqual({ exitCode: 0, cases: CASES });
  });

  it('runs the vitest entry: each case a test', async (context) => {
    if (skipReason) context.skip(skipReason);
    // vitest is an optional peer dependency: the project brings its own (this repository's, linked).
    symlinkSync(realpathSync(join(ROOT, 'node_modules', 'vitest')), join(project, 'node_modules', 'vitest'), 'dir');
    writeFileSync(
      join(project, 'conformance.test.mjs'),
      [
        "import { defineConformanceTests } from 'mcp-flow-conformance/vitest';",
        `defineConformanceTests({ target: { url: ${JSON.stringify(server.url)} }, cases: ${JSON.stringify(CASES)} });`,
      ].join('\n'),
    );
    const tests = await runAsync(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', project], project);
    expect(tests.status, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/Tests\s+2 passed/);
  });
});
