// The Dockerfile: a small Node 20 image whose entrypoint is the command line. Where a Docker daemon
// answers, the image is built and run (--version, and `server` against the mock server on the host
// network); elsewhere that part is skipped with the reason. What the build reads is checked always:
// every COPY source exists and is not kept out by .dockerignore, and the image holds every runtime
// path the package ships.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/index.js';
import { ROOT } from '../support/build.js';

const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const IGNORED = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; files: string[] };
const IMAGE = 'mcp-flow-conformance:test';

/** The instructions, continuation lines joined. */
const instructions = DOCKERFILE.replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** Whether .dockerignore leaves `path` out: the last pattern that matches it decides (`!` lets it back in). */
function ignored(path: string): boolean {
  let out = false;
  for (const line of IGNORED) {
    const pattern = line.startsWith('!') ? line.slice(1) : line;
    const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`);
    if (regex.test(path)) out = !line.startsWith('!');
  }
  return out;
}

/** Why the image cannot be built here, or undefined when a Docker daemon answers. */
function dockerUnavailable(): string | undefined {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 30_000 });
  if (info.error) return `docker is not installed (${info.error.message})`;
  if (info.status !== 0) return `no Docker daemon answers: ${(info.stderr || info.stdout).trim().split('\n').at(-1)}`;
  return undefined;
}

describe('Dockerfile', () => {
  it('builds on Node 20 in two stages and runs the command line as the entrypoint, as an unprivileged user', () => {
    const froms = instructions.filter((line) => line.startsWith('FROM '));
    expect(froms.length).toBe(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:20-alpine\b/);
    expect(instructions).toContain('ENTRYPOINT ["node", "/app/bin/mcp-flow-conformance.js"]');
    expect(instructions).toContain('USER node');
    expect(instructions).toContain('WORKDIR /work');
  });

  it('copies only what exists and .dockerignore lets through, and the image holds every runtime path the package ships', () => {
    const copied: string[] = [];
    for (const line of instructions.filter((instruction) => instruction.startsWith('COPY ') && !instruction.includes('--from='))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) {
        expect(existsSync(join(ROOT, source)), source).toBe(true);
        expect(ignored(source), `${source} is in .dockerignore`).toBe(false);
        copied.push(source.replace(/\/$/, ''));
      }
    }
    const fromBuild = instructions.filter((line) => line.startsWith('COPY --from=build')).map((line) => line.split(/\s+/)[2]!.replace(/^\/app\//, ''));
    // docs/ is shipped for readers of the package; nothing reads it at run time.
    for (const path of MANIFEST.files.filter((file) => file !== 'docs')) expect([...copied, ...fromBuild], path).toContain(path);
    for (const bulky of ['node_modules', 'dist', '.git', 'test']) expect(ignored(bulky), bulky).toBe(true);
  });

  it('builds, answers --version, and tests the mock server from the container', async (context) => {
    const unavailable = dockerUnavailable();
    if (unavailable !== undefined) context.skip(`cannot build the image here: ${unavailable}`);
    const build = spawnSync('docker', ['build', '--tag', IMAGE, ROOT], { encoding: 'utf8', timeout: 900_000 });
    expect(build.status, build.stderr).toBe(0);
    const version = spawnSync('docker', ['run', '--rm', IMAGE, '--version'], { encoding: 'utf8', timeout: 120_000 });
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    const server = await startMockServer({ transport: 'http', host: '127.0.0.1' });
    try {
      const run = spawnSync('docker', ['run', '--rm', '--network', 'host', IMAGE, 'server', '--url', server.url, '--case', 'mcp-core/tools-list'], { encoding: 'utf8', timeout: 300_000 });
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^1 passed, 0 failed, /);
    } finally {
      await server.close();
    }
  }, 1_200_000);
});
