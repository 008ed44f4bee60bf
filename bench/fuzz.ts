// Fuzz bench (issue 17): feeds generated inputs (bench/fuzz/inputs.ts: JSON-RPC-ish messages,
// random bytes, broken frames) to the mock server over stdio, Streamable HTTP and the WebTransport
// control stream, the mock running as a process of its own. Every input must be answered or
// refused within a deadline with what the documents allow for its kind (docs/profile.md), the
// mock must not crash (exit) and must still answer a ping afterwards: on stdio and WebTransport a
// ping follows every input on the same connection (its answer marks the end of the input's
// answers); on Streamable HTTP every POST gets its own answer and each session ends with a ping.
// Prints the count of every outcome per kind, inputs/s per transport and the mock's memory.
// Run: npx tsx bench/fuzz.ts [--inputs 100000] [--transport stdio,http,wt] [--seed 1] [--deadline-ms 5000]
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { Connection } from '../src/transport/connection.js';
import { spawnStdio } from '../src/transport/stdio/index.js';
import { connectWebTransport, initializeSession } from '../src/transport/webtransport/index.js';
import { FUZZ_KINDS, generateInputs, judgeAnswers, type FuzzInput, type FuzzKind, type InputMaker, type RequestId, type Transport } from './fuzz/inputs.js';
import { buildMock, memoryOf, mib, startMockProcess, type MockBuild, type MockProcess } from './support/mock-process.js';

export const FUZZ_TRANSPORTS: readonly Transport[] = ['stdio', 'http', 'wt'];
const PROTOCOL_VERSION = '2025-06-18';
/** Inputs per connection before a fresh one (bounds what either side keeps of one connection). */
const INPUTS_PER_CONNECTION = 5000;
/**
 * Concurrent Streamable HTTP sessions, each posting its inputs one after the other: many, so that
 * a POST left unanswered (a hang, waited out to the deadline) does not hold the others up.
 */
const HTTP_SESSIONS = 32;

export interface FuzzOptions {
  inputs: number;
  transports: readonly Transport[];
  seed: number;
  deadlineMs: number;
  /** Extra `mock-server` arguments (e.g. `--fault NAME`, to show the judge catches a broken mock). */
  mockArgs?: readonly string[];
  out: (line: string) => void;
}

/** What happened to one input. */
export type Outcome = 'ok' | 'wrong' | 'hang' | 'closed';

export interface TransportReport {
  transport: Transport;
  inputs: number;
  seconds: number;
  /** Per kind, per outcome. */
  counts: Partial<Record<FuzzKind, Partial<Record<Outcome, number>>>>;
  /** The mock process exited (a crash) while inputs were fed. */
  crashes: number;
  /** A ping on a fresh connection after the last input was answered. */
  pingAfterwards: boolean;
  /** The first few wrong answers, hangs and closes, one line each. */
  examples: string[];
  memory?: { rss: number; peak: number } | undefined;
}

class Tally {
  readonly counts: TransportReport['counts'] = {};
  readonly examples: string[] = [];
  add(input: FuzzInput, outcome: Outcome, detail?: string): void {
    const perKind = (this.counts[input.kind] ??= {});
    perKind[outcome] = (perKind[outcome] ?? 0) + 1;
    if (outcome !== 'ok' && this.examples.length < 12) {
      const body = 'json' in input.body ? JSON.stringify(input.body.json) : `bytes ${Buffer.from(input.body.bytes).toString('hex')}`;
      this.examples.push(`${input.kind} ${outcome}: ${detail ?? ''} <- ${body?.slice(0, 200)}`);
    }
  }
  total(outcome: Outcome): number {
    return Object.values(this.counts).reduce((sum, perKind) => sum + (perKind[outcome] ?? 0), 0);
  }
}

const encoder = new TextEncoder();
const bodyBytes = (input: FuzzInput): Uint8Array => ('json' in input.body ? encoder.encode(JSON.stringify(input.body.json)) : input.body.bytes);

function frame(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, 4);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `bytes` cut at the given offsets (clamped, sorted). */
function pieces(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  return out;
}

const isResponse = (m: unknown): boolean => Array.isArray(m) || (typeof m === 'object' && m !== null && !('method' in m));
const idOf = (m: unknown): unknown => (typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>)['id'] : undefined);

/**
 * One connection of a message-stream transport (stdio, WebTransport): each input, then a ping,
 * written together; the answers before the ping's are the input's. Returns how many inputs it fed
 * (it stops early when the connection ended or an input hung).
 */
async function feedStream(
  connection: Connection,
  makers: readonly InputMaker[],
  firstId: number,
  framing: (body: Uint8Array) => Uint8Array,
  tally: Tally,
  deadlineMs: number,
): Promise<number> {
  let fed = 0;
  for (const make of makers) {
    const id = firstId + fed;
    const input = make(connection.kind === 'webtransport' || id % 2 === 0 ? id : `fz-${id}`);
    fed++;
    const sentinel = connection.kind === 'webtransport' ? 3_000_000_000 + id : `ping-${id}`;
    const inputBytes = framing(bodyBytes(input));
    const ping = framing(encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'ping' })));
    try {
      if (input.splits) {
        for (const piece of pieces(inputBytes, input.splits)) await connection.sendRaw(piece);
        await connection.sendRaw(ping);
      } else await connection.sendRaw(concat([inputBytes, ping]));
    } catch (error) {
      tally.add(input, 'closed', `writing failed: ${(error as Error).message}`);
      return fed;
    }
    const answers: unknown[] = [];
    const until = performance.now() + deadlineMs;
    const expectedId: RequestId | undefined = input.expect.type === 'answer' && !input.expect.orSilence ? (input.expect.ids.find((i) => i !== null) as RequestId | undefined) : undefined;
    let pinged = false;
    let outcome: Outcome | undefined;
    let detail: string | undefined;
    while (!pinged || (expectedId !== undefined && !answers.some((a) => idOf(a) === expectedId) && answers.length === 0)) {
      const left = until - performance.now();
      if (left <= 0) {
        outcome = 'hang';
        detail = pinged ? 'the ping was answered, the input not' : `no answer to the ping after it within ${deadlineMs} ms`;
        break;
      }
      try {
        const received = await connection.next(undefined, { timeoutMs: left });
        const message = received.message;
        if (idOf(message) === sentinel && isResponse(message)) pinged = true;
        else if (isResponse(message)) answers.push(message);
      } catch (error) {
        // An input whose answer may end the session (an empty frame): judged on what came before the end.
        if (connection.isClosed && input.expect.type === 'answer' && input.expect.mayClose && answers.length > 0) break;
        outcome = connection.isClosed ? 'closed' : 'hang';
        detail = (error as Error).message;
        break;
      }
    }
    if (outcome === undefined) {
      const wrong = judgeAnswers(input.expect, answers);
      outcome = wrong === undefined ? 'ok' : 'wrong';
      detail = wrong;
    }
    tally.add(input, outcome, detail);
    if (outcome === 'hang' || outcome === 'closed' || connection.isClosed) return fed;
  }
  return fed;
}

async function fuzzStdio(build: MockBuild, makers: readonly InputMaker[], options: FuzzOptions): Promise<TransportReport> {
  const tally = new Tally();
  let crashes = 0;
  let done = 0;
  let peak: { rss: number; peak: number } | undefined;
  const began = performance.now();
  while (done < makers.length) {
    const connection = await spawnStdio([...build.command, 'mock-server', '--transport', 'stdio', ...(options.mockArgs ?? [])]);
    await connection.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } });
    await connection.next((r) => idOf(r.message) === 'init', { timeoutMs: 30_000 });
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    done += await feedStream(connection, makers.slice(done, done + INPUTS_PER_CONNECTION), done, (b) => concat([b, encoder.encode('\n')]), tally, options.deadlineMs);
    const memory = memoryOf(connection.stdio?.pid);
    if (memory && (!peak || memory.peak > peak.peak)) peak = memory;
    const exitedEarly = connection.isClosed;
    await connection.close();
    const exit = await connection.stdio!.exited;
    // Closing stdin ends the mock with code 0; anything else (or an exit before we closed) is a crash.
    if (exitedEarly || exit.code !== 0) {
      crashes++;
      options.out(`  stdio: the mock exited ${JSON.stringify(exit)}${exitedEarly ? ' before stdin was closed' : ''}`);
    }
  }
  const seconds = (performance.now() - began) / 1000;
  const last = await spawnStdio([...build.command, 'mock-server', '--transport', 'stdio']);
  let pingAfterwards = false;
  try {
    await last.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    pingAfterwards = isResponse((await last.next(undefined, { timeoutMs: 30_000 })).message);
  } finally {
    await last.close();
  }
  return { transport: 'stdio', inputs: makers.length, seconds, counts: tally.counts, crashes, pingAfterwards, examples: tally.examples, memory: peak };
}

async function fuzzWebTransport(build: MockBuild, makers: readonly InputMaker[], options: FuzzOptions): Promise<TransportReport> {
  const tally = new Tally();
  let crashes = 0;
  let mock: MockProcess = await startMockProcess(build, 'wt', [...(options.mockArgs ?? [])]);
  let done = 0;
  const began = performance.now();
  let memory: { rss: number; peak: number } | undefined;
  while (done < makers.length) {
    if (mock.exit) {
      crashes++;
      options.out(`  wt: the mock exited ${JSON.stringify(mock.exit)}: ${mock.stderrTail().slice(-300)}`);
      mock = await startMockProcess(build, 'wt', [...(options.mockArgs ?? [])]);
    }
    const connection = await connectWebTransport(mock.url, { certificateHash: mock.certificateHash! });
    try {
      await initializeSession(connection, { timeoutMs: 30_000, encodings: ['json'] });
      done += await feedStream(connection, makers.slice(done, done + INPUTS_PER_CONNECTION), done + 1, frame, tally, options.deadlineMs);
    } catch (error) {
      options.out(`  wt: a session could not be opened: ${(error as Error).message}`);
      done += 1;
    } finally {
      await connection.close().catch(() => undefined);
    }
    memory = memoryOf(mock.pid) ?? memory;
  }
  const seconds = (performance.now() - began) / 1000;
  let pingAfterwards = false;
  if (mock.exit) crashes++;
  else {
    const connection = await connectWebTransport(mock.url, { certificateHash: mock.certificateHash! });
    try {
      await initializeSession(connection, { timeoutMs: 30_000, encodings: ['json'] });
      await connection.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      pingAfterwards = isResponse((await connection.next((r) => idOf(r.message) === 1, { timeoutMs: 30_000 })).message);
    } finally {
      await connection.close().catch(() => undefined);
    }
  }
  memory = memoryOf(mock.pid) ?? memory;
  await mock.stop();
  return { transport: 'wt', inputs: makers.length, seconds, counts: tally.counts, crashes, pingAfterwards, examples: tally.examples, memory };
}

/** One Streamable HTTP POST: its status and the JSON-RPC messages of its body (JSON or SSE). */
async function post(url: string, body: Uint8Array | Uint8Array[], headers: Record<string, string>, deadlineMs: number): Promise<{ status: number; messages: unknown[]; sessionId?: string } | 'hang' | { error: string }> {
  const signal = AbortSignal.timeout(deadlineMs);
  try {
    const chunks = Array.isArray(body) ? body : undefined;
    const response = await fetch(url, {
      method: 'POST',
      headers,
      signal,
      ...(chunks
        ? {
            body: new ReadableStream({
              start(controller) {
                for (const c of chunks) controller.enqueue(c);
                controller.close();
              },
            }),
            duplex: 'half',
          }
        : { body: body as Uint8Array }),
    } as RequestInit);
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let messages: unknown[] = [];
    if (type.includes('text/event-stream')) {
      messages = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)));
    } else if (text.trim() !== '') messages = [JSON.parse(text)];
    const sessionId = response.headers.get('mcp-session-id') ?? undefined;
    return { status: response.status, messages, ...(sessionId !== undefined ? { sessionId } : {}) };
  } catch (error) {
    if (signal.aborted) return 'hang';
    return { error: (error as Error).message };
  }
}

const HTTP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': PROTOCOL_VERSION };

/** Judges one POST's outcome against the input's expectation (MCP Streamable HTTP: requests get 200, other input 202 or a 4xx refusal). */
function judgeHttp(input: FuzzInput, status: number, messages: unknown[]): string | undefined {
  const expect = input.expect;
  if (expect.type === 'http-4xx') return status >= 400 && status < 500 ? undefined : `expected a 4xx refusal, got ${status}`;
  // A well-formed request (a valid id, a string method, jsonrpc "2.0") is owed a JSON-RPC answer, never a refusal.
  const wellFormedRequest = ['ping', 'unknown-method', 'bad-params', 'split-frame'].includes(input.kind);
  if (status >= 400 && status < 500) return wellFormedRequest ? `a well-formed request was refused with HTTP ${status}` : undefined;
  if (status === 202) {
    const mayAccept = expect.type === 'silence' || (expect.type === 'answer' && expect.orSilence === true) || input.kind === 'malformed-object';
    return mayAccept ? undefined : 'accepted with 202 but owed an answer';
  }
  if (status !== 200) return `HTTP ${status}`;
  return judgeAnswers(expect, messages);
}

async function openHttpSession(url: string, deadlineMs: number): Promise<string> {
  const init = await post(url, encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } })), HTTP_HEADERS, deadlineMs * 6);
  if (typeof init === 'string' || 'error' in init || init.sessionId === undefined) throw new Error(`initialize over HTTP failed: ${JSON.stringify(init)}`);
  await post(url, encoder.encode(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), { ...HTTP_HEADERS, 'mcp-session-id': init.sessionId }, deadlineMs);
  return init.sessionId;
}

async function fuzzHttp(build: MockBuild, makers: readonly InputMaker[], options: FuzzOptions): Promise<TransportReport> {
  const tally = new Tally();
  let crashes = 0;
  let mock: MockProcess = await startMockProcess(build, 'http', [...(options.mockArgs ?? [])]);
  let next = 0;
  let pingsFailed = 0;
  const began = performance.now();
  const worker = async (): Promise<void> => {
    let sessionId: string | undefined;
    let used = 0;
    const ping = async () => {
      if (sessionId === undefined) return;
      const answer = await post(mock.url, encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: 'ping', method: 'ping' })), { ...HTTP_HEADERS, 'mcp-session-id': sessionId }, options.deadlineMs);
      if (typeof answer === 'string' || 'error' in answer || answer.status !== 200) pingsFailed++;
    };
    while (next < makers.length) {
      const index = next++;
      if (mock.exit) {
        crashes++;
        options.out(`  http: the mock exited ${JSON.stringify(mock.exit)}: ${mock.stderrTail().slice(-300)}`);
        mock = await startMockProcess(build, 'http', [...(options.mockArgs ?? [])]);
        sessionId = undefined;
      }
      if (sessionId === undefined || used >= INPUTS_PER_CONNECTION / HTTP_SESSIONS) {
        await ping();
        if (sessionId !== undefined) await fetch(mock.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } }).then((r) => r.arrayBuffer()).catch(() => undefined);
        sessionId = await openHttpSession(mock.url, options.deadlineMs);
        used = 0;
      }
      used++;
      const input = makers[index]!(index % 2 === 0 ? index + 1 : `fz-${index + 1}`);
      const headers: Record<string, string> = { ...HTTP_HEADERS, 'mcp-session-id': sessionId };
      if (input.http === 'no-session') delete headers['mcp-session-id'];
      if (input.http === 'content-type') headers['content-type'] = 'text/plain';
      if (input.http === 'accept') headers['accept'] = 'text/html';
      const bytes = bodyBytes(input);
      const answer = await post(mock.url, input.splits ? pieces(bytes, input.splits) : bytes, headers, options.deadlineMs);
      if (answer === 'hang') tally.add(input, 'hang', `no HTTP answer within ${options.deadlineMs} ms`);
      else if ('error' in answer) tally.add(input, 'closed', answer.error);
      else {
        const wrong = judgeHttp(input, answer.status, answer.messages);
        tally.add(input, wrong === undefined ? 'ok' : 'wrong', wrong);
      }
    }
    await ping();
  };
  await Promise.all(Array.from({ length: HTTP_SESSIONS }, worker));
  const seconds = (performance.now() - began) / 1000;
  const memory = memoryOf(mock.pid);
  let pingAfterwards = false;
  if (mock.exit) crashes++;
  else {
    const sessionId = await openHttpSession(mock.url, options.deadlineMs).catch(() => undefined);
    if (sessionId !== undefined) {
      const answer = await post(mock.url, encoder.encode(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })), { ...HTTP_HEADERS, 'mcp-session-id': sessionId }, options.deadlineMs * 6);
      pingAfterwards = typeof answer !== 'string' && !('error' in answer) && answer.status === 200 && pingsFailed === 0;
    }
  }
  await mock.stop();
  if (pingsFailed > 0) options.out(`  http: ${pingsFailed} end-of-session ping(s) failed`);
  return { transport: 'http', inputs: makers.length, seconds, counts: tally.counts, crashes, pingAfterwards, examples: tally.examples, memory };
}

export function printReport(report: TransportReport, out: (line: string) => void): void {
  const sum = (o: Outcome) => Object.values(report.counts).reduce((n, c) => n + (c[o] ?? 0), 0);
  out(
    `${report.transport}: ${report.inputs} inputs in ${report.seconds.toFixed(1)} s (${(report.inputs / report.seconds).toFixed(0)} inputs/s); ` +
      `ok ${sum('ok')}, wrong answers ${sum('wrong')}, hangs ${sum('hang')}, connection closed ${sum('closed')}; crashes ${report.crashes}; ` +
      `ping afterwards ${report.pingAfterwards ? 'answered' : 'NOT answered'}; mock RSS ${mib(report.memory?.rss)} (peak ${mib(report.memory?.peak)})`,
  );
  for (const kind of FUZZ_KINDS) {
    const c = report.counts[kind];
    if (!c) continue;
    out(`  ${kind.padEnd(22)} ${(['ok', 'wrong', 'hang', 'closed'] as const).map((o) => `${o} ${c[o] ?? 0}`).join('  ')}`);
  }
  for (const example of report.examples) out(`  ! ${example}`);
}

/** True when the run met the bench's bar: no crash, no hang, no wrong answer, a ping answered afterwards. */
export function clean(report: TransportReport): boolean {
  const bad = Object.values(report.counts).reduce((n, c) => n + (c.wrong ?? 0) + (c.hang ?? 0) + (c.closed ?? 0), 0);
  return bad === 0 && report.crashes === 0 && report.pingAfterwards;
}

export async function runFuzzBench(options: FuzzOptions): Promise<TransportReport[]> {
  const build = await buildMock();
  const reports: TransportReport[] = [];
  try {
    for (const [i, transport] of options.transports.entries()) {
      const makers = generateInputs(transport, options.inputs, options.seed + i);
      const run = transport === 'stdio' ? fuzzStdio : transport === 'http' ? fuzzHttp : fuzzWebTransport;
      const report = await run(build, makers, options);
      printReport(report, options.out);
      reports.push(report);
    }
  } finally {
    build.dispose();
  }
  return reports;
}

function parseArgs(argv: readonly string[]): Omit<FuzzOptions, 'out'> {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const known = new Set(['--inputs', '--transport', '--seed', '--deadline-ms']);
  for (let i = 0; i < argv.length; i += 2) if (!known.has(argv[i]!)) throw new Error(`unknown option ${argv[i]} (options: ${[...known].join(' ')})`);
  const inputs = Number(value('inputs') ?? 100_000);
  if (!Number.isSafeInteger(inputs) || inputs < 1) throw new Error('--inputs must be a positive integer');
  const seed = Number(value('seed') ?? 1);
  if (!Number.isSafeInteger(seed)) throw new Error('--seed must be an integer');
  const deadlineMs = Number(value('deadline-ms') ?? 5000);
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) throw new Error('--deadline-ms must be a positive number');
  const transports = (value('transport') ?? FUZZ_TRANSPORTS.join(',')).split(',').map((t) => t.trim()) as Transport[];
  for (const t of transports) if (!FUZZ_TRANSPORTS.includes(t)) throw new Error(`--transport: ${JSON.stringify(t)} is not one of ${FUZZ_TRANSPORTS.join(', ')}`);
  return { inputs, transports, seed, deadlineMs };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  let options: Omit<FuzzOptions, 'out'>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exit(2);
  }
  console.log(`fuzz bench: ${options.inputs} generated inputs per transport (${options.transports.join(', ')}), seed ${options.seed}, deadline ${options.deadlineMs} ms per input`);
  const reports = await runFuzzBench({ ...options, out: (line) => console.log(line) });
  const failed = reports.filter((r) => !clean(r)).map((r) => r.transport);
  console.log(failed.length === 0 ? 'fuzz bench: 0 crashes, 0 hangs, 0 wrong answers on every transport' : `fuzz bench: problems on ${failed.join(', ')}`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}
