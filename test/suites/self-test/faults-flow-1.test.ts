// Self-test: every flow fault of the mock server's catalog (part 1 of 2) is caught by a case that
// declares the fault's requirement, run against the mock with only that fault on.
import { describe, expect, it } from 'vitest';
import { faultsOf, listed, SELF_TEST_TIMEOUT_MS, uncaughtFaults } from './support.js';

describe('flow faults, part 1 of 2', () => {
  const faults = faultsOf('flow', 1, 2);
  it(
    `each of ${faults.length} faults is caught (a FAIL or WARN citing its requirement)`,
    async () => {
      const { uncaught, changes } = await uncaughtFaults(faults, { verdicts: 'self-test/faults-flow-1' });
      expect(uncaught, listed('fault(s) caught by no case', uncaught)).toEqual([]);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/faults-flow-1.json', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
