// Self-test: every fastworkflow fault of the mock server's catalog (part 1 of 1) is caught by a case that
// declares the fault's requirement, run against the mock with only that fault on.
import { describe, expect, it } from 'vitest';
import { faultsOf, listed, SELF_TEST_TIMEOUT_MS, uncaughtFaults } from './support.js';

describe('fastworkflow faults, part 1 of 1', () => {
  const faults = faultsOf('fastworkflow', 1, 1);
  it(
    `each of ${faults.length} faults is caught (a FAIL or WARN citing its requirement)`,
    async () => {
      const { uncaught, changes } = await uncaughtFaults(faults, { verdicts: 'self-test/faults-fastworkflow' });
      expect(uncaught, listed('fault(s) caught by no case', uncaught)).toEqual([]);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/faults-fastworkflow.json', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
