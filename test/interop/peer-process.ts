// Runs a third-party server under test as a child process, the same way for every real peer: a
// bare environment (only PATH and what the peer itself needs, so no variable of the test machine
// reaches a transcript), over stdio as a command the stdio target spawns per case, or over
// Streamable HTTP as one process per test file, bound to 127.0.0.1 on a port the OS picked
// (test/interop/loopback-only.mjs) and stopped afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../src/harness/index.js';

/** Preloaded into every HTTP peer: listen() binds 127.0.0.1 on a port the OS picks, and says which. */
export const LOOPBACK_PRELOAD = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));

/** The peer's whole environment: PATH to run node, plus what the peer is given. */
export function bareEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra };
}

/** A node program and how to run it: its arguments (script first) and its environment beyond PATH. */
export interface PeerProgram {
  /** Arguments to node: the script (absolute path) and its own arguments. */
  args: readonly string[];
  /** Environment variables besides PATH. */
  env?: Record<string, string>;
}

/** What the stdio target spawns per case: `env -i PATH=... <env> node <args>`. */
export function stdioCommand(program: PeerProgram): string {
  const variables = Object.entries(bareEnvironment(program.env)).map(([name, value]) => `${name}=${value}`);
  return ['env', '-i', ...variables, process.execPath, ...program.args].map(shellQuote).join(' ');
}

/** A peer could not be started over Streamable HTTP (it exited, or never said it listens). */
export class PeerStartError extends Error {
  readonly code = 'PEER_START_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PeerStartError';
  }
}

export interface RunningPeer {
  /** http://127.0.0.1:<port><path> */
  readonly url: string;
  /** The command as a shell would run it (for docs and rerun notes; the port is the OS's pick). */
  readonly command: string;
  /** Stops the process (SIGINT, its own shutdown path; SIGKILL if it lingers). */
  close(): Promise<void>;
}

const LISTENING = /conformance-interop: listening on 127\.0\.0\.1:(\d+)/;

/** Resolves with the port once the child announces it, rejects if it exits or stays silent. */
function announcedPort(child: ChildProcess, limitMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => done(() => reject(new PeerStartError(`no listening line within ${limitMs} ms; output: ${output.slice(-500)}`))), limitMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = LISTENING.exec(output);
      if (match) done(() => resolve(Number(match[1])));
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(() => reject(new PeerStartError(`exited (code ${code}, signal ${signal}) before listening: ${output.slice(-500)}`)));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Drain what it prints per request so the pipes never fill.
      child.stderr?.resume();
      settle();
    };
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

/** Starts `program` over Streamable HTTP on 127.0.0.1 (a port the OS picks) and waits until it listens. */
export async function startHttpPeer(program: PeerProgram, options: { path?: string; startLimitMs?: number } = {}): Promise<RunningPeer> {
  const args = ['--import', LOOPBACK_PRELOAD, ...program.args];
  const env = bareEnvironment({ ...program.env, CONFORMANCE_OS_PORT: '1' });
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.resume();
  let port: number;
  try {
    port = await announcedPort(child, options.startLimitMs ?? 30_000);
  } catch (error) {
    await stop(child);
    throw error;
  }
  const variables = Object.entries(env).filter(([name]) => name !== 'PATH').map(([name, value]) => `${name}=${value}`);
  const command = ['env', '-i', 'PATH=$PATH', ...variables, 'node', ...args.map((a) => (isAbsolute(a) ? relative(process.cwd(), a) : a))].join(' ');
  return { url: `http://127.0.0.1:${port}${options.path ?? '/mcp'}`, command, close: () => stop(child) };
}
