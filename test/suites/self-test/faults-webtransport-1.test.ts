// Self-test: every webtransport fault of the mock server's catalog (part 1 of 2) is caught by a case that
// declares the fault's requirement, run against the mock with only that fault on.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../../src/peer/server/index.js';
import { faultsOf, listed, NOT_CATCHABLE_FROM_OUTSIDE, NOT_RELIABLY_CATCHABLE, SELF_TEST_TIMEOUT_MS, uncaughtFaults } from './support.js';

describe('webtransport faults, part 1 of 2', () => {
  const faults = faultsOf('webtransport', 1, 2);
  it(
    `each of ${faults.length} faults is caught (a FAIL or WARN citing its requirement)`,
    async () => {
      const { uncaught, changes } = await uncaughtFaults(faults, { verdicts: 'self-test/faults-webtransport-1' });
      expect(uncaught, listed('fault(s) caught by no case', uncaught)).toEqual([]);
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/faults-webtransport-1.json', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});

describe('faults listed as not catchable from outside', () => {
  it('each is a fault of the catalog', () => {
    const names = new Set(mockServerFaultCatalog().map((fault) => fault.name));
    expect([...Object.keys(NOT_CATCHABLE_FROM_OUTSIDE), ...Object.keys(NOT_RELIABLY_CATCHABLE)].filter((name) => !names.has(name))).toEqual([]);
  });
});
