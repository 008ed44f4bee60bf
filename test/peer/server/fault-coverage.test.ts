// Issue 4: "at least one fault for every MUST in the profile that a server can break". This test
// is the ratchet: every testable server MUST either has a fault in the mock server's catalog or
// is on the list below of MUSTs still waiting for one. A fault added for a listed requirement
// must take it off the list, and a new MUST without a fault fails here until it gets one.
import { describe, expect, it } from 'vitest';
import { requirements } from '../../../src/protocol/requirements.js';
import { mockServerFaultCatalog } from '../../../src/peer/server/index.js';

/** Server MUSTs that no fault breaks yet (none left: a new MUST without a fault goes here until it gets one). */
const AWAITING_A_FAULT: string[] = [];

/**
 * MUSTs that only sum up others: a server breaks them exactly when it breaks one of their parts,
 * and each part has its own fault.
 */
const BROKEN_THROUGH_THEIR_PARTS: Record<string, string> = {
  'WT-CONN-1':
    'the 001 §1 state machine as a whole: its server-side steps are WT-CONN-4 (nothing served before initialize), WT-CONN-6 (control stream end closes), WT-SHUT-2..4 (shutdown to CLOSED), each with faults',
};

describe('fault coverage of the server MUSTs', () => {
  const faulted = new Set(mockServerFaultCatalog().map((fault) => fault.requirement));
  const serverMusts = requirements().catalog.requirements.filter(
    (r) => r.level === 'MUST' && (r.role === 'server' || r.role === 'both') && r.testable === true,
  );

  it('every testable server MUST has a fault, or is listed as awaiting one', () => {
    const uncovered = serverMusts.filter((r) => !faulted.has(r.id)).map((r) => r.id);
    expect(
      uncovered.filter((id) => !AWAITING_A_FAULT.includes(id) && !Object.hasOwn(BROKEN_THROUGH_THEIR_PARTS, id)),
      'MUSTs with no fault and not listed',
    ).toEqual([]);
  });

  it('the list holds only MUSTs that still have no fault', () => {
    const ids = new Set(serverMusts.map((r) => r.id));
    for (const id of [...AWAITING_A_FAULT, ...Object.keys(BROKEN_THROUGH_THEIR_PARTS)]) {
      expect(ids.has(id), `${id} is not a testable server MUST`).toBe(true);
      expect(faulted.has(id), `${id} has a fault now: take it off the list`).toBe(false);
    }
  });
});
