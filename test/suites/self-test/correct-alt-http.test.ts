// Self-test: the mock server taking the alternate readings (mock-server --readings alternate) passes every applicable server case over Streamable HTTP, five seeds.
import { describe, expect, it } from 'vitest';
import { pinnedReadingsNotSeen } from './readings.js';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the alternate-readings mock server over Streamable HTTP', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied, changes } = await correctMockProblems('http', { server: { readings: 'alternate' }, verdicts: 'self-test/correct-alt-http', alsoCheck: (cases) => pinnedReadingsNotSeen('the alternate mock over Streamable HTTP', cases) });
      expect(problems, listed('case(s) failed the alternate-readings mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-alt-http.json, or pinned reading(s) not seen', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
