// Runs independent jobs a few at a time while their output reads as if they had run one after the
// other: the first unfinished job (in the jobs' order) writes through, every later one into its own
// buffer, shown in order as soon as the jobs before it are done. The self-test's runs use it.
import type { CliIo } from './io.js';

export interface OrderedJob<T> {
  /** Started before the jobs without it (the longest ones), whatever its place in the output. */
  startFirst?: boolean;
  run(io: CliIo): Promise<T>;
}

/**
 * Runs `jobs`, at most `limit` at a time, and resolves to their results in order. Live progress
 * (`io.terminal`) is kept only when they run one at a time. A job that throws does not stop the
 * others; the first error is thrown once every job has ended and its output has been shown.
 */
export async function runOrdered<T>(jobs: readonly OrderedJob<T>[], limit: number, io: CliIo): Promise<T[]> {
  const results: T[] = [];
  if (limit <= 1) {
    for (const job of jobs) results.push(await job.run(io));
    return results;
  }
  const buffers = jobs.map(() => [] as { err: boolean; text: string }[]);
  const finished = jobs.map(() => false);
  let shown = 0;
  const write = (index: number, err: boolean, text: string) => {
    if (index === shown) (err ? io.err : io.out).call(io, text);
    else buffers[index]!.push({ err, text });
  };
  const finish = (index: number) => {
    finished[index] = true;
    while (shown < jobs.length && finished[shown]) {
      shown++;
      // The next job now writes through; first what it has written so far.
      for (const { err, text } of buffers[shown]?.splice(0) ?? []) (err ? io.err : io.out).call(io, text);
    }
  };
  const ioFor = (index: number): CliIo => {
    const { terminal: _live, ...rest } = io;
    return { ...rest, out: (text) => write(index, false, text), err: (text) => write(index, true, text) };
  };
  const order = jobs.map((_, i) => i).sort((a, b) => Number(jobs[b]!.startFirst === true) - Number(jobs[a]!.startFirst === true) || a - b);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const index = order[next++]!;
      try {
        results[index] = await jobs[index]!.run(ioFor(index));
      } catch (error) {
        errors.push(error);
      } finally {
        finish(index);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  if (errors.length > 0) throw errors[0];
  return results;
}
