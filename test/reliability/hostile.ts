// The hostile targets of the reliability suite (issue 17) and how a runner is run against one: the
// `server` command in a child process of its own, with its reports, its exit code, how long it took
// and its peak resident set size (fixtures/rss-probe.mjs). Shared by test/reliability/*.test.ts and
// bench/rss.ts.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cliCommand } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const RSS_PROBE = pathToFileURL(join(FIXTURES, 'rss-probe.mjs')).href;

export type HttpMode = 'silent' | 'garbage' | 'mid-close' | 'endless-sse' | 'sse-flood' | 'huge-body' | 'large-answers';
export type StdioMode = 'silent' | 'garbage' | 'stdout-flood' | 'endless-line' | 'crash-on-second';

export interface HostileTarget {
  /** e.g. `http silent`. */
  name: string;
  transport: 'http' | 'stdio';
  mode: HttpMode | StdioMode;
}

/** Every hostile target of issue 17 (silent and garbage over both transports; the suite runs each over one). */
export const HOSTILE_TARGETS: readonly HostileTarget[] = [
  { name: 'http silent', transport: 'http', mode: 'silent' },
  { name: 'http garbage', transport: 'http', mode: 'garbage' },
  { name: 'http mid-close', transport: 'http', mode: 'mid-close' },
  { name: 'http endless SSE', transport: 'http', mode: 'endless-sse' },
  { name: 'http SSE flood', transport: 'http', mode: 'sse-flood' },
  { name: 'http 1 GiB body', transport: 'http', mode: 'huge-body' },
  { name: 'http 60 MB answers', transport: 'http', mode: 'large-answers' },
  { name: 'stdio silent', transport: 'stdio', mode: 'silent' },
  { name: 'stdio garbage', transport: 'stdio', mode: 'garbage' },
  { name: 'stdio stdout flood', transport: 'stdio', mode: 'stdout-flood' },
  { name: 'stdio endless line', transport: 'stdio', mode: 'endless-line' },
  { name: 'stdio crash on second', transport: 'stdio', mode: 'crash-on-second' },
];

/** A running hostile HTTP server (a child process; it ends with stop() or with its parent). */
export interface HostileServer {
  url: string;
  stop(): void;
}

export async function startHostileHttp(mode: HttpMode): Promise<HostileServer> {
  const child = spawn(process.execPath, [join(FIXTURES, 'hostile-http.mjs'), mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`hostile-http.mjs ${mode} exited with ${code} before it listened`)));
  });
  lines.close();
  return {
    url,
    stop: () => {
      child.stdin.end();
      child.kill('SIGKILL');
    },
  };
}

/** The --stdio command line of a hostile stdio server. */
export function hostileStdioCommand(mode: StdioMode): string {
  return [process.execPath, join(FIXTURES, 'hostile-stdio.mjs'), mode].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
}

export interface RunnerOutcome {
  /** Exit code (null when killed by `signal`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Wall time from spawn to exit. */
  ms: number;
  /** Peak resident set size of the runner process, in bytes (undefined when it died before writing it). */
  peakRss: number | undefined;
  /** The last 64 KiB of its stdout and stderr. */
  stdout: string;
  stderr: string;
}

/** Keeps the last `limit` characters of a stream (a runner's console output is not bounded). */
function tail(stream: NodeJS.ReadableStream, limit = 64 * 1024): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text = (text + chunk).slice(-limit);
  });
  return () => text;
}

/**
 * Runners started at once from one process: a flooding target keeps its runner (and itself) busy
 * for as long as the flood lasts, and more of them than cores only stretch every run.
 */
const RUNNERS_AT_ONCE = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= RUNNERS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/**
 * Runs `mcp-flow-conformance server <args>` in a child process with the RSS probe loaded (at most
 * RUNNERS_AT_ONCE at a time); SIGKILLs it after `limitMs` from its start (a run that does not end
 * is a failure the caller sees as signal SIGKILL).
 */
export async function runRunner(args: readonly string[], options: { limitMs: number; env?: Record<string, string> }): Promise<RunnerOutcome> {
  const release = await slot();
  try {
    return await runOne(args, options);
  } finally {
    release();
  }
}

async function runOne(args: readonly string[], options: { limitMs: number; env?: Record<string, string> }): Promise<RunnerOutcome> {
  const scratch = mkdtempSync(join(tmpdir(), 'rss-probe-'));
  const rssFile = join(scratch, 'rss');
  const [node, ...rest] = cliCommand('server', ...args);
  const started = Date.now();
  const child = spawn(node!, ['--import', RSS_PROBE, ...rest], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env, RSS_PROBE_FILE: rssFile, NO_COLOR: '1' },
  });
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.limitMs);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (c, s) => resolve([c, s])));
    let peakRss: number | undefined;
    try {
      peakRss = Number(readFileSync(rssFile, 'utf8'));
    } catch {
      peakRss = undefined;
    }
    return { code, signal, ms: Date.now() - started, peakRss, stdout: stdout(), stderr: stderr() };
  } finally {
    clearTimeout(timer);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Whether a process is alive and not a zombie (Linux /proc; elsewhere, whether it can be signalled). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    if (process.platform === 'linux') return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
