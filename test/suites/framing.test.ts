// The framing suite against the mock server: clean on WebTransport (CBOR and JSON negotiated), not
// applicable on the other transports, and every fault of its areas (WT-CONN, WT-FRAME, WT-ERR)
// caught by the cases that declare the fault's requirement.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { cases } from '../../suites/server/webtransport/framing.js';
import { cases as injection } from '../../suites/server/webtransport/injection.js';
import { cases as streamLimits } from '../../suites/server/webtransport/stream-limits.js';
import { casesFlagging, casesFor, type MockRun, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

/** Every case of the three WebTransport-binding modules: a fault is caught by whichever declares it. */
const bindingCases = [...cases, ...injection, ...streamLimits];
const AREAS = /^WT-(CONN|FRAME|ERR)-/;
/** Faults of these areas that no case can catch from outside, with the reason. */
const UNCATCHABLE: Record<string, string> = {};


describe('framing suite on the correct mock', () => {
  it('has no FAIL, WARN, TIMEOUT or ERROR over WebTransport with CBOR negotiated', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    expect(run.verdicts['framing/oversized-frame-skipped-or-session-closed']).toBe('INFO');
    expect(run.get('framing/frame-split-across-writes').seed).toBeTypeOf('number');
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

describe('framing suite catches every fault of its areas', () => {
  const faults = mockServerFaultCatalog().filter((f) => AREAS.test(f.requirement));

  it('has faults to catch, and the uncatchable list names only faults of the catalog', () => {
    expect(faults.length).toBeGreaterThan(0);
    for (const name of Object.keys(UNCATCHABLE)) expect(faults.map((f) => f.name)).toContain(name);
  });

  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(faults, bindingCases)) {
    it.concurrent(`${fault.name} (${fault.requirement})`, async () => {
      const declaring = casesFor(bindingCases, fault.requirement);
      if (UNCATCHABLE[fault.name] !== undefined) return;
      expect(declaring.length, `no case declares ${fault.requirement}`).toBeGreaterThan(0);
      const run = await runOnMock(declaring, { transport: 'wt', faults: [fault.name] });
      expect(casesFlagging(run, fault.requirement), JSON.stringify(run.result.cases.map((c) => [c.id, c.verdict, c.reason]))).not.toEqual([]);
    }, 60_000);
  }
});

describe('the binding suites declare every checkable server requirement of their areas', () => {
  it('each testable server/both MUST and SHOULD of WT-CONN, -FRAME, -ERR, -ID, -SEC, -LIMIT is declared by a case', () => {
    const declared = new Set(bindingCases.flatMap((c) => c.requirements));
    const wanted = requirements()
      .list({ system: 'WT' })
      .filter((r) => /^WT-(CONN|FRAME|ERR|ID|SEC|LIMIT)-/.test(r.id) && r.role !== 'client' && r.testable === true && (r.level === 'MUST' || r.level === 'SHOULD'));
    expect(wanted.length).toBeGreaterThan(15);
    expect(wanted.map((r) => r.id).filter((id) => !declared.has(id))).toEqual([]);
  });
});


describe('framing suite on the alternate-readings mock', () => {
  it('passes, and reports each reading the alternate mock takes', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { readings: 'alternate' } });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'framing/zero-length-frame', 'WT-FRAME-2')).toEqual([2]);
    expect(readingsSeen(run, 'framing/oversized-frame-skipped-or-session-closed', 'WT-FRAME-7')).toEqual([1]);
    expect(readingsSeen(run, 'framing/stream-ends-inside-frame', 'WT-FRAME-5')).toEqual([2]);
    // The ping answered with its result (3), tools/list refused with -32601 (2).
    expect(readingsSeen(run, 'framing/first-message-not-initialize', 'WT-CONN-4')).toEqual([2, 3]);
    expect(readingsSeen(run, 'framing/first-message-notification', 'WT-CONN-4')).toEqual([2]);
    expect(readingsSeen(run, 'framing/message-while-initializing', 'WT-CONN-4')).toEqual([4]);
  }, 60_000);

  it('reports the recommended readings on the reference mock', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(readingsSeen(run, 'framing/zero-length-frame', 'WT-FRAME-2')).toEqual([1]);
    expect(readingsSeen(run, 'framing/stream-ends-inside-frame', 'WT-FRAME-5')).toEqual([1]);
    expect(readingsSeen(run, 'framing/first-message-not-initialize', 'WT-CONN-4')).toEqual([1]);
    expect(readingsSeen(run, 'framing/first-message-notification', 'WT-CONN-4')).toEqual([1]);
  }, 60_000);
});
