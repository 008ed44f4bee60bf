import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The threads pool segfaults once a worker that loaded a native addon is terminated.
    pool: 'forks',
    // Most suites wait on sockets, timers and child processes rather than compute: more workers
    // than cores keeps a 2-core CI machine busy (the tests never assert on timing).
    maxWorkers: 4,
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
