// The expected verdict tables and docs/interop.md agree: every expected case exists, every finding
// it cites is a heading of docs/interop.md naming the requirements, and every finding is used.
import { describe, expect, it } from 'vitest';
import { serverCases } from '../../suites/server/index.js';
import { PEER_EXPECTATIONS } from './expected.js';
import { allDeviations, documentedFindings, undocumented } from './support.js';

describe('the interop expectations', () => {
  it('name only server cases that exist, with requirements those cases declare', () => {
    const cases = new Map(serverCases().map((c) => [c.id, c]));
    const wrong = Object.entries(PEER_EXPECTATIONS).flatMap(([table, expected]) => [
      ...[...Object.entries(expected.deviations), ...Object.entries(expected.unsettled ?? {})].flatMap(([id, e]) => {
        const found = cases.get(id);
        if (!found) return [`${table}: no server case ${id}`];
        // A schema violation FAILs only a case that declares the requirement it breaks; elsewhere it is noted (INFO).
        const undeclared = e.requirements.filter((r) => !found.requirements.includes(r));
        return undeclared.length > 0 ? [`${table}: ${id} does not declare ${undeclared.join(', ')}`] : [];
      }),
      ...(expected.everyCase?.except ?? []).filter((id) => !cases.has(id)).map((id) => `${table}: no server case ${id} (every-case exception)`),
      // A schema violation FAILs only the case that owns its requirement: nothing fails in every case.
      ...(expected.everyCase ? [`${table}: no deviation applies to every case (a violation is judged once, by the case owning its requirement)`] : []),
    ]);
    expect(wrong).toEqual([]);
  });

  it('cite findings that docs/interop.md explains, naming each requirement', () => {
    expect(Object.values(PEER_EXPECTATIONS).flatMap((expected) => undocumented(expected))).toEqual([]);
  });

  it('leave no finding of docs/interop.md unused', () => {
    const used = new Set(Object.values(PEER_EXPECTATIONS).flatMap((expected) => allDeviations(expected).flatMap(([, e]) => e.findings)));
    const findings = [...documentedFindings().keys()];
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.filter((f) => !used.has(f))).toEqual([]);
  });
});
