// The injection suite (WebTransport part) against the mock server: clean on WebTransport (CBOR and
// JSON negotiated), not applicable on the other transports, and every fault of its areas (WT-ID,
// WT-SEC) caught by the cases that declare the fault's requirement.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { cases as framing } from '../../suites/server/webtransport/framing.js';
import { cases } from '../../suites/server/webtransport/injection.js';
import { cases as streamLimits } from '../../suites/server/webtransport/stream-limits.js';
import { casesFlagging, casesFor, type MockRun, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

/** Every case of the three WebTransport-binding modules: a fault is caught by whichever declares it. */
const bindingCases = [...framing, ...cases, ...streamLimits];
const AREAS = /^WT-(ID|SEC)-/;
/** Faults of these areas that no case can catch from outside, with the reason. */
const UNCATCHABLE: Record<string, string> = {};


describe('injection suite on the correct mock', () => {
  it('has no FAIL, WARN, TIMEOUT or ERROR over WebTransport with CBOR negotiated', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    // The mock starts wizards that prompt with a request, so the server-request case really ran.
    expect(run.verdicts['injection/stream-header-names-server-request']).toBe('PASS');
    expect(run.get('injection/foreign-origin-refused').checks.map((k) => [k.requirement, k.verdict])).toEqual([
      ['WT-SEC-1', 'PASS'],
      ['WT-SEC-1', 'INFO'],
      ['WT-SEC-5', 'INFO'],
    ]);
  }, 60_000);

  it('has no FAIL, WARN, TIMEOUT or ERROR over WebTransport with JSON negotiated', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] } });
    expect(run.problems).toEqual([]);
  }, 60_000);

  for (const transport of ['http', 'stdio'] as const) {
    it(`is not applicable over ${transport}, saying why`, async () => {
      const run = await runOnMock(cases, { transport });
      for (const result of run.result.cases) {
        expect(result.verdict).toBe('NOT_APPLICABLE');
        expect(result.reason).toMatch(/webtransport/i);
      }
    }, 60_000);
  }
});

describe('injection suite catches every fault of its areas', () => {
  const faults = mockServerFaultCatalog().filter((f) => AREAS.test(f.requirement));

  it('has faults to catch, and the uncatchable list names only faults of the catalog', () => {
    expect(faults.length).toBeGreaterThan(0);
    for (const name of Object.keys(UNCATCHABLE)) expect(faults.map((f) => f.name)).toContain(name);
  });

  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(faults, bindingCases)) {
    it.concurrent(`${fault.name} (${fault.requirement})`, async () => {
      if (UNCATCHABLE[fault.name] !== undefined) return;
      const declaring = casesFor(bindingCases, fault.requirement);
      expect(declaring.length, `no case declares ${fault.requirement}`).toBeGreaterThan(0);
      const run = await runOnMock(declaring, { transport: 'wt', faults: [fault.name] });
      expect(casesFlagging(run, fault.requirement), JSON.stringify(run.result.cases.map((c) => [c.id, c.verdict, c.reason]))).not.toEqual([]);
    }, 60_000);
  }
});


describe('injection suite on the alternate-readings mock', () => {
  it('passes, and reports each reading the alternate mock takes', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { readings: 'alternate' } });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'injection/foreign-origin-refused', 'WT-SEC-1')).toEqual([2]);
    expect(readingsSeen(run, 'injection/foreign-origin-refused', 'WT-SEC-5')).toEqual([2]);
    expect(readingsSeen(run, 'injection/string-request-id', 'WT-ID-2')).toEqual([1]);
    expect(readingsSeen(run, 'injection/raw-stream-garbage-header', 'WT-EXEC-1')).toEqual([2]);
    expect(readingsSeen(run, 'injection/request-id-out-of-range', 'WT-ID-3')).toContain(3);
  }, 60_000);
});
