// runOrdered (the self-test's parallel runs): at most `limit` jobs at once, the longest started
// first, and the output reads job by job in the jobs' order whatever finishes first.
import { describe, expect, it } from 'vitest';
import { runOrdered, type OrderedJob } from '../../src/cli/ordered-jobs.js';
import { recordingIo } from '../support/cli.js';

/** A job whose end the test decides: `release()` lets it finish. */
function gated(name: string, startFirst = false) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started = false;
  const job: OrderedJob<string> = {
    startFirst,
    run: async (io) => {
      started = true;
      io.out(`${name} begins`);
      await gate;
      io.err(`${name} warns`);
      io.out(`${name} ends`);
      return name;
    },
  };
  return { job, release, started: () => started };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('runOrdered', () => {
  it('shows each job’s output whole and in order, the first one live, and returns the results in order', async () => {
    const io = recordingIo();
    const [a, b, c] = [gated('a'), gated('b'), gated('c')];
    const done = runOrdered([a.job, b.job, c.job], 3, io);
    await settle();
    expect(io.stdout).toBe('a begins\n');
    c.release();
    b.release();
    await settle();
    expect(io.stdout).toBe('a begins\n');
    a.release();
    expect(await done).toEqual(['a', 'b', 'c']);
    expect(io.stdout).toBe('a begins\na ends\nb begins\nb ends\nc begins\nc ends\n');
    expect(io.stderr).toBe('a warns\nb warns\nc warns\n');
  });

  it('runs at most `limit` jobs at once and starts the jobs marked startFirst before the others', async () => {
    const io = recordingIo();
    const [a, b, c] = [gated('a'), gated('b', true), gated('c')];
    const done = runOrdered([a.job, b.job, c.job], 2, io);
    await settle();
    expect([a.started(), b.started(), c.started()]).toEqual([true, true, false]);
    b.release();
    await settle();
    expect(c.started()).toBe(true);
    a.release();
    c.release();
    expect(await done).toEqual(['a', 'b', 'c']);
  });

  it('one at a time, every job writes through the given io as it runs, terminal included', async () => {
    const terminal = { write: () => true, isTTY: true, columns: 80 };
    const seen: unknown[] = [];
    const jobs = ['a', 'b'].map((name) => ({ run: async (io: Parameters<OrderedJob<string>['run']>[0]) => (seen.push(io.terminal), name) }));
    expect(await runOrdered(jobs, 1, { ...recordingIo(), terminal })).toEqual(['a', 'b']);
    expect(seen).toEqual([terminal, terminal]);
  });

  it('a job that throws lets the others end and show their output, then the error is thrown', async () => {
    const io = recordingIo();
    const failing: OrderedJob<string> = { run: async () => Promise.reject(new Error('broken run')) };
    const fine: OrderedJob<string> = { run: async (out) => (out.out('fine ran'), 'fine') };
    await expect(runOrdered([failing, fine], 2, io)).rejects.toThrow('broken run');
    expect(io.stdout).toBe('fine ran\n');
  });
});
