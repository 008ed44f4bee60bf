// The session-security suite against the mock server: the correct server passes on every
// transport, and every fault of the FLOW-SEC and FLOW-RATE requirements is caught.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { cases } from '../../suites/server/flow/session-security.js';
import { ALTERNATE_READINGS, casesFlagging, casesFor, runOnMock, notCaughtInSharedLoop } from './support.js';

const PREFIXES = ['FLOW-SEC-', 'FLOW-RATE-'];

/** A lower rate limit than the default, so that the burst of the limit case hits it. */
const LOW_RATE = { limits: { requestsPerWindow: 40, windowMs: 60_000 } };

describe('session-security suite on the correct mock server', () => {
  it('wt (default encodings): every case passes or reports', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    for (const c of cases) expect(run.verdicts[c.id], c.id).toMatch(/^(PASS|INFO|NOT_APPLICABLE)$/);
    expect(run.verdicts['session-security/session-ids-unpredictable']).toBe('PASS');
    expect(run.verdicts['session-security/tls-off-loopback']).toBe('NOT_APPLICABLE');
  });

  it('wt with JSON only, http, and a server whose rate limit the burst reaches: no problems', async () => {
    const runs = await Promise.all([
      runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] } }),
      runOnMock(cases, { transport: 'http' }),
      runOnMock(cases, { transport: 'wt', server: { flow: LOW_RATE } }),
    ]);
    for (const run of runs) expect(run.problems).toEqual([]);
    expect(runs[1]!.get('session-security/tls-off-loopback').checks.map((c) => c.message).join()).toMatch(/loopback/);
    expect(runs[2]!.get('session-security/limit-answered-with-error').checks.map((c) => c.message).join()).toMatch(/a limit was hit/);
  });

  it('the alternate-readings mock (wt, http): no problems', async () => {
    const runs = await Promise.all([runOnMock(cases, { transport: 'wt', server: ALTERNATE_READINGS }), runOnMock(cases, { transport: 'http', server: ALTERNATE_READINGS })]);
    for (const run of runs) expect(run.problems).toEqual([]);
  });

  it('stateless mode: the tokens pass the session-id checks too', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { flow: { stateless: { secret: 'a-secret-of-at-least-thirty-two-bytes!' } } } });
    expect(run.problems).toEqual([]);
  });
});

describe('session-security suite catches every fault of its requirements', () => {
  const faults = mockServerFaultCatalog().filter((f) => PREFIXES.some((p) => f.requirement.startsWith(p)));
  it('has faults to catch', () => expect(faults.length).toBeGreaterThan(0));
  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(faults, cases)) {
    it(`${fault.name} (${fault.requirement})`, async () => {
      const selected = casesFor(cases, fault.requirement);
      expect(selected.length, `a case declares ${fault.requirement}`).toBeGreaterThan(0);
      // A rate or count limit is only reached when the server's limit is within the burst.
      const server = fault.requirement.startsWith('FLOW-RATE-') ? { flow: LOW_RATE } : {};
      const run = await runOnMock(selected, { transport: 'wt', faults: [fault.name], server });
      const caught = casesFlagging(run, fault.requirement).length > 0;
      expect(caught, JSON.stringify(run.result.cases.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })))).toBe(true);
    });
  }
});

describe('session-security suite covers its requirements', () => {
  it('every testable server MUST and SHOULD of its areas is declared by a case', () => {
    const areas = ['FLOW-SEC-', 'FLOW-RATE-'];
    const wanted = requirements()
      .catalog.requirements.filter((r) => areas.some((a) => r.id.startsWith(a)))
      .filter((r) => (r.level === 'MUST' || r.level === 'SHOULD') && (r.role === 'server' || r.role === 'both') && r.testable === true)
      .map((r) => r.id);
    const declared = new Set(cases.flatMap((c) => c.requirements));
    expect(wanted.filter((id) => !declared.has(id))).toEqual([]);
  });
});
