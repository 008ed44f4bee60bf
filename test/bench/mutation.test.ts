// The mutation bench (bench/mutation.ts) cannot rot: its site finder on known code, and one whole
// run at a tiny size (one file, one case, one mutant). Nothing here depends on timing: the run's
// mutant may be caught or survive, only the report's shape is asserted.
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { applyMutation, findMutationSites } from '../../bench/mutation/sites.js';
import { globToRegExp, runMutationBench, sample, selectFiles } from '../../bench/mutation.js';

const ROOT = resolve(import.meta.dirname, '../..');

const SOURCE = `
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
export function check(message: Record<string, unknown>, record: { state: string }, faults: Set<string>) {
  if (message['jsonrpc'] !== '2.0') return { code: JSONRPC_ERROR.InvalidRequest };
  if (faults.has('x')) throw new RpcError(JSONRPC_ERROR.InternalError);
  record.state = 'ready';
  return count < 3 ? -32602 : undefined;
}
`;

describe('mutation sites', () => {
  const sites = findMutationSites('src/peer/server/x.ts', SOURCE);
  const described = sites.map((s) => `${s.line} ${s.operator} ${s.original} -> ${s.replacement}`);

  it('finds one site per operator where the protocol logic is, and none in a fault switch', () => {
    expect(described).toEqual([
      "4 drop-branch message['jsonrpc'] !== '2.0' -> false",
      '4 comparison !== -> ===',
      '4 error-code InvalidRequest -> MethodNotFound',
      "6 skip-transition record.state = 'ready'; -> ;",
      '7 comparison < -> >=',
      '7 error-code -32602 -> -32603',
    ]);
  });

  it('applies a mutation as a one-token edit of the text', () => {
    const comparison = sites.find((s) => s.operator === 'comparison')!;
    const flipped = applyMutation(SOURCE, comparison);
    expect(flipped).toContain("message['jsonrpc'] === '2.0'");
    expect(flipped.length).toBe(SOURCE.length);
    expect(applyMutation(SOURCE, sites.find((s) => s.operator === 'drop-branch')!)).toContain('if (false) return');
    expect(() => applyMutation('changed', comparison)).toThrow(/source changed/);
  });

  it('selects files by glob and samples the same mutants for the same seed', () => {
    expect(globToRegExp('src/peer/server/**').test('src/peer/server/core/session.ts')).toBe(true);
    expect(globToRegExp('src/peer/*/faults.ts').test('src/peer/server/core/faults.ts')).toBe(false);
    const files = selectFiles(ROOT, ['src/peer/server/core/**'], ['**/faults.ts', '**/index.ts']);
    expect(files).toContain('src/peer/server/core/jsonrpc.ts');
    expect(files.some((f) => f.endsWith('/faults.ts') || f.endsWith('/index.ts'))).toBe(false);
    expect(sample([1, 2, 3, 4, 5, 6], 3, 7)).toEqual(sample([1, 2, 3, 4, 5, 6], 3, 7));
  });
});

describe('a tiny mutation run', () => {
  it('builds the mock, runs one case over stdio, judges one mutant and prints the figures', { timeout: 240_000 }, async () => {
    const lines: string[] = [];
    const report = await runMutationBench({
      root: ROOT,
      mutants: 1,
      seed: 1,
      files: ['src/peer/server/core/jsonrpc.ts'],
      exclude: [],
      cases: ['bad-input/params-of-the-wrong-type'],
      workers: 1,
      timeoutScale: 5,
      out: (line) => lines.push(line),
    });
    expect(report.sampled).toBe(1);
    expect(report.reached).toBeGreaterThan(0);
    expect(report.reached).toBeLessThanOrEqual(report.sites);
    expect(['caught', 'survived', 'unstable']).toContain(report.outcomes[0]!.status);
    expect(lines.join('\n')).toMatch(/mutants: 1 sampled, \d caught, \d survived/);
  });
});
