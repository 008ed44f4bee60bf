// Self-test: the mock server taking the alternate readings passes every applicable server case over
// stdio, five seeds, served in this process on pipes (pipedMockServer, as `npm start` serves it): the
// readings are the mock's, not the process's, and correct-stdio-* runs the process per case. The
// pinned tables (test/verdicts/self-test/correct-alt-stdio-<shard>.json) were taken with a process
// per case: each run here getting them shows serving it in this process moves no verdict.
import { describe, expect, it } from 'vitest';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

const SHARDS = 6;

describe('the alternate-readings mock server over stdio (in this process, on pipes)', () => {
  for (let index = 1; index <= SHARDS; index++) {
    it(
      `gets no FAIL, WARN, TIMEOUT or ERROR from any case (shard ${index} of ${SHARDS})`,
      async () => {
        const group = `self-test/correct-alt-stdio-${index}`;
        const { problems, applied, changes } = await correctMockProblems('stdio', { shard: { index, count: SHARDS }, server: { readings: 'alternate' }, piped: true, verdicts: group });
        expect(problems, listed('case(s) failed the alternate-readings mock server', problems)).toEqual([]);
        expect(applied).toBeGreaterThan(0);
        expect(changes, listed(`verdict(s) differ from test/verdicts/${group}.json`, changes)).toEqual([]);
      },
      SELF_TEST_TIMEOUT_MS,
    );
  }
});
