// The cancellation suite against the mock server: the correct server passes on every transport,
// and every fault of the cancellation requirements is caught.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { cases } from '../../suites/server/cancellation.js';
import { casesFor, runOnMock } from './support.js';

const PREFIXES = ['CORE-CANCEL-', 'FLOW-CANCEL-', 'WT-CANCEL-'];

/** Faults of these areas that no case can catch from outside, with the reason (keep exact). */
const NOT_CATCHABLE: Record<string, string> = {};

const WT_ONLY = new Set(cases.filter((c) => c.transports?.length === 1 && c.transports[0] === 'webtransport').map((c) => c.id));

describe('cancellation suite on the correct mock server', () => {
  it('wt (default encodings): no problems', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    for (const c of cases) expect(run.verdicts[c.id], c.id).toMatch(/^(PASS|INFO)$/);
  });

  it('wt with JSON only, and http: no problems; WebTransport-only cases say why they do not apply on http', async () => {
    const [json, http] = await Promise.all([runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] } }), runOnMock(cases, { transport: 'http' })]);
    expect(json.problems).toEqual([]);
    expect(http.problems).toEqual([]);
    for (const id of WT_ONLY) {
      expect(http.verdicts[id]).toBe('NOT_APPLICABLE');
      expect(http.get(id).reason).toMatch(/webtransport/);
    }
  });

  // One retry: stdio spawns a process per case, and discovery's own deadline can pass on a loaded machine.
  it('stdio: no problems', { timeout: 120_000, retry: 1 }, async () => {
    const run = await runOnMock(cases, { transport: 'stdio' });
    expect(run.problems).toEqual([]);
  });
});

describe('cancellation suite catches every fault of its requirements', () => {
  const faults = mockServerFaultCatalog().filter((f) => PREFIXES.some((p) => f.requirement.startsWith(p)));
  it('has faults to catch', () => expect(faults.length).toBeGreaterThan(0));
  for (const fault of faults) {
    if (NOT_CATCHABLE[fault.name]) continue;
    it(`${fault.name} (${fault.requirement})`, async () => {
      const selected = casesFor(cases, fault.requirement);
      expect(selected.length, `a case declares ${fault.requirement}`).toBeGreaterThan(0);
      const run = await runOnMock(selected, { transport: 'wt', faults: [fault.name] });
      const caught = run.result.cases.some((c) => c.checks.some((k) => k.requirement === fault.requirement && (k.verdict === 'FAIL' || k.verdict === 'WARN')));
      expect(caught, JSON.stringify(run.result.cases.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })))).toBe(true);
    });
  }
});

describe('cancellation suite covers its requirements', () => {
  it('every testable server MUST and SHOULD of its areas is declared by a case', () => {
    const areas = ['CORE-CANCEL-', 'FLOW-CANCEL-', 'WT-CANCEL-'];
    const wanted = requirements()
      .catalog.requirements.filter((r) => areas.some((a) => r.id.startsWith(a)))
      .filter((r) => (r.level === 'MUST' || r.level === 'SHOULD') && (r.role === 'server' || r.role === 'both') && r.testable === true)
      .map((r) => r.id);
    const declared = new Set(cases.flatMap((c) => c.requirements));
    expect(wanted.filter((id) => !declared.has(id))).toEqual([]);
  });
});
