// The shutdown suite against the mock server: no unexpected problem on the correct server, not
// applicable off WebTransport, and every binding fault of WT-SHUT-* caught by the cases declaring
// its requirement (or listed with the reason it cannot be caught from outside).
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { cases } from '../../suites/server/webtransport/shutdown.js';
import { casesFlagging, casesFor, type MockRun, runOnMock, notCaughtInSharedLoop } from './support.js';

/** Faults no case can catch from outside, with the reason (expected to stay exact). */
const UNCATCHABLE: Record<string, string> = {
  'shutdown-sent-with-id': 'the server sends its own $/shutdown only when it shuts a session down itself, which a client cannot make it do',
};

const FAULTS = mockServerFaultCatalog().filter((f) => f.requirement.startsWith('WT-SHUT-'));

function unexpectedProblems(run: MockRun): unknown[] {
  return run.result.cases.flatMap((c): unknown[] => {
    if (c.verdict === 'TIMEOUT' || c.verdict === 'ERROR') return [{ id: c.id, verdict: c.verdict, reason: c.reason }];
    return c.checks
      .filter((k) => (k.verdict === 'FAIL' || k.verdict === 'WARN'))
      .map((k) => ({ id: c.id, requirement: k.requirement, message: k.message, actual: k.actual }));
  });
}

describe('shutdown suite on the mock server', () => {
  for (const encodings of [undefined, ['json']]) {
    it(`finds no unexpected problem on the correct server over WebTransport (${encodings ? 'JSON only' : 'CBOR negotiated'})`, async () => {
      const run = await runOnMock(cases, { transport: 'wt', ...(encodings ? { server: { encodings } } : {}) });
      expect(unexpectedProblems(run)).toEqual([]);
      expect(run.verdicts['shutdown/idle-close']).toBe('PASS');
      const drained = run.get('shutdown/drain-in-flight').checks.filter((k) => k.requirement === 'WT-SHUT-3' && k.verdict !== 'INFO');
      expect(drained.map((k) => k.verdict)).toEqual(['PASS']);
    }, 60_000);
  }

  it('is not applicable over HTTP and stdio', async () => {
    for (const transport of ['http', 'stdio'] as const) {
      const run = await runOnMock(cases, { transport });
      expect(new Set(Object.values(run.verdicts))).toEqual(new Set(['NOT_APPLICABLE']));
    }
  }, 60_000);

  it('catches every shutdown fault in the catalog', async () => {
    expect(FAULTS.length).toBeGreaterThan(0);
    const outcomes = await Promise.all(
      // Only the faults the shared fault loop's pinned runs do not show caught by a case of this
      // suite (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
      notCaughtInSharedLoop(FAULTS.filter((f) => UNCATCHABLE[f.name] === undefined), cases).map(async (fault) => {
        const run = await runOnMock(casesFor(cases, fault.requirement), { transport: 'wt', faults: [fault.name] });
        const caught = casesFlagging(run, fault.requirement).length > 0;
        return { fault: fault.name, requirement: fault.requirement, caught, ...(caught ? {} : { verdicts: run.verdicts }) };
      }),
    );
    expect(outcomes.filter((o) => !o.caught)).toEqual([]);
    expect(Object.keys(UNCATCHABLE).filter((name) => !FAULTS.some((f) => f.name === name))).toEqual([]);
  }, 120_000);
});

/** The INFO messages a case reported under `requirement` (the readings it observed). */
function readingsOf(run: MockRun, id: string, requirement: string): string {
  return run.get(id).checks.filter((check) => check.requirement === requirement && check.verdict === 'INFO').map((check) => check.message).join(' | ');
}

describe('shutdown suite on the alternate-readings mock', () => {
  it('passes over WebTransport', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { readings: 'alternate' } });
    expect(run.problems).toEqual([]);
    expect(readingsOf(run, 'shutdown/idle-close', 'WT-SHUT-4')).toBe('');
  }, 120_000);
});
