// Everything a spawned target starts, found again to be ended with it. The target runs in a process
// group of its own (killed as a whole), and carries a marker in its environment that everything it
// starts inherits: a process that left the group (a daemon, a child spawned `detached`, `setsid`)
// still carries it, and on Linux /proc tells who does. The same idea as Jenkins' process tree
// killer (BUILD_ID); elsewhere only the group is ended.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks a spawned target's process tree. */
export const TREE_MARKER_VARIABLE = 'MCP_FLOW_CONFORMANCE_PROCESS_TREE';

/** A new marker value (one per spawned target). */
export function newTreeMarker(): string {
  return randomUUID();
}

/** Sends `signal` to the process group led by `pid`; false when there is no such group (any more). */
export function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function carries(environ: Buffer, needle: Buffer): boolean {
  // Each variable is NUL-terminated: the marker is a whole entry (at the start or after a NUL).
  for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

function needleOf(marker: string): Buffer {
  return Buffer.from(`${TREE_MARKER_VARIABLE}=${marker}\0`);
}

/**
 * Pids of the processes whose environment carries `marker` (Linux; none elsewhere). Read without
 * waiting: a /proc file read at once costs a third of one read through promises (open, stat, read
 * and close each a trip to the thread pool), about 10 µs a process, once per target process ended;
 * and an 'exit' hook, where nothing asynchronous runs, needs it so.
 */
export function markedProcesses(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = needleOf(marker);
  const found: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (carries(readFileSync(`/proc/${name}/environ`), needle)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or another user's: not ours either way.
    }
  }
  return found;
}

/** SIGKILLs every process that carries `marker`; how many there were. */
export function killMarked(marker: string): number {
  const pids = markedProcesses(marker);
  for (const pid of pids) killPid(pid);
  return pids.length;
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
