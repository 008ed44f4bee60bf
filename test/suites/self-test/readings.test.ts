// Self-test: each accepted reading of every server requirement in the catalog is taken by the mock
// or the alternate-readings mock (or a configuration of one) and seen by a case, over WebTransport,
// Streamable HTTP and stdio; READINGS_NO_MOCK_SHOWS lists the exceptions with their reasons.
import { describe, expect, it } from 'vitest';
import {
  acceptedReadings,
  CONFIGURATION_RUNS,
  MOCK_RUNS,
  READINGS_NO_MOCK_SHOWS,
  readingCases,
  readingsOf,
  STDIO_RUNS,
  type ReadingKey,
} from './readings.js';
import { listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('accepted readings of the server requirements', () => {
  it(
    'each is taken by the mock or the alternate mock and seen by a case (wt, http, stdio, and the configured mocks)',
    async () => {
      const all = acceptedReadings();
      const seen = new Set<ReadingKey>();
      const problems: string[] = [];
      for (const run of [...MOCK_RUNS, ...CONFIGURATION_RUNS]) {
        const outcome = await readingsOf(run);
        for (const key of outcome.seen) seen.add(key);
        problems.push(...outcome.problems);
      }
      // stdio spawns a process per case: only the cases whose readings are still missing.
      const missingSoFar = new Set(all.filter((key) => !seen.has(key) && !Object.hasOwn(READINGS_NO_MOCK_SHOWS, key)).map((key) => key.split('#')[0]!));
      for (const run of STDIO_RUNS) {
        const outcome = await readingsOf(run, readingCases([...missingSoFar]));
        for (const key of outcome.seen) seen.add(key);
        problems.push(...outcome.problems);
      }
      expect(problems, listed('case(s) failed a mock while their readings were collected', problems)).toEqual([]);
      const missing = all.filter((key) => !seen.has(key) && !Object.hasOwn(READINGS_NO_MOCK_SHOWS, key));
      expect(missing, listed('accepted reading(s) no mock was seen to take', missing)).toEqual([]);
      const stale = Object.keys(READINGS_NO_MOCK_SHOWS).filter((key) => seen.has(key as ReadingKey) || !all.includes(key as ReadingKey));
      expect(stale, listed('reading(s) listed as shown by no mock that a case saw, or that the catalog no longer lists', stale)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
