// Self-test: each accepted reading of every server requirement in the catalog is taken by the mock
// or the alternate-readings mock (or a configuration of one) and seen by a case, over WebTransport,
// Streamable HTTP and stdio; READINGS_NO_MOCK_SHOWS lists the exceptions with their reasons.
import { describe, expect, it } from 'vitest';
import {
  acceptedReadings,
  CONFIGURATION_RUNS,
  MOCK_RUNS,
  pinnedReadings,
  READINGS_NO_MOCK_SHOWS,
  readingCases,
  readingsOf,
  STDIO_RUNS,
  writePinnedReadings,
  type ReadingKey,
} from './readings.js';
import { UPDATING_VERDICTS } from '../../support/verdict-tables.js';
import { listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('accepted readings of the server requirements', () => {
  it(
    'each is taken by the mock or the alternate mock and seen by a case (wt, http, stdio, and the configured mocks)',
    async () => {
      const all = acceptedReadings();
      const seen = new Set<ReadingKey>();
      const problems: string[] = [];
      // The correct-* files' runs: pinned (each of those files checks that its run still shows
      // its pinned readings), run here only to pin them anew.
      if (UPDATING_VERDICTS) {
        const seenByRun = new Map<string, Set<ReadingKey>>();
        for (const run of MOCK_RUNS) {
          const outcome = await readingsOf(run);
          seenByRun.set(run.name, outcome.seen);
          problems.push(...outcome.problems);
        }
        writePinnedReadings(seenByRun);
      }
      const pinned = pinnedReadings();
      for (const run of MOCK_RUNS) for (const key of pinned[run.name] ?? []) seen.add(key);
      for (const run of CONFIGURATION_RUNS) {
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
