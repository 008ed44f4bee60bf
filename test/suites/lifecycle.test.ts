// Suite `lifecycle` against the mock server: the correct server passes every case on every
// transport, and each catalog fault of CORE-LIFE-* / CORE-CAP-* is caught by the cases citing it.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { readCatalog } from '../../src/protocol/requirements.js';
import { cases } from '../../suites/server/core/lifecycle.js';
import { casesFor, runOnMock, type MockRun, type MockRunOptions, readingsSeen, notCaughtInSharedLoop } from './support.js';

const AREAS = /^CORE-(LIFE|CAP)-/;

/** Generous deadlines for the correct-server runs: the machine running the tests may be busy. */
const LIVENESS = { timeoutScale: 2 } as const;

/** Faults that need another transport or mock configuration to show. */
const FAULT_SETUP: Record<string, Partial<MockRunOptions>> = {
  // Streamable HTTP refuses a request without a session before the core sees it, and the
  // WebTransport binding refuses anything before initialize itself (WT-CONN-4): only stdio reaches the core.
  'accept-request-before-initialize': { transport: 'stdio' },
  // The mock declares every server feature by default: leave some undeclared.
  'undeclared-capability-served': { server: { server: { core: { prompts: false, resources: false }, logging: false } } },
  'subscribe-without-capability': { server: { server: { core: { subscribe: false } } } },
};

/** Faults of these areas that no case can catch from outside, with the reason. */
const UNCATCHABLE: Record<string, string> = {};

/** Whether some case failed (MUST) or warned (SHOULD) a check of `requirement`. */
function flagged(run: MockRun, requirement: string): boolean {
  return run.result.cases.some(
    (c) => c.checks.some((check) => check.requirement === requirement && (check.verdict === 'FAIL' || check.verdict === 'WARN')) ||
      (c.verdict === 'FAIL' && c.reason?.includes(requirement) === true),
  );
}

describe.concurrent('lifecycle suite on the correct mock server', () => {
  it('passes on WebTransport (default encodings)', async () => {
    const run = await runOnMock(cases, { transport: 'wt', run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(run.verdicts['lifecycle/ping-before-initialization']).toBe('NOT_APPLICABLE');
    expect(run.verdicts['lifecycle/initialize-result-shape']).toBe('PASS');
  });

  it('passes on WebTransport with a JSON-only server', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] }, run: LIVENESS });
    expect(run.problems).toEqual([]);
  });

  it('passes on Streamable HTTP', async () => {
    const run = await runOnMock(cases, { transport: 'http', run: LIVENESS });
    expect(run.problems).toEqual([]);
    // CORE-LIFE-13 is INFO: the case reports the reading taken (answered with {}).
    expect(run.verdicts['lifecycle/ping-before-initialization']).toBe('INFO');
  });

  it('passes on the alternate-readings mock (WebTransport and Streamable HTTP), reporting the other readings', async () => {
    for (const transport of ['wt', 'http'] as const) {
      const run = await runOnMock(cases, { transport, server: { readings: 'alternate' }, run: LIVENESS });
      expect(run.problems, transport).toEqual([]);
      const second = run.get('lifecycle/second-initialize-refused');
      expect(readingsSeen(run, 'lifecycle/second-initialize-refused', 'CORE-LIFE-8'), transport).toEqual([2]);
      const shape = run.get('lifecycle/initialize-result-shape');
      expect(shape.checks.some((c) => c.requirement === 'CORE-CAP-6' && c.verdict === 'INFO' && /do not define/.test(c.message)), transport).toBe(true);
    }
  });

  it('passes with server features left undeclared (the gating cases have something to refuse)', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { server: { core: { prompts: false, resources: false }, logging: false } }, run: LIVENESS });
    expect(run.problems).toEqual([]);
    const undeclared = run.get('lifecycle/undeclared-feature-refused');
    expect(undeclared.checks.filter((c) => c.requirement === 'CORE-CAP-3' && c.verdict === 'PASS').length).toBeGreaterThan(0);
  });
});

describe.concurrent('lifecycle suite catches every fault of its areas', () => {
  const faults = mockServerFaultCatalog().filter((f) => AREAS.test(f.requirement));

  it('has faults to catch, and the uncatchable list names only catalog faults', () => {
    expect(faults.length).toBeGreaterThan(0);
    for (const name of Object.keys(UNCATCHABLE)) expect(faults.map((f) => f.name)).toContain(name);
  });

  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(faults.filter((f) => !(f.name in UNCATCHABLE)), cases)) {
    it(`${fault.name} (${fault.requirement})`, async () => {
      const selected = casesFor(cases, fault.requirement);
      expect(selected.length, `no case declares ${fault.requirement}`).toBeGreaterThan(0);
      const setup = FAULT_SETUP[fault.name] ?? {};
      const run = await runOnMock(selected, { transport: fault.layer === 'fastworkflow' || fault.layer === 'http' ? 'http' : 'wt', ...setup, faults: [fault.name] });
      expect(flagged(run, fault.requirement), JSON.stringify(run.result.cases.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })))).toBe(true);
    }, 120_000);
  }
});

describe('lifecycle suite covers its areas', () => {
  it('declares every testable server-side MUST and SHOULD of its areas in some case', () => {
    const declared = new Set(cases.flatMap((c) => c.requirements));
    const wanted = readCatalog().requirements.filter(
      (r) => AREAS.test(r.id) && r.role !== 'client' && r.testable === true && !r.withdrawn && (r.level === 'MUST' || r.level === 'SHOULD'),
    );
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.map((r) => r.id).filter((id) => !declared.has(id))).toEqual([]);
  });
});
