// Self-test: the mock server taking the alternate readings (mock-server --readings alternate) passes every applicable server case over WebTransport, five seeds.
import { describe, expect, it } from 'vitest';
import { pinnedReadingsNotSeen } from './readings.js';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the alternate-readings mock server over WebTransport', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied, changes } = await correctMockProblems('wt', { server: { readings: 'alternate', encodings: ['cbor', 'json'] }, verdicts: 'self-test/correct-alt-wt', alsoCheck: (cases) => pinnedReadingsNotSeen('the alternate mock over WebTransport', cases) });
      expect(problems, listed('case(s) failed the alternate-readings mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-alt-wt.json, or pinned reading(s) not seen', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
