import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Started first, in this order: the type check, then the files that take longest (every server
 * case against the mock, real peers, the client command against misbehaving clients, the suites'
 * own runs). A fresh install (CI) has no timings and vitest would start the largest files first,
 * leaving these small but long files to run alone at the end.
 */
const STARTED_FIRST: readonly RegExp[] = [
  /\/test\/typecheck\.test\.ts$/,
  /\/test\/suites\/self-test\//,
  /\/test\/interop\//,
  /\/test\/cli\/client-exit-/,
  /\/test\/suites\/[^/]+\.test\.ts$/,
  /\/test\/integration\//,
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = STARTED_FIRST.findIndex((pattern) => pattern.test(file.moduleId.replace(/\\/g, '/')));
      return at < 0 ? STARTED_FIRST.length : at;
    };
    return sorted.map((file, order) => ({ file, order, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.order - b.order).map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The threads pool segfaults once a worker that loaded a native addon is terminated.
    pool: 'forks',
    // A worker keeps the modules it loaded for its next file: loading the sources again for each
    // of 270 files cost more CPU than many of them run (no test mocks modules or leaves globals
    // changed; fake timers are put back by the tests that use them).
    isolate: false,
    // Most suites wait on sockets, timers and child processes rather than compute: more workers
    // than cores keeps a 2-core CI machine busy (the tests never assert on timing). On 2 cores, 4
    // workers kept 1.5 of them busy (438 s), 6 about 1.65; 10 keep 1.9: back to back, 279 s with 6
    // and 232 s with 10 (253 s in another run), the machine's memory in use peaking at 4.3 GB both ways.
    maxWorkers: 10,
    sequence: { sequencer: LongestFirst },
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
