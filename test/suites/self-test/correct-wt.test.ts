// Self-test: the correct mock server passes every applicable server case over WebTransport (encodings cbor, json).
import { describe, expect, it } from 'vitest';
import { pinnedReadingsNotSeen } from './readings.js';
import { correctMockProblems, listed, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the correct mock server over WebTransport (encodings cbor, json)', () => {
  it(
    'gets no FAIL, WARN, TIMEOUT or ERROR from any case',
    async () => {
      const { problems, applied, changes } = await correctMockProblems('wt', { server: { encodings: ['cbor', 'json'] }, verdicts: 'self-test/correct-wt', alsoCheck: (cases) => pinnedReadingsNotSeen('the mock over WebTransport (cbor, json)', cases) });
      expect(problems, listed('case(s) failed the correct mock server', problems)).toEqual([]);
      expect(applied).toBeGreaterThan(0);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-wt.json, or pinned reading(s) not seen', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
