// The timeouts suite against the mock server: the correct server passes on every transport, and
// every fault of the FLOW-TIMEOUT requirements is caught (or listed with the reason it cannot be).
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { cases } from '../../suites/server/flow/timeouts.js';
import { ALTERNATE_READINGS, casesFlagging, casesFor, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

const PREFIXES = ['FLOW-TIMEOUT-'];

/**
 * Faults of these areas that no case can fail on their own requirement from outside, with the
 * reason and what the suite reports instead (keep exact).
 */
const NOT_CATCHABLE: Record<string, { reason: string; instead: string }> = {
};

describe('timeouts suite on the correct mock server', () => {
  it('wt (default encodings): every case passes', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    for (const c of cases) expect(run.verdicts[c.id], c.id).toMatch(/^(PASS|INFO)$/);
  });

  it('wt with JSON only, and http: no problems', async () => {
    const [json, http] = await Promise.all([runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] } }), runOnMock(cases, { transport: 'http' })]);
    expect(json.problems).toEqual([]);
    expect(http.problems).toEqual([]);
  });

  it('the alternate-readings mock: the warning at another log level, the expired session cleaned up at once (as over stdio)', async () => {
    const [wt, cleaned] = await Promise.all([
      runOnMock(cases, { transport: 'wt', server: ALTERNATE_READINGS }),
      runOnMock(cases, { transport: 'http', server: { ...ALTERNATE_READINGS, flow: { ...ALTERNATE_READINGS.flow, retentionMs: 0 } } }),
    ]);
    for (const run of [wt, cleaned]) expect(run.problems).toEqual([]);
    expect(readingsSeen(wt, 'timeouts/warning-before-expiry', 'FLOW-TIMEOUT-4')).toEqual([2]);
    expect(readingsSeen(cleaned, 'timeouts/session-expires-after-timeout', 'FLOW-TIMEOUT-1')).toEqual([2]);
  });

  it('a target without interactive tools: every case is not applicable, saying why', async () => {
    const run = await runOnMock(cases, { transport: 'http', server: { shippedWizards: false } });
    for (const c of cases) {
      expect(run.verdicts[c.id]).toBe('NOT_APPLICABLE');
      expect(run.get(c.id).reason).toMatch(/interactive/);
    }
  });
});

describe('timeouts suite catches the faults of its requirements', () => {
  const faults = mockServerFaultCatalog().filter((f) => PREFIXES.some((p) => f.requirement.startsWith(p)));
  it('has faults to catch, and the exceptions name faults of these areas', () => {
    expect(faults.length).toBeGreaterThan(0);
    for (const name of Object.keys(NOT_CATCHABLE)) expect(faults.map((f) => f.name)).toContain(name);
  });
  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of faults.filter((f) => NOT_CATCHABLE[f.name] !== undefined || notCaughtInSharedLoop([f], cases).length > 0)) {
    const exception = NOT_CATCHABLE[fault.name];
    it(`${fault.name} (${fault.requirement})${exception ? ` is reported as ${exception.instead}` : ''}`, async () => {
      const requirement = exception?.instead ?? fault.requirement;
      const selected = casesFor(cases, requirement);
      expect(selected.length, `a case declares ${requirement}`).toBeGreaterThan(0);
      const run = await runOnMock(selected, { transport: 'wt', faults: [fault.name] });
      const caught = casesFlagging(run, requirement).length > 0;
      expect(caught, JSON.stringify(run.result.cases.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })))).toBe(true);
    });
  }
});

describe('timeouts suite covers its requirements', () => {
  it('every testable server MUST and SHOULD of its areas is declared by a case', () => {
    const areas = ['FLOW-TIMEOUT-'];
    const wanted = requirements()
      .catalog.requirements.filter((r) => areas.some((a) => r.id.startsWith(a)))
      .filter((r) => (r.level === 'MUST' || r.level === 'SHOULD') && (r.role === 'server' || r.role === 'both') && r.testable === true)
      .map((r) => r.id);
    const declared = new Set(cases.flatMap((c) => c.requirements));
    expect(wanted.filter((id) => !declared.has(id))).toEqual([]);
  });
});
