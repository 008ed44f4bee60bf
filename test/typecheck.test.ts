// The type check of everything (tsc -p tsconfig.json --noEmit: sources, suites, tests, benches) as
// one test of `npm test`: it runs beside the other test files, started first (vitest.config.ts),
// instead of before all of them. `npm run typecheck` runs it alone. It keeps tsc's incremental
// state in the ignored .vitest-cache/ folder: a run after a change checks what the change can
// affect (6 s of CPU when nothing changed, against 23 s for all; a fresh clone checks all).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const buildInfo = fileURLToPath(new URL('../.vitest-cache/typecheck.tsbuildinfo', import.meta.url));

it('tsc -p tsconfig.json --noEmit finds no type error', async () => {
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', buildInfo, '--pretty', 'false'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.once('error', reject);
    child.once('close', (status) => resolve({ code: status, output }));
  });
  expect(output.trim()).toBe('');
  expect(code).toBe(0);
}, 600_000);
