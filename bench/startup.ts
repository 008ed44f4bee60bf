// Startup benchmark: how long the compiled CLI takes to be useful, as ratios to a bare `node -e 0`
// measured in the same run (rounds interleaved, median of each):
//   - the stdio mock server (`mock-server --transport stdio`, as the self-test and `server --stdio`
//     start it, once per case): spawn to the answer of a ping sent at once, and to the answer of a
//     first tools/call (after initialize, which loads what a tool call needs);
//   - the CLI: `--version` and `server --list` (every server case loaded), spawn to exit.
// Run: npm run build && npx tsx bench/startup.ts [--rounds 15]   (or npm run bench:startup)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 15;
if (!Number.isSafeInteger(ROUNDS) || ROUNDS <= 0) {
  console.error('--rounds needs a positive integer');
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = fileURLToPath(new URL('../bin/mcp-flow-conformance.js', import.meta.url));
if (!existsSync(fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url)))) {
  console.error('dist/ is missing: run npm run build first (the benchmark measures the compiled CLI, as npm start runs it)');
  process.exit(2);
}

const line = (message: object) => `${JSON.stringify(message)}\n`;
const PING = [line({ jsonrpc: '2.0', id: 1, method: 'ping' })];
const TOOL_CALL = [
  line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
];

/** Milliseconds from spawn to the process's exit (its output thrown away). */
function untilExit(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, argv, { cwd: root, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - began) : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}

/** Milliseconds from spawn to the stdio mock's answer to the request with id `answerId`, all `lines` written at once. */
function untilAnswer(lines: string[], answerId: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, [bin, 'mock-server', '--transport', 'stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
    let elapsed: number | undefined;
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf('\n'); end >= 0 && elapsed === undefined; end = pending.indexOf('\n')) {
        const answer = JSON.parse(pending.slice(0, end)) as { id?: unknown; error?: unknown };
        pending = pending.slice(end + 1);
        if (answer.id !== answerId) continue;
        if (answer.error !== undefined) reject(new Error(`the mock refused the request: ${JSON.stringify(answer)}`));
        elapsed = performance.now() - began;
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('exit', () => (elapsed === undefined ? reject(new Error('the mock exited without answering')) : resolve(elapsed)));
    for (const text of lines) child.stdin.write(text);
  });
}

const measures: { name: string; run: () => Promise<number> }[] = [
  { name: 'node -e 0 (baseline)', run: () => untilExit(['-e', '0']) },
  { name: 'stdio mock: first answer (ping)', run: () => untilAnswer(PING, 1) },
  { name: 'stdio mock: first tools/call answer', run: () => untilAnswer(TOOL_CALL, 2) },
  { name: 'CLI --version', run: () => untilExit([bin, '--version']) },
  { name: 'CLI server --list', run: () => untilExit([bin, 'server', '--list']) },
];

const times = measures.map(() => [] as number[]);
// One warm-up round (disk cache), then the rounds, each measure once per round in turn.
for (const measure of measures) await measure.run();
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, measure] of measures.entries()) times[i]!.push(await measure.run());
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const baseline = median(times[0]!);
const width = Math.max(...measures.map((m) => m.name.length));
console.log(`startup, median of ${ROUNDS} rounds (ratio to node -e 0 in this run)`);
for (const [i, measure] of measures.entries()) {
  const ms = median(times[i]!);
  console.log(`${measure.name.padEnd(width)}  ${(ms / baseline).toFixed(1).padStart(5)}x  ${ms.toFixed(0).padStart(6)} ms`);
}
