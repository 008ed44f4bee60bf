// Suite benchmark: the full server run (every server case) against the embedded mock server over
// loopback, timed from one run per transport: wall time (discovery included), checks recorded per
// second, and cases per second. Absolute numbers depend on the machine; compare runs on one machine.
// Run: npx tsx bench/suite.ts [--transport wt|http|both] [--workers 4]
import { performance } from 'node:perf_hooks';
import { CaseRegistry, httpTarget, runConformance, webTransportTarget, type RunResult } from '../src/harness/index.js';
import { startMockServer } from '../src/peer/server/index.js';
import { countsLine } from '../src/report/index.js';
import { serverCases } from '../suites/server/index.js';

const args = process.argv.slice(2);
function option(name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}
const transportArg = option('transport') ?? 'both';
if (!['wt', 'http', 'both'].includes(transportArg)) {
  console.error(`--transport must be wt, http or both, got ${JSON.stringify(transportArg)}`);
  process.exit(2);
}
const workers = Number(option('workers') ?? 4);
if (!Number.isSafeInteger(workers) || workers < 1) {
  console.error('--workers needs a positive integer');
  process.exit(2);
}
const transports = transportArg === 'both' ? (['wt', 'http'] as const) : ([transportArg] as ['wt' | 'http']);

interface Measure {
  transport: string;
  wallMs: number;
  cases: number;
  ran: number;
  checks: number;
  result: RunResult;
}

async function measure(transport: 'wt' | 'http'): Promise<Measure> {
  const registry = new CaseRegistry();
  registry.registerAll(serverCases());
  const server = await startMockServer({ transport, host: '127.0.0.1', port: 0 });
  try {
    const target = transport === 'wt' ? webTransportTarget(server.url, { client: { certificateHash: server.certificateHash! } }) : httpTarget(server.url);
    const began = performance.now();
    const result = await runConformance({ registry, target, workers });
    const wallMs = performance.now() - began;
    const executed = result.cases.filter((c) => c.verdict !== 'SKIPPED' && c.verdict !== 'NOT_APPLICABLE');
    return {
      transport,
      wallMs,
      cases: result.cases.length,
      ran: executed.length,
      checks: executed.reduce((sum, c) => sum + c.checks.length, 0),
      result,
    };
  } finally {
    await server.close();
  }
}

console.log(`server suites against the embedded mock server, ${workers} workers, ${serverCases().length} cases`);
for (const transport of transports) {
  const m = await measure(transport);
  const seconds = m.wallMs / 1000;
  console.log(
    `${m.transport.padEnd(5)} wall ${seconds.toFixed(2)} s  ` +
      `${m.ran} cases ran (${m.cases - m.ran} not applicable)  ${m.checks} checks  ` +
      `${(m.checks / seconds).toFixed(1)} checks/s  ${(m.ran / seconds).toFixed(2)} cases/s`,
  );
  console.log(`      ${countsLine(m.result.summary)}`);
}
