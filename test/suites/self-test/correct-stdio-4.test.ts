// Self-test: the correct mock server passes every applicable server case over stdio (shard 4 of 6: a process per case).
import { describe, expect, it } from 'vitest';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the correct mock server over stdio (shard 4 of 6: a process per case)', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied, changes } = await correctMockProblems('stdio', { shard: { index: 4, count: 6 }, verdicts: 'self-test/correct-stdio-4' });
      expect(problems, listed('case(s) failed the correct mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-stdio-4.json', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
