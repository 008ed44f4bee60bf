// The expected verdict tables and docs/interop.md agree: every expected case exists, every finding
// it cites is a heading of docs/interop.md naming the requirements, and every finding is used.
import { describe, expect, it } from 'vitest';
import { serverCases } from '../../suites/server/index.js';
import { SDK_SERVER_WT, SERVER_EVERYTHING_HTTP, SERVER_EVERYTHING_STDIO } from './expected.js';
import { documentedFindings, undocumented } from './support.js';

const TABLES = { SERVER_EVERYTHING_STDIO, SERVER_EVERYTHING_HTTP, SDK_SERVER_WT };

describe('the interop expectations', () => {
  it('name only server cases that exist, with requirements those cases declare', () => {
    const cases = new Map(serverCases().map((c) => [c.id, c]));
    const wrong = Object.entries(TABLES).flatMap(([table, expected]) =>
      Object.entries(expected).flatMap(([id, e]) => {
        const found = cases.get(id);
        if (!found) return [`${table}: no server case ${id}`];
        // A schema violation FAILs only a case that declares the requirement it breaks; elsewhere it is noted (INFO).
        const undeclared = e.requirements.filter((r) => !found.requirements.includes(r));
        return undeclared.length > 0 ? [`${table}: ${id} does not declare ${undeclared.join(', ')}`] : [];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('cite findings that docs/interop.md explains, naming each requirement', () => {
    expect(Object.values(TABLES).flatMap((expected) => undocumented(expected))).toEqual([]);
  });

  it('leave no finding of docs/interop.md unused', () => {
    const used = new Set(Object.values(TABLES).flatMap((expected) => Object.values(expected).flatMap((e) => e.findings)));
    const findings = [...documentedFindings().keys()];
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.filter((f) => !used.has(f))).toEqual([]);
  });
});
