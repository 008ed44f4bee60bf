// @modelcontextprotocol/server-everything, the MCP reference server, as a real third-party peer:
// the command line that serves it over stdio (a process per case) and a Streamable HTTP process on
// 127.0.0.1. Both run with a bare environment: its get-env tool answers with the whole process
// environment, which would otherwise land in transcripts and reports.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../src/harness/index.js';

const require = createRequire(import.meta.url);
const packageJson = require.resolve('@modelcontextprotocol/server-everything/package.json');

/** The installed package: its version and entry point (`dist/index.js <stdio|streamableHttp>`). */
export const SERVER_EVERYTHING = {
  name: '@modelcontextprotocol/server-everything',
  version: (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version,
  entry: join(dirname(packageJson), 'dist', 'index.js'),
  /** The @modelcontextprotocol/sdk it runs on (the project's own copy: the package has no nested one). */
  sdkVersion: (JSON.parse(readFileSync(require.resolve('@modelcontextprotocol/sdk/package.json'), 'utf8')) as { version: string }).version,
} as const;

/** Preloaded into the HTTP process: a listen() without a host binds 127.0.0.1 (the server has no host option). */
export const LOOPBACK_PRELOAD = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));

/**
 * The peer's whole environment: enough to run node, nothing of this process's own, plus
 * GZIP_ALLOWED_DOMAINS=localhost. The tool sweeps call every tool with its defaults, and
 * gzip-file-as-resource's default input is a file on raw.githubusercontent.com: with the allow-list
 * the tool refuses it at once instead of reaching out to the internet (or waiting 30 s offline).
 */
export function bareEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', GZIP_ALLOWED_DOMAINS: 'localhost', ...extra };
}

/** What the stdio target spawns per case: `env -i PATH=... GZIP_ALLOWED_DOMAINS=localhost node dist/index.js stdio`. */
export function serverEverythingStdioCommand(): string {
  const variables = Object.entries(bareEnvironment()).map(([name, value]) => `${name}=${value}`);
  return ['env', '-i', ...variables, process.execPath, SERVER_EVERYTHING.entry, 'stdio'].map(shellQuote).join(' ');
}

/** server-everything could not be started over Streamable HTTP (it exited, or never said it listens). */
export class PeerStartError extends Error {
  readonly code = 'PEER_START_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PeerStartError';
  }
}

/** A port that was free on 127.0.0.1 a moment ago (the OS picked it for a socket we closed). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new PeerStartError('the OS gave no TCP port for 127.0.0.1:0');
  return address.port;
}

export interface RunningPeer {
  /** http://127.0.0.1:<port>/mcp */
  readonly url: string;
  /** The command as a shell would run it (for docs and rerun notes). */
  readonly command: string;
  /** Stops the process (SIGINT, its own shutdown path; SIGKILL if it lingers). */
  close(): Promise<void>;
}

const LISTENING = /listening on port (\d+)/i;
const PORT_IN_USE = /EADDRINUSE|already in use/i;

/** Waits until the child says it listens (resolves true), or exits first with EADDRINUSE (false). */
function listening(child: ChildProcess, limitMs: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => done(() => reject(new PeerStartError(`no "listening on port" line within ${limitMs} ms; output: ${output.slice(-500)}`))), limitMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (LISTENING.test(output)) done(() => resolve(true));
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(() => (PORT_IN_USE.test(output) ? resolve(false) : reject(new PeerStartError(`exited (code ${code}, signal ${signal}) before listening: ${output.slice(-500)}`))));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      settle();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGINT');
  });
}

/**
 * Starts `node dist/index.js streamableHttp` on a free 127.0.0.1 port. The server reads its port
 * from PORT and cannot report one the OS picked, so a free port is found first and the start is
 * retried when another process took it meanwhile (the server exits saying EADDRINUSE).
 */
export async function startServerEverythingHttp(options: { attempts?: number; startLimitMs?: number } = {}): Promise<RunningPeer> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = await freeLoopbackPort();
    const args = ['--import', LOOPBACK_PRELOAD, SERVER_EVERYTHING.entry, 'streamableHttp'];
    const child = spawn(process.execPath, args, { env: bareEnvironment({ PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
    // Drain what it prints per request so the pipes never fill.
    child.stdout.resume();
    child.stderr.resume();
    let up: boolean;
    try {
      up = await listening(child, options.startLimitMs ?? 30_000);
    } catch (error) {
      await stop(child);
      throw error;
    }
    if (!up) continue;
    const variables = Object.entries(bareEnvironment({ PORT: String(port) })).filter(([name]) => name !== 'PATH').map(([name, value]) => `${name}=${value}`);
    const command = ['env', '-i', 'PATH=$PATH', ...variables, 'node', ...args.map((a) => (isAbsolute(a) ? relative(process.cwd(), a) : a))].join(' ');
    return { url: `http://127.0.0.1:${port}/mcp`, command, close: () => stop(child) };
  }
  throw new PeerStartError(`every one of ${attempts} free ports was taken before server-everything could listen on it`);
}
