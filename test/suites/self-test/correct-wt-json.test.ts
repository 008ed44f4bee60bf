// Self-test: the correct mock server passes every applicable server case over WebTransport speaking JSON only.
import { describe, expect, it } from 'vitest';
import { pinnedReadingsNotSeen } from './readings.js';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the correct mock server over WebTransport speaking JSON only', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied, changes } = await correctMockProblems('wt', { server: { encodings: ['json'] }, verdicts: 'self-test/correct-wt-json', alsoCheck: (cases) => pinnedReadingsNotSeen('the mock over WebTransport (json only)', cases) });
      expect(problems, listed('case(s) failed the correct mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-wt-json.json, or pinned reading(s) not seen', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
