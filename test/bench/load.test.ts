// The load bench (bench/load.ts) cannot rot: two sessions, one wizard each, on both transports.
// Only counts are asserted, never a rate or a latency.
import { describe, expect, it } from 'vitest';
import { runLoadBench } from '../../bench/load.js';

describe('a tiny load run', () => {
  it('runs the wizards at saturation and at half rate and prints the figures', { timeout: 120_000 }, async () => {
    const lines: string[] = [];
    const reports = await runLoadBench({ sessions: 2, interactions: 1, transports: ['wt', 'http'], out: (line) => lines.push(line) });
    expect(reports.map((r) => r.transport)).toEqual(['wt', 'http']);
    for (const report of reports) {
      expect(report.saturation.responds).toBe(2 * 7);
      expect(report.halfRate.responds).toBe(2 * 7);
      expect(report.saturation.perSecond).toBeGreaterThan(0);
      expect(Number.isFinite(report.halfRate.p99Ms)).toBe(true);
    }
    expect(lines.filter((l) => /saturation: \d+ interaction\.respond\/s/.test(l))).toHaveLength(2);
    expect(lines.filter((l) => /half rate: .* p99 [\d.]+ ms/.test(l))).toHaveLength(2);
  });
});
