// The fuzz bench (bench/fuzz.ts) cannot rot: a few hundred inputs per transport against the
// correct mock, and against a mock with faults, to show the judge of the answers can fail. The
// counts asserted do not depend on timing (the deadline is generous).
import { describe, expect, it } from 'vitest';
import { generateInputs, judgeAnswers } from '../../bench/fuzz/inputs.js';
import { runFuzzBench, type TransportReport } from '../../bench/fuzz.js';

const total = (report: TransportReport, outcome: 'ok' | 'wrong' | 'hang' | 'closed') =>
  Object.values(report.counts).reduce((n, c) => n + (c[outcome] ?? 0), 0);

describe('fuzz inputs', () => {
  it('are the same for the same seed and judge answers against the readings the profile accepts', () => {
    const a = generateInputs('stdio', 50, 3).map((make) => JSON.stringify(make(1)));
    expect(generateInputs('stdio', 50, 3).map((make) => JSON.stringify(make(1)))).toEqual(a);
    const garbage = { type: 'answer', codes: [-32700], ids: [null] } as const;
    expect(judgeAnswers(garbage, [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }])).toBeUndefined();
    expect(judgeAnswers(garbage, [{ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }])).toMatch(/expected error -32700/);
    expect(judgeAnswers(garbage, [])).toBe('no answer');
    expect(judgeAnswers({ type: 'silence' }, [{ jsonrpc: '2.0', id: null, error: { code: -32601, message: 'x' } }])).toMatch(/nothing is owed/);
  });
});

describe('a tiny fuzz run', () => {
  it('feeds every transport, the mock answers every input as the profile allows and still answers a ping', { timeout: 180_000 }, async () => {
    const reports = await runFuzzBench({ inputs: 150, transports: ['stdio', 'http', 'wt'], seed: 1, deadlineMs: 15_000, out: () => undefined });
    for (const report of reports) {
      const counted = ['ok', 'wrong', 'hang', 'closed'].reduce((n, o) => n + total(report, o as 'ok'), 0);
      expect(counted, report.transport).toBe(150);
      expect(report.crashes, report.transport).toBe(0);
      expect(report.pingAfterwards, report.transport).toBe(true);
      expect(total(report, 'wrong'), `${report.transport}: ${report.examples.join('\n')}`).toBe(0);
      expect(total(report, 'closed'), `${report.transport}: ${report.examples.join('\n')}`).toBe(0);
      // Every POST is answered, a fractional or >= 2^53 id included (issue 17 item 1: those hung over Streamable HTTP).
      expect(total(report, 'hang'), `${report.transport}: ${report.examples.join('\n')}`).toBe(0);
    }
  });

  it('counts the wrong answers of a mock with faults', { timeout: 120_000 }, async () => {
    const [report] = await runFuzzBench({
      inputs: 150,
      transports: ['stdio'],
      seed: 1,
      deadlineMs: 15_000,
      mockArgs: ['--fault', 'parse-error-wrong-code', '--fault', 'answer-notification'],
      out: () => undefined,
    });
    expect(report!.counts.garbage?.wrong ?? 0).toBeGreaterThan(0);
    expect(report!.counts['unknown-notification']?.wrong ?? 0).toBeGreaterThan(0);
    expect(report!.counts.garbage?.ok ?? 0).toBe(0);
  });
});
