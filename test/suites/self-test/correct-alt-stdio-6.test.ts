// Self-test: the mock server taking the alternate readings passes every applicable server case over stdio (shard 6 of 6: a process per case), five seeds.
import { describe, expect, it } from 'vitest';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the alternate-readings mock server over stdio (shard 6 of 6: a process per case)', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied, changes } = await correctMockProblems('stdio', { shard: { index: 6, count: 6 }, server: { readings: 'alternate' }, verdicts: 'self-test/correct-alt-stdio-6' });
      expect(problems, listed('case(s) failed the alternate-readings mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-alt-stdio-6.json', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
