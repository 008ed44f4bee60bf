import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The threads pool segfaults once a worker that loaded a native addon is terminated.
    pool: 'forks',
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
