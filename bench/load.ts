// Load bench (issue 17): the mock server (a process of its own) under many MCP Flow clients at
// once. Each of N sessions (WebTransport sessions, or Streamable HTTP sessions) runs M
// registration wizards one after the other: interaction.start, then for every prompt the
// acknowledgement and an interaction.respond, then the answer to interaction.complete.
//   saturation: every session as fast as it can (closed loop); interaction.respond answered per
//               second over the whole phase is the throughput.
//   half rate:  the same work with the responds paced to half that throughput (one global
//               schedule); the latency of each respond (sent -> answered) gives p50 / p99.
// Prints both per transport with the mock's resident memory (RSS, and its peak) after each phase.
// Client and mock share the machine's cores: the figures are of the pair, on this machine.
// Run: npx tsx bench/load.ts [--sessions 100] [--interactions 10] [--transport wt,http]
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Connection, ReceivedMessage } from '../src/transport/connection.js';
import { connectHttp } from '../src/transport/http/index.js';
import { connectWebTransport, initializeSession } from '../src/transport/webtransport/index.js';
import { buildMock, memoryOf, mib, startMockProcess, type MockBuild, type MockProcess } from './support/mock-process.js';

export const LOAD_TRANSPORTS = ['wt', 'http'] as const;
export type LoadTransport = (typeof LOAD_TRANSPORTS)[number];

const PROTOCOL_VERSION = '2025-06-18';
const DEADLINE = { timeoutMs: 60_000 };
/** The registration wizard's answers, one per prompt, in order (wizards/registration.json). */
const ANSWERS: readonly unknown[] = ['Eve', 'eve@example.com', 33, 'free', true, null, null];

export interface LoadOptions {
  sessions: number;
  interactions: number;
  transports: readonly LoadTransport[];
  out: (line: string) => void;
}

export interface PhaseFigures {
  responds: number;
  /** Sessions that stopped on an error (each its first error), the others carrying on. */
  failures: string[];
  /** The connections that stopped. */
  failed: ReadonlySet<Connection>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  memory: { rss: number; peak: number } | undefined;
}

export interface LoadReport {
  transport: LoadTransport;
  saturation: PhaseFigures;
  halfRate: PhaseFigures & { targetPerSecond: number };
}

type Message = Record<string, any>;
const responseTo = (id: number) => (r: ReceivedMessage) => (r.message as Message)?.id === id && !('method' in (r.message as Message));
const serverRequest = (...methods: string[]) => (r: ReceivedMessage) => methods.includes((r.message as Message)?.method) && 'id' in (r.message as Message);

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function openSession(transport: LoadTransport, mock: MockProcess): Promise<Connection> {
  if (transport === 'wt') {
    const connection = await connectWebTransport(mock.url, { certificateHash: mock.certificateHash! });
    await initializeSession(connection, { timeoutMs: DEADLINE.timeoutMs });
    return connection;
  }
  const connection = await connectHttp(mock.url, { eventStream: true });
  await connection.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'load', version: '1' } } });
  const answer = await expect(connection, responseTo(0), 'the initialize result');
  if (!answer.result) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
  await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return connection;
}

/**
 * The next message `match` accepts. A failed exchange (a POST reset by the peer...) ends the wait
 * at once with that error: the harness's HTTP connection records it in its transcript, and the
 * answer it carried will not come.
 */
async function expect(connection: Connection, match: (r: ReceivedMessage) => boolean, what: string): Promise<Message> {
  const since = connection.transcript.entries().at(-1)?.seq ?? -1;
  const until = performance.now() + DEADLINE.timeoutMs;
  for (;;) {
    try {
      return (await connection.next(match, { timeoutMs: Math.max(1, Math.min(500, until - performance.now())) })).message as Message;
    } catch (error) {
      const failed = connection.transcript.excerpt(8).find((e) => e.seq > since && e.error !== undefined)?.error;
      if (failed) throw new Error(`${connection.kind}: waiting for ${what}: an exchange failed: ${failed.code}: ${failed.message}`, { cause: error });
      if (connection.isClosed || performance.now() >= until) throw new Error(`${connection.kind}: waiting for ${what}: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** Runs `count` registration wizards on one session; each respond's latency goes to `latencies`. */
async function runWizards(connection: Connection, count: number, firstId: number, latencies: number[], pace?: () => Promise<void>): Promise<void> {
  let id = firstId;
  for (let n = 0; n < count; n++) {
    const startId = id++;
    await connection.send({ jsonrpc: '2.0', id: startId, method: 'interaction.start', params: { toolName: 'registration' } });
    const started = await expect(connection, responseTo(startId), `the answer to interaction.start ${startId}`);
    const sessionId = started.result?.sessionId as string | undefined;
    if (sessionId === undefined) throw new Error(`interaction.start failed: ${JSON.stringify(started)}`);
    for (const value of ANSWERS) {
      const prompt = await expect(connection, serverRequest('interaction.prompt'), `interaction.prompt ${ANSWERS.indexOf(value) + 1} of session ${sessionId}`);
      await connection.send({ jsonrpc: '2.0', id: prompt.id, result: { acknowledged: true } });
      if (pace) await pace();
      const respondId = id++;
      const began = performance.now();
      await connection.send({ jsonrpc: '2.0', id: respondId, method: 'interaction.respond', params: { sessionId, response: { value } } });
      const answer = await expect(connection, responseTo(respondId), `the answer to interaction.respond ${respondId}`);
      latencies.push(performance.now() - began);
      if (answer.result?.accepted !== true) throw new Error(`interaction.respond was not accepted: ${JSON.stringify(answer)}`);
    }
    const complete = await expect(connection, serverRequest('interaction.complete'), `interaction.complete of session ${sessionId}`);
    await connection.send({ jsonrpc: '2.0', id: complete.id, result: { success: true } });
  }
}

/** A global schedule handing out one slot every `intervalMs`: each respond waits for its slot. */
function pacer(perSecond: number): () => Promise<void> {
  const intervalMs = 1000 / perSecond;
  let next = performance.now();
  return () => {
    const now = performance.now();
    const at = Math.max(next, now);
    next = at + intervalMs;
    return at > now ? new Promise((done) => setTimeout(done, at - now)) : Promise.resolve();
  };
}

async function phase(connections: readonly Connection[], interactions: number, firstId: number, mock: MockProcess, pace?: () => Promise<void>): Promise<PhaseFigures> {
  const perSession = connections.map(() => [] as number[]);
  const failures: string[] = [];
  const failed = new Set<Connection>();
  const began = performance.now();
  const stopped = (c: Connection) => (error: unknown) => {
    failures.push((error as Error).message);
    failed.add(c);
  };
  await Promise.all(connections.map((c, i) => runWizards(c, interactions, firstId, perSession[i]!, pace).catch(stopped(c))));
  const seconds = (performance.now() - began) / 1000;
  const all = perSession.flat().sort((a, b) => a - b);
  return { responds: all.length, failures, failed, seconds, perSecond: all.length / seconds, p50Ms: percentile(all, 50), p99Ms: percentile(all, 99), memory: memoryOf(mock.pid) };
}

async function loadTransport(build: MockBuild, transport: LoadTransport, options: LoadOptions): Promise<LoadReport> {
  const mock = await startMockProcess(build, transport, ['--max-sessions', String(options.sessions + 16)]);
  const connections: Connection[] = [];
  try {
    for (let i = 0; i < options.sessions; i += 10) {
      connections.push(...(await Promise.all(Array.from({ length: Math.min(10, options.sessions - i) }, () => openSession(transport, mock)))));
    }
    const saturation = await phase(connections, options.interactions, 1_000, mock);
    const target = saturation.perSecond / 2;
    // A session that failed is left out of the second phase (its state is unknown).
    const halfRate = await phase(
      connections.filter((c) => !saturation.failed.has(c)),
      options.interactions,
      1_000_000,
      mock,
      pacer(target),
    );
    return { transport, saturation, halfRate: { ...halfRate, targetPerSecond: target } };
  } finally {
    await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
    if (mock.exit) options.out(`  ${transport}: the mock exited ${JSON.stringify(mock.exit)}: ${mock.stderrTail().slice(-300)}`);
    await mock.stop();
  }
}

export function printLoad(report: LoadReport, options: Pick<LoadOptions, 'sessions' | 'interactions'>, out: (line: string) => void): void {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const s = report.saturation;
  const h = report.halfRate;
  out(`${report.transport}: ${options.sessions} sessions x ${options.interactions} registration wizards (${ANSWERS.length} responds each)`);
  out(`  saturation: ${s.perSecond.toFixed(0)} interaction.respond/s (${s.responds} in ${s.seconds.toFixed(1)} s; p50 ${ms(s.p50Ms)}, p99 ${ms(s.p99Ms)}); mock RSS ${mib(s.memory?.rss)} (peak ${mib(s.memory?.peak)})`);
  out(`  half rate:  ${h.perSecond.toFixed(0)} respond/s achieved of ${h.targetPerSecond.toFixed(0)} paced; latency p50 ${ms(h.p50Ms)}, p99 ${ms(h.p99Ms)}; mock RSS ${mib(h.memory?.rss)} (peak ${mib(h.memory?.peak)})`);
  for (const [name, figures] of [['saturation', s], ['half rate', h]] as const) {
    if (figures.failures.length > 0) out(`  ${name}: ${figures.failures.length} session(s) stopped on an error; the first: ${figures.failures[0]}`);
  }
}

export async function runLoadBench(options: LoadOptions): Promise<LoadReport[]> {
  const build = await buildMock();
  const reports: LoadReport[] = [];
  try {
    for (const transport of options.transports) {
      const report = await loadTransport(build, transport, options);
      printLoad(report, options, options.out);
      reports.push(report);
    }
  } finally {
    build.dispose();
  }
  return reports;
}

function parseArgs(argv: readonly string[]): Omit<LoadOptions, 'out'> {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const known = new Set(['--sessions', '--interactions', '--transport']);
  for (let i = 0; i < argv.length; i += 2) if (!known.has(argv[i]!)) throw new Error(`unknown option ${argv[i]} (options: ${[...known].join(' ')})`);
  const positive = (name: string, fallback: number) => {
    const n = Number(value(name) ?? fallback);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  const transports = (value('transport') ?? LOAD_TRANSPORTS.join(',')).split(',').map((t) => t.trim()) as LoadTransport[];
  for (const t of transports) if (!LOAD_TRANSPORTS.includes(t)) throw new Error(`--transport: ${JSON.stringify(t)} is not one of ${LOAD_TRANSPORTS.join(', ')}`);
  return { sessions: positive('sessions', 100), interactions: positive('interactions', 10), transports };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  let options: Omit<LoadOptions, 'out'>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exit(2);
  }
  console.log(`load bench: mock server as its own process, Node ${process.version}; client and mock share the machine`);
  await runLoadBench({ ...options, out: (line) => console.log(line) });
}
