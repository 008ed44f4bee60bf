// The Flow part of the injection suite against the mock server: the correct server passes (in
// stateful and in stateless mode), and every fault of the FLOW-STATELESS requirements and of
// FLOW-SEC-4 is caught.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { cases, flipBit, tamperings, tokenForm } from '../../suites/server/flow/flow-injection.js';
import { ALTERNATE_READINGS, casesFlagging, casesFor, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

const PREFIXES = ['FLOW-STATELESS-', 'FLOW-SEC-4'];
const STATELESS = { flow: { stateless: { secret: 'a-secret-of-at-least-thirty-two-bytes!' } } };
const STATELESS_CASES = ['injection/flow-stateless-token-tampered', 'injection/flow-stateless-token-expired'];

describe('stateless token tampering', () => {
  it('reads a token the way it was written and changes it in every tampering', () => {
    const token = Buffer.from(JSON.stringify({ sessionId: 's', state: { state: 'waiting_user' }, signature: 'abc' })).toString('base64url');
    const form = tokenForm(token)!;
    expect(form).toEqual({ alphabet: 'base64url', padded: false });
    const changed = tamperings(token, form);
    expect(changed.map((t) => t.change)).toEqual([
      'the lowest bit of the last byte flipped',
      'the first character of the signature changed',
      'the state changed, the signature kept',
    ]);
    for (const t of changed) expect(t.token).not.toBe(token);
    expect(flipBit(token, form, 3, 2)).not.toBe(token);
    expect(tokenForm('session_ab/c+d')).toBeUndefined();
    expect(tokenForm('abd')).toBeUndefined(); // not canonical: the last character carries bits no byte has
  });
});

describe('injection (Flow) suite on the correct mock server', () => {
  it('stateful wt: stateless cases are not applicable, saying why; the connection case needs http', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    for (const id of STATELESS_CASES) expect(run.get(id).reason).toMatch(/statefulSessions/);
    expect(run.get('injection/flow-session-of-another-connection').reason).toMatch(/http/);
  });

  it('stateful http: another connection\'s session is refused with -32001 (reported)', async () => {
    const run = await runOnMock(cases, { transport: 'http' });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'injection/flow-session-of-another-connection', 'FLOW-SEC-4')).toEqual([1]);
  });

  it('stateful http with sessions not bound to connections: served (reported, not failed)', async () => {
    const run = await runOnMock(cases, { transport: 'http', server: { flow: { bindSessionsToConnection: false } } });
    expect(run.problems).toEqual([]);
    expect(run.verdicts['injection/flow-session-of-another-connection']).toBe('INFO');
    expect(readingsSeen(run, 'injection/flow-session-of-another-connection', 'FLOW-SEC-4')).toEqual([2]);
  });

  it('the alternate-readings mock: another connection\'s session served (http), a tampered token refused with -32602 (stateless)', async () => {
    const [shared, stateless] = await Promise.all([
      runOnMock(cases, { transport: 'http', server: ALTERNATE_READINGS }),
      runOnMock(cases, { transport: 'wt', server: { ...ALTERNATE_READINGS, flow: { ...ALTERNATE_READINGS.flow, ...STATELESS.flow } } }),
    ]);
    for (const run of [shared, stateless]) expect(run.problems).toEqual([]);
    expect(readingsSeen(shared, 'injection/flow-session-of-another-connection', 'FLOW-SEC-4')).toEqual([2]);
    expect(readingsSeen(stateless, 'injection/flow-stateless-token-tampered', 'FLOW-STATELESS-4')).toEqual([2]);
  });

  it('stateless wt (default encodings and JSON) and http: the token cases pass', async () => {
    const runs = await Promise.all([
      runOnMock(cases, { transport: 'wt', server: STATELESS }),
      runOnMock(cases, { transport: 'wt', server: { ...STATELESS, encodings: ['json'] } }),
      runOnMock(cases, { transport: 'http', server: STATELESS }),
    ]);
    for (const run of runs) {
      expect(run.problems).toEqual([]);
      for (const id of STATELESS_CASES) expect(run.verdicts[id], id).toMatch(/^(PASS|INFO)$/);
    }
  });

});

describe('injection (Flow) suite catches every fault of its requirements', () => {
  const faults = mockServerFaultCatalog().filter((f) => PREFIXES.some((p) => f.requirement.startsWith(p)));
  it('has faults to catch', () => expect(faults.length).toBeGreaterThan(0));
  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(faults, cases)) {
    it(`${fault.name} (${fault.requirement})`, async () => {
      const selected = casesFor(cases, fault.requirement);
      expect(selected.length, `a case declares ${fault.requirement}`).toBeGreaterThan(0);
      const server = fault.requirement.startsWith('FLOW-STATELESS-') ? STATELESS : {};
      const run = await runOnMock(selected, { transport: 'wt', faults: [fault.name], server });
      const caught = casesFlagging(run, fault.requirement).length > 0;
      expect(caught, JSON.stringify(run.result.cases.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })))).toBe(true);
    });
  }
});

describe('flow-injection suite covers its requirements', () => {
  it('every testable server MUST and SHOULD of its areas is declared by a case', () => {
    const areas = ['FLOW-STATELESS-'];
    const wanted = requirements()
      .catalog.requirements.filter((r) => areas.some((a) => r.id.startsWith(a)))
      .filter((r) => (r.level === 'MUST' || r.level === 'SHOULD') && (r.role === 'server' || r.role === 'both') && r.testable === true)
      .map((r) => r.id);
    const declared = new Set(cases.flatMap((c) => c.requirements));
    expect(wanted.filter((id) => !declared.has(id))).toEqual([]);
  });
});
