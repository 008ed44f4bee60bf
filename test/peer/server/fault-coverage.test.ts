// Issue 4: "at least one fault for every MUST in the profile that a server can break". This test
// is the ratchet: every testable server MUST either has a fault in the mock server's catalog or
// is on the list below of MUSTs still waiting for one. A fault added for a listed requirement
// must take it off the list, and a new MUST without a fault fails here until it gets one.
import { describe, expect, it } from 'vitest';
import { requirements } from '../../../src/protocol/requirements.js';
import { mockServerFaultCatalog } from '../../../src/peer/server/index.js';

/** Server MUSTs that no fault breaks yet (work for the next session; keep sorted as found). */
const AWAITING_A_FAULT = [
  'CORE-VER-8', 'FLOW-SM-3', 'FLOW-SM-4', 'FLOW-ERR-1', 'WT-CONN-1', 'WT-CONN-6', 'WT-FRAME-5', 'WT-FRAME-6',
  'WT-FRAME-7', 'WT-ENC-8', 'WT-ENC-9', 'WT-ENC-10', 'WT-INIT-7', 'WT-EXEC-4', 'WT-EXEC-5', 'WT-EXEC-6', 'WT-EXEC-8',
  'WT-DGRAM-1', 'WT-DGRAM-6', 'WT-DGRAM-7', 'WT-DGRAM-8', 'WT-DGRAM-10', 'WT-ID-1', 'WT-ID-4', 'WT-CANCEL-1',
  'WT-SHUT-1', 'WT-LIMIT-3', 'WT-SEC-2', 'WT-ERR-1', 'WT-ERR-3', 'FW-TRANSPORT-1', 'FW-TRANSPORT-3', 'FW-TRANSPORT-4',
  'FW-TOOL-1', 'FW-TOOL-2',
];

describe('fault coverage of the server MUSTs', () => {
  const faulted = new Set(mockServerFaultCatalog().map((fault) => fault.requirement));
  const serverMusts = requirements().catalog.requirements.filter(
    (r) => r.level === 'MUST' && (r.role === 'server' || r.role === 'both') && r.testable === true,
  );

  it('every testable server MUST has a fault, or is listed as awaiting one', () => {
    const uncovered = serverMusts.filter((r) => !faulted.has(r.id)).map((r) => r.id);
    expect(uncovered.filter((id) => !AWAITING_A_FAULT.includes(id)), 'MUSTs with no fault and not listed').toEqual([]);
  });

  it('the list holds only MUSTs that still have no fault', () => {
    const ids = new Set(serverMusts.map((r) => r.id));
    for (const id of AWAITING_A_FAULT) {
      expect(ids.has(id), `${id} is not a testable server MUST`).toBe(true);
      expect(faulted.has(id), `${id} has a fault now: take it off the list`).toBe(false);
    }
  });
});
