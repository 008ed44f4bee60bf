// Suite benchmark: the whole `server` run (every server case, default options unless told) against
// each target and transport, timed from one run each: wall time (pre-flight and discovery
// included), cases, checks, checks per second, and the five slowest cases with what they waited
// out (the `waits` each case result records: silence windows, passed deadlines, sleeps). The
// goals of issue 14 are printed next to the figures. Absolute numbers depend on the machine and
// its load; compare runs on one machine.
//
// Targets: the embedded mock server over WebTransport (mock-wt), Streamable HTTP (mock-http) and
// stdio (mock-stdio: a new mock per case in this process on piped stdio, as the self-test serves
// it; mock-stdio-process: the command-line mock, one process per case, no goal of its own), and
// @modelcontextprotocol/server-everything over Streamable HTTP (everything-http: one process) and
// stdio (everything-stdio: one process per case), started the way test/interop starts it.
//
// Run: npm run bench:suite -- [--target mock-wt,mock-http,...] [--workers n] [--timeout-scale 1]
//      (--workers: default the run's own, 4, or 8 over stdio)
//      [--json <file>] (the run results, for comparing runs case by case)
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CaseRegistry, httpTarget, runConformance, shellQuote, stdioTarget, webTransportTarget, type CaseResult, type RunResult, type Target } from '../src/harness/index.js';
import { pipedMockServer, startMockServer } from '../src/peer/server/index.js';
import { countsLine } from '../src/report/index.js';
import { serverCases } from '../suites/server/index.js';
import { startHttpPeer, stdioCommand } from '../test/interop/peer-process.js';
import { SERVER_EVERYTHING } from '../test/interop/peers.js';
import { distIsCurrent } from '../test/support/build.js';
import { cliCommand } from '../test/support/cli.js';

/** The official MCP conformance runner against server-everything: 32 checks in 1.5 s (issue 14). */
const OFFICIAL_CHECKS_PER_S = 32 / 1.5;

interface BenchTarget {
  name: string;
  /** Wall-time goal of the whole run in seconds (issue 14), if it has one. */
  goalS?: number;
  /** Starts a process per case (the figures then say what that costs at least). */
  processPerCase?: boolean;
  /** Starts what the run needs; `stop` ends it. */
  start(): Promise<{ target: Target; stop(): Promise<void> }>;
}

/** The command-line stdio mock (the compiled CLI when dist/ is current). */
const mockStdioCommand = () => cliCommand('mock-server', '--transport', 'stdio').map(shellQuote).join(' ');

const TARGETS: readonly BenchTarget[] = [
  {
    name: 'mock-wt',
    goalS: 5,
    async start() {
      const server = await startMockServer({ transport: 'wt', host: '127.0.0.1', port: 0 });
      return { target: webTransportTarget(server.url, { client: { certificateHash: server.certificateHash! } }), stop: () => server.close() };
    },
  },
  {
    name: 'mock-http',
    goalS: 5,
    async start() {
      const server = await startMockServer({ transport: 'http', host: '127.0.0.1', port: 0 });
      return { target: httpTarget(server.url), stop: () => server.close() };
    },
  },
  {
    name: 'mock-stdio',
    goalS: 5,
    async start() {
      // As the self-test serves it: a new mock per case in this process, on piped stdio.
      return { target: stdioTarget(mockStdioCommand(), { launch: pipedMockServer() }), stop: async () => undefined };
    },
  },
  {
    name: 'mock-stdio-process',
    processPerCase: true,
    async start() {
      // The command-line mock, a process per case (`self-test --transport stdio-process`).
      return { target: stdioTarget(mockStdioCommand()), stop: async () => undefined };
    },
  },
  {
    name: 'everything-http',
    goalS: 3,
    async start() {
      const peer = await startHttpPeer(SERVER_EVERYTHING.http);
      return { target: httpTarget(peer.url), stop: () => peer.close() };
    },
  },
  {
    name: 'everything-stdio',
    goalS: 15,
    processPerCase: true,
    async start() {
      return { target: stdioTarget(stdioCommand(SERVER_EVERYTHING.stdio)), stop: async () => undefined };
    },
  },
];

const args = process.argv.slice(2);
function option(name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}
function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const names = (option('target') ?? TARGETS.map((t) => t.name).join(',')).split(',').filter((n) => n !== '');
for (const name of names) if (!TARGETS.some((t) => t.name === name)) fail(`--target: unknown target ${JSON.stringify(name)} (known: ${TARGETS.map((t) => t.name).join(', ')})`);
const workers = option('workers') === undefined ? undefined : Number(option('workers'));
if (workers !== undefined && (!Number.isSafeInteger(workers) || workers < 1)) fail(`--workers needs a positive integer, got ${JSON.stringify(option('workers'))}`);
const timeoutScale = Number(option('timeout-scale') ?? 1);
if (!Number.isFinite(timeoutScale) || timeoutScale <= 0) fail(`--timeout-scale needs a positive number, got ${JSON.stringify(option('timeout-scale'))}`);
const jsonFile = option('json');

/**
 * CPU seconds used so far by this process and by its children that ended (Linux: /proc/self/stat
 * utime, stime, cutime, cstime); undefined elsewhere.
 */
function cpuSeconds(): { own: number; children: number } | undefined {
  try {
    // The fields after the command name (which may hold spaces) start at the third: state.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = (i: number) => Number(fields[i - 3]) / CLOCK_TICKS;
    return { own: tick(14) + tick(15), children: tick(16) + tick(17) };
  } catch {
    return undefined;
  }
}
/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux, whatever the kernel's HZ). */
const CLOCK_TICKS = 100;
const CORES = availableParallelism();

/** CPU seconds a bare `node -e 0` costs on this machine (median of 7), to say what a process per case costs at least. */
function bareNodeCpuS(): number | undefined {
  const costs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const before = cpuSeconds();
    spawnSync(process.execPath, ['-e', '0']);
    const after = cpuSeconds();
    if (before === undefined || after === undefined) return undefined;
    costs.push(after.children - before.children);
  }
  return costs.sort((a, b) => a - b)[3];
}

interface Measure {
  name: string;
  goalS?: number;
  processPerCase: boolean;
  wallS: number;
  /** CPU seconds of the run: the harness (and an in-process target), and the processes it started. */
  cpu?: { own: number; children: number };
  ran: number;
  total: number;
  checks: number;
  result: RunResult;
}

async function measure(bench: BenchTarget): Promise<Measure> {
  const registry = new CaseRegistry();
  registry.registerAll(serverCases());
  const { target, stop } = await bench.start();
  try {
    const began = performance.now();
    const cpuBefore = cpuSeconds();
    const result = await runConformance({ registry, target, ...(workers !== undefined ? { workers } : {}), timeoutScale });
    const cpuAfter = cpuSeconds();
    const wallS = (performance.now() - began) / 1000;
    const executed = result.cases.filter((c) => c.verdict !== 'SKIPPED' && c.verdict !== 'NOT_APPLICABLE');
    return {
      name: bench.name,
      ...(bench.goalS !== undefined ? { goalS: bench.goalS } : {}),
      processPerCase: bench.processPerCase === true,
      wallS,
      ran: executed.length,
      total: result.cases.length,
      checks: executed.reduce((sum, c) => sum + c.checks.length, 0),
      result,
      ...(cpuBefore !== undefined && cpuAfter !== undefined ? { cpu: { own: cpuAfter.own - cpuBefore.own, children: cpuAfter.children - cpuBefore.children } } : {}),
    };
  } finally {
    await stop();
  }
}

/** What a case waited out, summed by kind and what, longest first: "silence 2x300 ms (a message)". */
function waitsLine(c: CaseResult): string {
  const groups = new Map<string, { count: number; ms: number }>();
  for (const wait of c.waits ?? []) {
    const key = `${wait.kind}: ${wait.what}`;
    const group = groups.get(key) ?? { count: 0, ms: 0 };
    group.count++;
    group.ms += wait.ms;
    groups.set(key, group);
  }
  if (groups.size === 0) return 'no wait ran out';
  return [...groups]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 4)
    .map(([key, g]) => `${key} ${g.count > 1 ? `${g.count}x, ` : ''}${(g.ms / 1000).toFixed(2)} s`)
    .join('; ');
}

/** "goal <= 5 s: met", or that the target has no goal. */
function goalText(m: Measure): string {
  if (m.goalS === undefined) return 'no goal';
  return `goal <= ${m.goalS} s: ${m.wallS <= m.goalS ? 'met' : 'NOT met'}`;
}

function report(m: Measure): void {
  const rate = m.checks / m.wallS;
  console.log(`\n${m.name}: wall ${m.wallS.toFixed(2)} s (${goalText(m)})`);
  console.log(
    `  ${m.ran} cases ran of ${m.total} (${m.total - m.ran} not applicable or skipped), ${m.checks} checks, ${rate.toFixed(1)} checks/s ` +
      `(${(rate / OFFICIAL_CHECKS_PER_S).toFixed(2)}x the official runner's ${OFFICIAL_CHECKS_PER_S.toFixed(1)} checks/s)`,
  );
  const caseSum = m.result.cases.reduce((sum, c) => sum + c.durationMs, 0) / 1000;
  console.log(`  sum of case times ${caseSum.toFixed(1)} s over ${String(m.result.options['workers'])} workers; ${countsLine(m.result.summary)}`);
  if (m.cpu !== undefined) {
    // A run cannot end sooner than its CPU time spread over every core: the floor of its wall time here.
    const total = m.cpu.own + m.cpu.children;
    console.log(
      `  CPU ${total.toFixed(1)} s: harness (and an in-process target) ${m.cpu.own.toFixed(1)} s, processes it started ${m.cpu.children.toFixed(1)} s; ` +
        `floor on ${CORES} cores ${(total / CORES).toFixed(2)} s (wall/floor ${(m.wallS / (total / CORES)).toFixed(2)})`,
    );
    if (bareNode !== undefined && m.processPerCase) {
      console.log(
        `  a process per case: ${m.ran} cases x a bare \`node -e 0\` (${(bareNode * 1000).toFixed(0)} ms CPU) on ${CORES} cores = ${((m.ran * bareNode) / CORES).toFixed(2)} s before any case does anything`,
      );
    }
  }
  console.log('  slowest cases:');
  for (const c of [...m.result.cases].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5)) {
    console.log(`    ${(c.durationMs / 1000).toFixed(2).padStart(6)} s  ${c.id} ${c.verdict}: ${waitsLine(c)}`);
  }
}

console.log(`server run, every server case (${serverCases().length}), ${workers === undefined ? 'default workers' : `${workers} workers`}, --timeout-scale ${timeoutScale}, ${CORES} cores`);
const bareNode = names.some((n) => TARGETS.find((t) => t.name === n)!.processPerCase === true) ? bareNodeCpuS() : undefined;
if (names.includes('mock-stdio-process') && !distIsCurrent()) {
  // cliCommand falls back to the sources through tsx, whose start costs several times the compiled CLI's.
  console.log('note: dist/ is older than the sources, so mock-stdio-process runs the CLI through tsx: `npm run bench:suite` builds first');
}
const measures: Measure[] = [];
for (const name of names) {
  const m = await measure(TARGETS.find((t) => t.name === name)!);
  measures.push(m);
  report(m);
}
console.log('\nsummary:');
for (const m of measures) {
  console.log(`  ${m.name.padEnd(19)} ${m.wallS.toFixed(2).padStart(7)} s (${m.goalS !== undefined ? `goal ${m.goalS} s` : 'no goal'})  ${m.checks} checks  ${(m.checks / m.wallS).toFixed(1)} checks/s`);
}
if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify(measures.map((m) => ({ name: m.name, wallS: m.wallS, result: m.result })), null, 1));
