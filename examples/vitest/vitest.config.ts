// vitest configuration for the example: the forks pool (the WebTransport client loads a native
// addon that worker threads do not unload cleanly) and room for a conformance run in beforeAll.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.conformance.test.ts'],
    pool: 'forks',
  },
});
