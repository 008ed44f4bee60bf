// The expected verdict tables, the catalog and docs/interop.md agree: every expected case exists and
// declares the requirements it is expected to fail (a violation is judged once, by the case that
// owns its requirement), a FAIL cites a MUST and a WARN only SHOULDs, every finding cited is a
// heading of docs/interop.md naming those requirements, and every finding is used.
import { describe, expect, it } from 'vitest';
import { failureVerdict, requirement } from '../../src/protocol/requirements.js';
import { serverCases } from '../../suites/server/index.js';
import { PEER_EXPECTATIONS } from './expected.js';
import { allDeviations, documentedFindings, undocumented } from './support.js';

const tables = Object.entries(PEER_EXPECTATIONS).map(([table, expected]) => ({ table, deviations: allDeviations(expected) }));

describe('the interop expectations', () => {
  it('name only server cases that exist, each failing only requirements it declares', () => {
    const cases = new Map(serverCases().map((c) => [c.id, c]));
    const wrong = tables.flatMap(({ table, deviations }) =>
      deviations.flatMap(([id, e]) => {
        const found = cases.get(id);
        if (!found) return [`${table}: no server case ${id}`];
        // A violation FAILs (or WARNs) only the case that declares the requirement it breaks; elsewhere it is noted (INFO).
        const undeclared = e.requirements.filter((r) => !found.requirements.includes(r));
        return undeclared.length > 0 ? [`${table}: ${id} does not declare ${undeclared.join(', ')}`] : [];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('expect a FAIL only where a MUST is cited and a WARN only from SHOULDs (the catalog levels)', () => {
    const wrong = tables.flatMap(({ table, deviations }) =>
      deviations.flatMap(([id, e]) => {
        const verdicts = e.requirements.map((r) => failureVerdict(requirement(r).level));
        if (e.verdict === 'FAIL' && !verdicts.includes('FAIL')) return [`${table}: ${id} is expected to FAIL but cites no MUST (${e.requirements.join(', ')})`];
        if (e.verdict === 'WARN' && verdicts.some((v) => v !== 'WARN')) return [`${table}: ${id} is expected to WARN but cites ${e.requirements.map((r) => `${r} (${requirement(r).level})`).join(', ')}`];
        return [];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('cite findings that docs/interop.md explains, naming each requirement', () => {
    expect(Object.values(PEER_EXPECTATIONS).flatMap((expected) => undocumented(expected))).toEqual([]);
  });

  it('leave no finding of docs/interop.md unused', () => {
    const used = new Set(tables.flatMap(({ deviations }) => deviations.flatMap(([, e]) => e.findings)));
    const findings = [...documentedFindings().keys()];
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.filter((f) => !used.has(f))).toEqual([]);
  });
});
