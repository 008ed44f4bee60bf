// The cancellation suite against the mock server: the correct server passes on every transport,
// and every fault of the cancellation requirements is caught.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { defineCase } from '../../src/harness/index.js';
import { cases } from '../../suites/server/core/cancellation.js';
import { openSession } from '../../suites/support/session.js';
import { argumentsFor, LARGE_INTEGER_CAP, openAskingSession, startInFlightCall } from '../../suites/support/in-flight.js';
import { judgePace, lastingArguments, PACE_SPAN_MS } from '../../suites/support/lasting-call.js';
import { ALTERNATE_READINGS, casesFlagging, casesFor, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

const PREFIXES = ['CORE-CANCEL-', 'FLOW-CANCEL-', 'WT-CANCEL-'];

/** Faults of these areas that no case can catch from outside, with the reason (keep exact). */
const NOT_CATCHABLE: Record<string, string> = {};

const WT_ONLY = new Set(cases.filter((c) => c.transports?.length === 1 && c.transports[0] === 'webtransport').map((c) => c.id));

describe('the in-flight rule', () => {
  it('derives arguments from the required properties of an input schema', () => {
    const schema = {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 2, maxLength: 5 },
        bytes: { type: 'integer', minimum: 0, maximum: 1073741824 },
        kind: { enum: ['a', 'b'] },
        nested: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'] },
        optional: { type: 'string' },
      },
      required: ['text', 'bytes', 'kind', 'nested'],
    };
    expect(argumentsFor(schema)).toEqual({ text: 'confo', bytes: 0, kind: 'a', nested: { flag: false } });
    expect(argumentsFor(schema, { size: 'large' })).toEqual({ text: 'confo', bytes: LARGE_INTEGER_CAP, kind: 'a', nested: { flag: false } });
    expect(argumentsFor({ type: 'object', properties: { n: { type: 'number', maximum: 10 } }, required: ['n'] }, { size: 'large' })).toEqual({ n: 10 });
    expect(argumentsFor(undefined)).toBeUndefined();
  });

  it('raises the numeric duration, size and step parameters of a progress tool a rung at a time, within its schema', () => {
    const schema = {
      type: 'object',
      properties: {
        steps: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
        stepMs: { type: 'integer', minimum: 0, maximum: 60000 },
        duration: { type: 'number' },
        timeout_seconds: { type: 'number', default: 30 },
        label: { type: 'string' },
      },
    };
    // Rung 0 fills in the defaults of the work parameters the call leaves out, and nothing else.
    expect(lastingArguments(schema, { label: 'x' }, 0)).toEqual({ label: 'x', steps: 5 });
    // Then each rung multiplies them by 4, up to the schema's maximum (a timeout bounds the work: it is left alone).
    expect(lastingArguments(schema, { label: 'x' }, 1)).toEqual({ label: 'x', steps: 20, stepMs: 4, duration: 4 });
    expect(lastingArguments(schema, { duration: 10 }, 2)).toEqual({ steps: 80, stepMs: 16, duration: 160 });
    expect(lastingArguments(schema, {}, 3).steps).toBe(100);
  });

  /** Reports, as an INFO, which tool the rule picked and how it knows the call is in flight. */
  const probe = (asking: boolean) =>
    defineCase({
      id: `in-flight/${asking ? 'asking' : 'progress'}`,
      suite: 'in-flight',
      title: 'the in-flight rule finds a call',
      requirements: ['CORE-CANCEL-2'],
      async run(ctx) {
        if (asking) await openAskingSession(ctx);
        else await openSession(ctx);
        const call = await startInFlightCall(ctx);
        ctx.info('CORE-CANCEL-2', JSON.stringify({ tool: call?.tool.name, how: call?.how }));
      },
    });

  it('prefers a call that asked the client, and falls back to one reporting progress (datagram on wt, notification on http)', async () => {
    const runs = await Promise.all((['wt', 'http'] as const).map((transport) => runOnMock([probe(true), probe(false)], { transport })));
    for (const run of runs) {
      expect(run.get('in-flight/asking').checks[0]?.message).toBe(JSON.stringify({ tool: 'sample', how: 'asked-client' }));
      // Without the sampling and elicitation capabilities the mock's asking tools answer at once.
      expect(run.get('in-flight/progress').checks[0]?.message).toBe(JSON.stringify({ tool: 'slow', how: 'progress' }));
    }
  });
});

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

  it('the alternate-readings mock: a completed session cancelled literally (wt), refused with {"cancelled": false} (http), cleaned up at once (as over stdio)', async () => {
    const [wt, http, stdio] = await Promise.all([
      runOnMock(cases, { transport: 'wt', server: ALTERNATE_READINGS }),
      runOnMock(cases, { transport: 'http', server: ALTERNATE_READINGS }),
      runOnMock(cases.filter((c) => c.id.startsWith('cancellation/interaction-')), { transport: 'wt', server: { ...ALTERNATE_READINGS, flow: { ...ALTERNATE_READINGS.flow, retentionMs: 0 } } }),
    ]);
    for (const run of [wt, http, stdio]) expect(run.problems).toEqual([]);
    expect(readingsSeen(wt, 'cancellation/interaction-cancel-completed-session', 'FLOW-CANCEL-4')).toEqual([3]);
    expect(readingsSeen(http, 'cancellation/interaction-cancel-completed-session', 'FLOW-CANCEL-4')).toEqual([2]);
    // Cleaned up at once: the completed session is gone before the cancel arrives.
    expect(readingsSeen(stdio, 'cancellation/interaction-cancel-completed-session', 'FLOW-CANCEL-4')).toEqual([4]);
    expect(readingsSeen(stdio, 'cancellation/interaction-cancel-twice', 'FLOW-CANCEL-2')).toEqual([2]);
  }, 180_000);

});

describe('cancellation suite catches every fault of its requirements', () => {
  const faults = mockServerFaultCatalog().filter((f) => PREFIXES.some((p) => f.requirement.startsWith(p)));
  it('has faults to catch', () => expect(faults.length).toBeGreaterThan(0));
  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(faults, cases)) {
    if (NOT_CATCHABLE[fault.name]) continue;
    it(`${fault.name} (${fault.requirement})`, async () => {
      const selected = casesFor(cases, fault.requirement);
      expect(selected.length, `a case declares ${fault.requirement}`).toBeGreaterThan(0);
      const run = await runOnMock(selected, { transport: 'wt', faults: [fault.name] });
      const caught = casesFlagging(run, fault.requirement).length > 0;
      expect(caught, JSON.stringify(run.result.cases.map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason })))).toBe(true);
    });
  }
});

describe('the pace of a running call (lasting-call.ts)', () => {
  const report = (progress: number, at: number) => ({ progress, total: 20, at });

  it('judges two reports a step apart: running with the work ahead, else too short', () => {
    const running = judgePace([report(1, 1000), report(2, 1200)], 1000);
    expect(running).toEqual({ running: { last: report(2, 1200), intervalMs: 200, remainingMs: 3600 } });
    expect(judgePace([report(18, 1000), report(19, 1200)], 1000)).toEqual({ not: 'too-short' });
    expect(judgePace([{ progress: 1, at: 1000 }, { progress: 2, at: 1200 }], 1000)).toEqual({ not: 'no-total' });
  });

  it('takes reports delivered together (a loaded machine) as no pace, and the pace from the first report to the last once they show one', () => {
    const burst = [report(1, 1000), report(2, 1000 + PACE_SPAN_MS - 1)];
    expect(judgePace(burst, 1000)).toBe('watch');
    const judged = judgePace([...burst, report(3, 1400)], 1000);
    expect(judged).toMatchObject({ running: { remainingMs: 3400, intervalMs: 200 } });
    // Work that is over is judged at once, however close its reports came.
    expect(judgePace([report(19, 1000), report(20, 1001)], 1000)).toEqual({ not: 'too-short' });
  });
});

describe('a server deaf to cancels, whose only long tool reports progress (issue 16)', () => {
  // No tool asks the client: the call is kept in flight by its progress alone, made to last and seen running
  // (progress as notifications: a lost datagram would hide that the call runs).
  const progressOnly = { server: { core: { askingTools: false }, progressDatagrams: false } } as const;
  const judged = cases.filter((c) => ['cancellation/cancelled-notification-no-answer', 'cancellation/cancelled-notification-webtransport', 'cancellation/dollar-cancel-answered-with-error'].includes(c.id));
  const requirementsOf = (run: Awaited<ReturnType<typeof runOnMock>>, id: string, verdict: string) =>
    run.get(id).checks.filter((k) => k.verdict === verdict).map((k) => k.requirement);

  it('over WebTransport: $/cancel FAILs WT-CANCEL-1 and -2, notifications/cancelled WARNs CORE-CANCEL-2 and WT-CANCEL-5; the same server hearing cancels passes', async () => {
    const [deaf, hearing] = await Promise.all([
      runOnMock(judged, { transport: 'wt', server: progressOnly, faults: ['deaf-to-cancel'] }),
      runOnMock(judged, { transport: 'wt', server: progressOnly }),
    ]);
    expect(requirementsOf(deaf, 'cancellation/dollar-cancel-answered-with-error', 'FAIL').sort()).toEqual(['WT-CANCEL-1', 'WT-CANCEL-2']);
    expect(requirementsOf(deaf, 'cancellation/cancelled-notification-no-answer', 'WARN')).toEqual(['CORE-CANCEL-2']);
    expect(requirementsOf(deaf, 'cancellation/cancelled-notification-webtransport', 'WARN')).toEqual(['WT-CANCEL-5']);
    expect(hearing.problems).toEqual([]);
    // The judged call was seen running (not merely reporting progress), so a result after the cancel would not be a race.
    expect(hearing.get('cancellation/cancelled-notification-no-answer').checks.find((k) => k.requirement === 'CORE-CANCEL-2')?.message).toMatch(/seen running at progress \d+ of \d+/);
  }, 120_000);

  it('over Streamable HTTP: notifications/cancelled WARNs CORE-CANCEL-2; the same server hearing cancels passes', async () => {
    const [deaf, hearing] = await Promise.all([
      runOnMock(judged, { transport: 'http', server: progressOnly, faults: ['deaf-to-cancel'] }),
      runOnMock(judged, { transport: 'http', server: progressOnly }),
    ]);
    expect(requirementsOf(deaf, 'cancellation/cancelled-notification-no-answer', 'WARN')).toEqual(['CORE-CANCEL-2']);
    expect(hearing.problems).toEqual([]);
  }, 120_000);
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
