// Suite `negotiation` against the mock server: the correct server passes every case on every
// transport (and in the configurations that make the conditional cases apply), and each catalog
// fault of CORE-VER-* / FLOW-CAP-* / WT-INIT-* / WT-ENC-* is caught by the cases citing it.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { readCatalog } from '../../src/protocol/requirements.js';
import { cases } from '../../suites/server/webtransport/negotiation.js';
import { casesFor, runOnMock, type MockRun, type MockRunOptions, readingsSeen, notCaughtInSharedLoop } from './support.js';

const AREAS = /^(CORE-VER|FLOW-CAP|WT-INIT|WT-ENC)-/;

/** Generous deadlines for the correct-server runs: the machine running the tests may be busy. */
const LIVENESS = { timeoutScale: 2 } as const;

/** Faults that need another transport or mock configuration to show. */
const FAULT_SETUP: Record<string, Partial<MockRunOptions>> = {
  // Which versions a server supports is only visible through the HTTP MCP-Protocol-Version header.
  'wrong-protocol-version': { transport: 'http' },
  // The fault only bites a server that speaks no CBOR and is offered only CBOR.
  'unsupported-encoding-selected': { server: { encodings: ['json'] } },
  // The fault only bites a server whose interactive mode is off.
  'not-interactive-served': { server: { flow: { interactive: false } } },
};

/** Faults of these areas that no case can catch from outside, with the reason. */
const UNCATCHABLE: Record<string, string> = {
};

function flagged(run: MockRun, requirement: string): boolean {
  return run.result.cases.some(
    (c) => c.checks.some((check) => check.requirement === requirement && (check.verdict === 'FAIL' || check.verdict === 'WARN')) ||
      (c.verdict === 'FAIL' && c.reason?.includes(requirement) === true),
  );
}

describe.concurrent('negotiation suite on the correct mock server', () => {
  it('passes on WebTransport (default encodings)', async () => {
    const run = await runOnMock(cases, { transport: 'wt', run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(['PASS', 'INFO']).toContain(run.verdicts['negotiation/wt-cbor-data-model']);
    expect(run.verdicts['negotiation/protocol-version-header-refused']).toBe('NOT_APPLICABLE');
    expect(run.verdicts['negotiation/not-interactive-refuses-interaction']).toBe('NOT_APPLICABLE');
  });

  it('passes on WebTransport with a JSON-only server', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] }, run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(['PASS', 'INFO']).toContain(run.verdicts['negotiation/wt-other-encoding-refused']);
    expect(run.verdicts['negotiation/wt-cbor-data-model']).toBe('NOT_APPLICABLE');
  });

  it('passes on Streamable HTTP', async () => {
    const run = await runOnMock(cases, { transport: 'http', run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(['PASS', 'INFO']).toContain(run.verdicts['negotiation/protocol-version-header-refused']);
    expect(run.verdicts['negotiation/wt-initialize-result-transport']).toBe('NOT_APPLICABLE');
  });

  it('passes against a server with interactive mode off', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { flow: { interactive: false } }, run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(['PASS', 'INFO']).toContain(run.verdicts['negotiation/not-interactive-refuses-interaction']);
  });

  it('passes against a server that supports only some protocol versions', async () => {
    // On WebTransport: the mock's HTTP listener accepts the MCP-Protocol-Version header of every
    // known version whatever its core supports, which the HTTP cross-check would rightly flag.
    const run = await runOnMock(cases, { transport: 'wt', server: { server: { protocolVersions: ['2025-03-26', '2025-06-18'] } }, run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(run.get('negotiation/version-2024-11-05').checks.some((c) => c.requirement === 'CORE-VER-6' && /does not support 2024-11-05/.test(c.message))).toBe(true);
  });
});

describe.concurrent('negotiation suite catches every fault of its areas', () => {
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

describe('negotiation suite covers its areas', () => {
  it('declares every testable server-side MUST and SHOULD of its areas in some case', () => {
    const declared = new Set(cases.flatMap((c) => c.requirements));
    const wanted = readCatalog().requirements.filter(
      (r) => AREAS.test(r.id) && r.role !== 'client' && r.testable === true && !r.withdrawn && (r.level === 'MUST' || r.level === 'SHOULD'),
    );
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.map((r) => r.id).filter((id) => !declared.has(id))).toEqual([]);
  });
});


describe('negotiation suite on the alternate-readings mock', () => {
  it('passes, and reports each reading the alternate mock takes', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { readings: 'alternate' }, run: LIVENESS });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'negotiation/wt-unknown-encodings-only', 'WT-ENC-7')).toEqual([2]);
    expect(readingsSeen(run, 'negotiation/wt-other-encoding-refused', 'WT-ENC-5')).toEqual([2]);
    expect(readingsSeen(run, 'negotiation/wt-cbor-initialize-refused', 'WT-ENC-5')).toEqual([3]);
    expect(readingsSeen(run, 'negotiation/wt-other-transport-version', 'WT-INIT-5')).toEqual([2]);
    expect(readingsSeen(run, 'negotiation/wt-transport-omitted', 'WT-INIT-6')).toEqual([2]);
  }, 120_000);
});
