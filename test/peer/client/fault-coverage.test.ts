// The ratchet for the client side: every MUST or SHOULD that a client case checks either has a
// fault in the mock client's catalog (so test/suites/client shows the check can FAIL or WARN) or
// is listed below with the reason no mock-client fault can break it. A fault added for a listed
// requirement must take it off the list; a new check of a requirement without a fault fails here
// until it gets one or is listed.
import { describe, expect, it } from 'vitest';
import { requirements } from '../../../src/protocol/requirements.js';
import { mockClientFaultCatalog } from '../../../src/peer/client/index.js';
import { clientCases } from '../../../suites/client/index.js';

/** Checked by client cases, but no mock-client fault can break them, with the reason (none left). */
const NO_FAULT_POSSIBLE: Readonly<Record<string, string>> = {};

describe('fault coverage of what the client cases check', () => {
  const catalog = requirements();
  const faulted = new Set(mockClientFaultCatalog().map((fault) => fault.requirement));
  const checked = [...new Set(clientCases().flatMap((c) => c.requirements))].filter((id) => ['MUST', 'SHOULD'].includes(catalog.get(id).level));

  it('every MUST or SHOULD a client case checks has a mock-client fault, or is listed with the reason none can break it', () => {
    expect(checked.filter((id) => !faulted.has(id) && !Object.hasOwn(NO_FAULT_POSSIBLE, id)), 'checked with no fault and not listed').toEqual([]);
  });

  it('the list holds only requirements the client cases check and no fault breaks', () => {
    for (const id of Object.keys(NO_FAULT_POSSIBLE)) {
      expect(checked.includes(id), `${id} is not checked by a client case`).toBe(true);
      expect(faulted.has(id), `${id} has a fault now: take it off the list`).toBe(false);
    }
  });
});
