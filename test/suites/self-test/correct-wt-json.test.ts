// Self-test: the correct mock server passes every applicable server case over WebTransport speaking JSON only.
import { describe, expect, it } from 'vitest';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the correct mock server over WebTransport speaking JSON only', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied } = await correctMockProblems('wt', { server: { encodings: ['json'] } });
      expect(problems, listed('case(s) failed the correct mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
