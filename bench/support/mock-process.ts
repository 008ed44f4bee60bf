// The mock server as a process of its own for the fuzz and load benches: its crashes are seen as
// an exit, and its memory (RSS) is its own, not the bench's. Built once as a CLI bundle (esbuild,
// bench/mutation/bundle.ts), started with `mock-server --transport wt|http|stdio`.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkspace, type BundleWorkspace } from '../mutation/bundle.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Resident and peak resident memory of a process in bytes (Linux /proc), undefined elsewhere. */
export function memoryOf(pid: number | undefined): { rss: number; peak: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(/^(\w+):\s+(\d+) kB$/m.exec(status.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '')?.[2] ?? NaN) * 1024;
    return { rss: kib('VmRSS'), peak: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

export const mib = (bytes: number | undefined) => (bytes === undefined || Number.isNaN(bytes) ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MiB`);

export interface MockBuild {
  /** The argv that runs the mock server's CLI (node and the bundle). */
  readonly command: string[];
  dispose(): void;
}

/** Builds the CLI bundle once. */
export async function buildMock(): Promise<MockBuild> {
  const workspace: BundleWorkspace = bundleWorkspace(REPO_ROOT);
  const bundle = await workspace.build('mock');
  return { command: [process.execPath, bundle], dispose: () => workspace.dispose() };
}

export interface MockProcess {
  readonly url: string;
  readonly certificateHash?: string;
  readonly pid: number;
  /** Set once the process exited. */
  readonly exit: { code: number | null; signal: string | null } | undefined;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  stderrTail(): string;
  stop(): Promise<void>;
}

/** Starts `mock-server --transport wt|http` and waits for the line that says where it listens. */
export async function startMockProcess(build: MockBuild, transport: 'wt' | 'http', extra: string[] = []): Promise<MockProcess> {
  const [node, ...args] = build.command;
  const child: ChildProcess = spawn(node!, [...args, 'mock-server', '--transport', transport, '--host', '127.0.0.1', '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exit: { code: number | null; signal: string | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      done(exit);
    }),
  );
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const ready = new Promise<{ url: string; certificateHash?: string }>((done, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /mock server listening on (\S+)/.exec(stdout)?.[1];
      const hash = /certificate sha-256: ([0-9a-f]+)/i.exec(stdout)?.[1];
      if (url !== undefined && /faults on:/.test(stdout)) done(hash !== undefined ? { url, certificateHash: hash } : { url });
    });
    void exited.then((e) => fail(new Error(`mock-server --transport ${transport} exited (${JSON.stringify(e)}) before listening: ${stderr}`)));
  });
  const where = await ready;
  return {
    ...where,
    pid: child.pid!,
    get exit() {
      return exit;
    },
    exited,
    stderrTail: () => stderr,
    async stop() {
      if (exit) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
