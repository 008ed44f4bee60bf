// Issue 4: "at least one fault for every MUST in the profile that a server can break", and issue
// 16: one for every SHOULD a server case checks. This test is the ratchet: every testable server
// MUST, and every server SHOULD a case declares, either has a fault in the mock server's catalog
// or is on a list below with the reason. A fault added for a listed requirement must take it off
// the list, and a new MUST or checked SHOULD without a fault fails here until it gets one.
import { describe, expect, it } from 'vitest';
import { requirements } from '../../../src/protocol/requirements.js';
import { mockServerFaultCatalog } from '../../../src/peer/server/index.js';
import { serverCases } from '../../../suites/server/index.js';

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

/**
 * Issue 16: every server SHOULD a server case declares has a fault that makes it WARN (the fault
 * self-tests, test/suites/self-test/faults-*.test.ts, run each fault and show the WARN; the
 * correct-mock self-tests show no WARN without it), or is listed here with the reason.
 */
const SHOULDS_WITHOUT_A_FAULT: Record<string, string> = {
  'FLOW-STATELESS-2': 'its case only reports which accepted reading the token takes (every form of token is one of them): no check of it can fail',
  'FW-STREAM-1': 'its case only reports which accepted delivery invoke_agent uses (traces as notifications, NDJSON, only the final output): no check of it can fail',
  'FLOW-SEC-5':
    'judged only for a target reached on a non-loopback address; a fault would have to listen on a network address, and the tests keep every server on 127.0.0.1 (where the case reports plain http as INFO)',
};

describe('fault coverage of the server SHOULDs the cases check', () => {
  const faulted = new Set(mockServerFaultCatalog().map((fault) => fault.requirement));
  const catalog = requirements().catalog.requirements;
  const checked = new Set(serverCases().flatMap((c) => c.requirements));
  const shoulds = catalog.filter((r) => r.level === 'SHOULD' && (r.role === 'server' || r.role === 'both') && checked.has(r.id)).map((r) => r.id);

  it('every checked server SHOULD has a fault, or is listed with the reason it has none', () => {
    expect(shoulds.filter((id) => !faulted.has(id) && !Object.hasOwn(SHOULDS_WITHOUT_A_FAULT, id)), 'SHOULDs with no fault and not listed').toEqual([]);
  });

  it('the list holds only checked SHOULDs that still have no fault', () => {
    for (const id of Object.keys(SHOULDS_WITHOUT_A_FAULT)) {
      expect(shoulds.includes(id), `${id} is not a server SHOULD a case checks`).toBe(true);
      expect(faulted.has(id), `${id} has a fault now: take it off the list`).toBe(false);
    }
  });
});

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
