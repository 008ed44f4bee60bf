// The datagrams suite against the mock server: no problem on the correct server (datagrams
// advertised with CBOR or JSON, or datagramsSupported: false), not applicable off WebTransport, and
// every binding fault of WT-DGRAM-* caught by the cases declaring its requirement.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog, type StartMockServerOptions } from '../../src/peer/server/index.js';
import { cases } from '../../suites/server/webtransport/datagrams.js';
import { casesFlagging, casesFor, type MockRun, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

type ServerOptions = Omit<StartMockServerOptions, 'transport' | 'faults'>;

/** Faults that only show on a server configured a certain way, by requirement. */
const SERVER_FOR: Record<string, ServerOptions> = {
  'WT-DGRAM-5': { limits: { datagramsSupported: false } },
};

/** Faults no case can catch from outside, with the reason (expected to stay exact). */
const UNCATCHABLE: Record<string, string> = {};

const FAULTS = mockServerFaultCatalog().filter((f) => f.requirement.startsWith('WT-DGRAM-'));

function problems(run: MockRun): unknown[] {
  return run.result.cases.flatMap((c): unknown[] => {
    if (c.verdict === 'TIMEOUT' || c.verdict === 'ERROR') return [{ id: c.id, verdict: c.verdict, reason: c.reason }];
    return c.checks.filter((k) => k.verdict === 'FAIL' || k.verdict === 'WARN').map((k) => ({ id: c.id, requirement: k.requirement, message: k.message, actual: k.actual }));
  });
}

async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  return results;
}

describe('datagrams suite on the mock server', () => {
  it('finds no problem on the correct server advertising datagrams (CBOR negotiated)', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(problems(run)).toEqual([]);
    // INFO: the case names the reading its payloads took (the params object) besides its passed checks.
    expect(run.verdicts['datagrams/progress-datagrams']).toBe('INFO');
    expect(readingsSeen(run, 'datagrams/progress-datagrams', 'WT-DGRAM-6')).toEqual([1]);
    expect(run.verdicts['datagrams/unknown-channel']).toBe('INFO');
    expect(run.get('datagrams/unsupported-refused').verdict).toBe('NOT_APPLICABLE');
  }, 60_000);

  it('finds no problem on the correct server with JSON only', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] } });
    expect(problems(run)).toEqual([]);
    // INFO: the case names the reading its payloads took (the params object) besides its passed checks.
    expect(run.verdicts['datagrams/progress-datagrams']).toBe('INFO');
    expect(readingsSeen(run, 'datagrams/progress-datagrams', 'WT-DGRAM-6')).toEqual([1]);
  }, 60_000);

  it('finds no problem on the correct server that does not support datagrams', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { limits: { datagramsSupported: false } } });
    expect(problems(run)).toEqual([]);
    // INFO: the case names the reading it saw (-32004 with id null) besides its passed checks.
    expect(run.verdicts['datagrams/unsupported-refused']).toBe('INFO');
    expect(run.get('datagrams/unsupported-refused').checks.filter((k) => k.requirement === 'WT-DGRAM-5').map((k) => k.verdict)).toContain('PASS');
    expect(run.get('datagrams/progress-datagrams').reason).toMatch(/datagramsSupported: false/);
  }, 60_000);

  it('is not applicable over HTTP and stdio', async () => {
    for (const transport of ['http', 'stdio'] as const) {
      const run = await runOnMock(cases, { transport });
      expect(new Set(Object.values(run.verdicts))).toEqual(new Set(['NOT_APPLICABLE']));
    }
  }, 60_000);

  it('catches every datagram fault in the catalog', async () => {
    expect(FAULTS.length).toBeGreaterThan(0);
    // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
    // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
    const catchable = notCaughtInSharedLoop(FAULTS.filter((f) => UNCATCHABLE[f.name] === undefined), cases);
    const outcomes = await inBatches(catchable, 4, async (fault) => {
      const server = SERVER_FOR[fault.requirement];
      const run = await runOnMock(casesFor(cases, fault.requirement), { transport: 'wt', faults: [fault.name], ...(server ? { server } : {}) });
      const caught = casesFlagging(run, fault.requirement).length > 0;
      return { fault: fault.name, requirement: fault.requirement, caught, ...(caught ? {} : { verdicts: run.verdicts }) };
    });
    expect(outcomes.filter((o) => !o.caught)).toEqual([]);
    expect(Object.keys(UNCATCHABLE).filter((name) => !FAULTS.some((f) => f.name === name))).toEqual([]);
  }, 120_000);
});


describe('datagrams suite on the alternate-readings mock', () => {
  it('passes advertising datagrams, and reports each reading the alternate mock takes', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { readings: 'alternate' } });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'datagrams/short-dropped', 'WT-DGRAM-1')).toEqual([2]);
    expect(readingsSeen(run, 'datagrams/reserved-channel-dropped', 'WT-DGRAM-2')).toEqual([2]);
    expect(readingsSeen(run, 'datagrams/unknown-channel', 'WT-DGRAM-4')).toEqual([2]);
  }, 120_000);

  it('passes with datagramsSupported: false, answering the request a datagram names with -32004', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { readings: 'alternate', limits: { datagramsSupported: false } } });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'datagrams/unsupported-refused', 'WT-DGRAM-5')).toContain(2);
  }, 120_000);
});
