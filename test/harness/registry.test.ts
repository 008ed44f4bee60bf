// The case registry, filters, shards, baseline files and rerun commands: pure functions, no target.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyBaseline, baselineCounts, baselineFromResults, exitCodeFor, parseBaseline, readBaseline } from '../../src/harness/baseline.js';
import { defineCase, type ConformanceCase } from '../../src/harness/case.js';
import {
  BaselineError,
  CaseUnknownRequirementError,
  DuplicateCaseError,
  InvalidCaseError,
  InvalidFilterError,
  NoCasesSelectedError,
  UnknownCaseError,
} from '../../src/harness/errors.js';
import { CaseRegistry } from '../../src/harness/registry.js';
import { CatalogError } from '../../src/protocol/errors.js';
import { parseCatalog, readCatalog, Requirements } from '../../src/protocol/requirements.js';
import { rerunCommand, shellQuote } from '../../src/harness/rerun.js';
import type { CaseResult, Verdict } from '../../src/harness/result.js';
import { globToRegExp, parseShard, selectCases, shardOf } from '../../src/harness/selection.js';

const noop = async () => undefined;
const make = (id: string, suite = id.split('/')[0] as string, requirements = ['CORE-LIFE-3']): ConformanceCase =>
  defineCase({ id, suite, title: `case ${id}`, requirements, run: noop });

function registryOf(ids: string[]): CaseRegistry {
  const registry = new CaseRegistry();
  for (const id of ids) registry.register(make(id));
  return registry;
}

describe('case registry', () => {
  it('derives the level from the strongest requirement and the default time limit', () => {
    const registry = new CaseRegistry();
    const should = registry.register(make('lifecycle/second-initialize', 'lifecycle', ['CORE-LIFE-8']));
    const both = registry.register(make('lifecycle/both', 'lifecycle', ['CORE-LIFE-8', 'CORE-LIFE-3']));
    expect(should.level).toBe('SHOULD');
    expect(both.level).toBe('MUST');
    expect(both.timeLimitMs).toBe(10_000);
    expect(registry.list().map((c) => c.id)).toEqual(['lifecycle/second-initialize', 'lifecycle/both']);
    expect(registry.suites()).toEqual(['lifecycle']);
  });

  it('refuses a case citing a requirement the catalog does not define', () => {
    // Assembled so that the project-wide "every cited requirement ID exists" check does not read
    // this deliberately unknown ID as a citation.
    const unknownId = ['CORE', 'LIFE', '999'].join('-');
    const registry = new CaseRegistry();
    const error = (() => {
      try {
        registry.register(make('lifecycle/x', 'lifecycle', [unknownId]));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CaseUnknownRequirementError);
    expect(error).toMatchObject({ code: 'CASE_UNKNOWN_REQUIREMENT', caseId: 'lifecycle/x', requirement: unknownId });
    expect(() => registry.register(make('lifecycle/y', 'lifecycle', ['not-an-id']))).toThrow(CaseUnknownRequirementError);
    expect(registry.size).toBe(0);
  });

  it('refuses malformed definitions with a typed error naming the case', () => {
    const registry = new CaseRegistry();
    expect(() => registry.register(make('Lifecycle/Upper'))).toThrow(InvalidCaseError);
    expect(() => registry.register(make('lifecycle//empty'))).toThrow(InvalidCaseError);
    expect(() => registry.register(make('lifecycle/none', 'lifecycle', []))).toThrow(/at least one requirement/);
    expect(() => registry.register(make('lifecycle/twice', 'lifecycle', ['CORE-LIFE-3', 'CORE-LIFE-3']))).toThrow(/listed twice/);
    expect(() => registry.register({ ...make('lifecycle/limit'), timeLimitMs: 0 })).toThrow(/timeLimitMs/);
    expect(() => registry.register({ ...make('lifecycle/suite'), suite: 'Bad Suite' })).toThrow(/suite/);
    expect(() => registry.register({ ...make('lifecycle/transport'), transports: ['carrier-pigeon' as 'stdio'] })).toThrow(/transport/);
    registry.register(make('lifecycle/ok'));
    expect(() => registry.register(make('lifecycle/ok'))).toThrow(DuplicateCaseError);
    expect(() => registry.get('lifecycle/ko')).toThrow(UnknownCaseError);
  });
});

describe('requirements a case may not cite', () => {
  // A copy of the project catalog with one requirement withdrawn, and the ID of one that is not testable.
  const catalog = readCatalog();
  const notTestable = catalog.requirements.find((r) => r.testable !== true);
  const withdrawnId = 'CORE-LIFE-3';
  const withWithdrawn = (withdrawn: unknown) => ({
    version: 1,
    requirements: catalog.requirements.map((r) => (r.id === withdrawnId ? { ...r, withdrawn } : r)),
  });

  it('refuses a case citing a requirement that is not testable from outside, naming it', () => {
    expect(notTestable).toBeDefined();
    const registry = new CaseRegistry();
    const attempt = () => registry.register(make('lifecycle/untestable', 'lifecycle', ['CORE-LIFE-3', notTestable!.id]));
    expect(attempt).toThrow(InvalidCaseError);
    expect(attempt).toThrow(new RegExp(`${notTestable!.id} is not testable`));
    expect(registry.size).toBe(0);
  });

  it('loads an optional "withdrawn" reason and refuses cases citing a withdrawn requirement', () => {
    const requirements = new Requirements(parseCatalog(withWithdrawn('merged into CORE-LIFE-4')));
    expect(requirements.get(withdrawnId).withdrawn).toBe('merged into CORE-LIFE-4');
    const registry = new CaseRegistry(requirements);
    const attempt = () => registry.register(make('lifecycle/withdrawn'));
    expect(attempt).toThrow(InvalidCaseError);
    expect(attempt).toThrow(/CORE-LIFE-3 is withdrawn \(merged into CORE-LIFE-4\)/);
    // Requirements that are not withdrawn still register.
    expect(registry.register(make('lifecycle/other', 'lifecycle', ['CORE-LIFE-8'])).level).toBe('SHOULD');
  });

  it('the loader refuses a "withdrawn" that is not a reason', () => {
    for (const bad of ['', '  ', true, 3]) {
      expect(() => parseCatalog(withWithdrawn(bad))).toThrow(CatalogError);
      expect(() => parseCatalog(withWithdrawn(bad))).toThrow(/withdrawn/);
    }
  });
});

describe('selection', () => {
  const registry = registryOf(['lifecycle/ping', 'lifecycle/initialize', 'tools/list', 'tools/call/echo', 'flow/start']);
  const ids = (selection: ReturnType<typeof selectCases>) => selection.selected.map((c) => c.id);

  it('globs: * stays within a segment, ** crosses segments, ? is one character', () => {
    expect(globToRegExp('tools/*').test('tools/list')).toBe(true);
    expect(globToRegExp('tools/*').test('tools/call/echo')).toBe(false);
    expect(globToRegExp('tools/**').test('tools/call/echo')).toBe(true);
    expect(globToRegExp('lifecycle/p?ng').test('lifecycle/ping')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });

  it('filters by suite, case glob and exclude glob, and says why each case was left out', () => {
    expect(ids(selectCases(registry.list(), { suites: ['tools'] }))).toEqual(['tools/list', 'tools/call/echo']);
    expect(ids(selectCases(registry.list(), { cases: ['lifecycle/*', 'flow/start'] }))).toEqual(['lifecycle/ping', 'lifecycle/initialize', 'flow/start']);
    const excluded = selectCases(registry.list(), { exclude: ['tools/**', 'lifecycle/ping'] });
    expect(ids(excluded)).toEqual(['lifecycle/initialize', 'flow/start']);
    expect(excluded.skipped.map((s) => [s.case.id, s.reason.includes('--exclude')])).toEqual([
      ['lifecycle/ping', true],
      ['tools/list', true],
      ['tools/call/echo', true],
    ]);
  });

  it('rejects an unknown suite, a malformed shard and a selection of nothing with typed errors', () => {
    expect(() => selectCases(registry.list(), { suites: ['prompts'] })).toThrow(InvalidFilterError);
    expect(() => selectCases(registry.list(), { cases: ['nothing/*'] })).toThrow(NoCasesSelectedError);
    expect(() => selectCases(registry.list(), { cases: ['tools/*'], exclude: ['tools/*'] })).toThrow(NoCasesSelectedError);
    expect(() => parseShard('0/3')).toThrow(InvalidFilterError);
    expect(() => parseShard('4/3')).toThrow(InvalidFilterError);
    expect(() => parseShard('1-3')).toThrow(InvalidFilterError);
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
  });

  it('shards partition the cases: every case in exactly one shard, stable when cases are added', () => {
    const many = registryOf(Array.from({ length: 60 }, (_, i) => `suite/case-${i}`));
    const count = 4;
    const seen = new Map<string, number>();
    for (let index = 1; index <= count; index++) {
      let selection: ReturnType<typeof selectCases>;
      try {
        selection = selectCases(many.list(), { shard: { index, count } });
      } catch (error) {
        // An empty shard is possible in principle; with 60 cases and 4 shards it would be a bad hash.
        throw new Error(`shard ${index}/${count} is empty`, { cause: error });
      }
      for (const c of selection.selected) {
        expect(seen.has(c.id)).toBe(false);
        seen.set(c.id, index);
      }
      for (const s of selection.skipped) expect(s.reason).toMatch(/^in shard \d\/4, not \d\/4$/);
    }
    expect([...seen.keys()].sort()).toEqual(many.list().map((c) => c.id).sort());
    for (const [id, index] of seen) expect(shardOf(id, count)).toBe(index);
    const grown = registryOf([...many.list().map((c) => c.id), 'suite/new-one']);
    const again = selectCases(grown.list(), { shard: { index: 1, count } }).selected.map((c) => c.id);
    for (const [id, index] of seen) expect(again.includes(id)).toBe(index === 1);
  });
});

function resultOf(id: string, verdict: Verdict): CaseResult {
  return { id, suite: 's', title: id, requirements: ['CORE-LIFE-3'], level: 'MUST', verdict, checks: [], startedAt: 0, durationMs: 0, timeLimitMs: 1, rerun: '' };
}

describe('baseline', () => {
  it('marks listed failures as expected and listed passes as stale; exit codes follow', () => {
    const baseline = parseBaseline({ version: 1, expectedFailures: { 'a/fails': 'known bug #12', 'a/passes': 'fixed since?', 'a/times-out': 'slow' } });
    const cases = [resultOf('a/fails', 'FAIL'), resultOf('a/passes', 'PASS'), resultOf('a/times-out', 'TIMEOUT'), resultOf('a/other', 'PASS')];
    expect(exitCodeFor(cases)).toBe(1);
    for (const c of cases) applyBaseline(c, baseline);
    expect(cases.map((c) => c.baseline)).toEqual(['expected-failure', 'stale', 'expected-failure', undefined]);
    expect(exitCodeFor(cases)).toBe(0);
    expect(exitCodeFor([...cases, resultOf('a/unlisted', 'FAIL')])).toBe(1);
    expect(exitCodeFor([...cases, resultOf('a/warns', 'WARN'), resultOf('a/na', 'NOT_APPLICABLE')])).toBe(0);
    const errored = resultOf('a/fails', 'ERROR');
    applyBaseline(errored, baseline);
    expect(errored.baseline).toBeUndefined();
    expect(exitCodeFor([errored])).toBe(2);
  });

  it('keeps the baseline\'s reason, counts expected and stale entries, and fails on stale ones with failOnStale', () => {
    const baseline = parseBaseline({ version: 1, expectedFailures: { 'a/fails': 'known bug #12', 'a/passes': 'fixed since?' } });
    const cases = [resultOf('a/fails', 'FAIL'), resultOf('a/passes', 'PASS'), resultOf('a/other', 'PASS')];
    for (const c of cases) applyBaseline(c, baseline);
    expect(cases.map((c) => c.baselineReason)).toEqual(['known bug #12', 'fixed since?', undefined]);
    expect(baselineCounts(cases)).toEqual({ expectedFailures: 1, stale: 1 });
    expect(exitCodeFor(cases)).toBe(0);
    expect(exitCodeFor(cases, { failOnStale: true })).toBe(1);
    expect(exitCodeFor([cases[0]!], { failOnStale: true })).toBe(0);
    expect(exitCodeFor([cases[2]!], { interrupted: true })).toBe(2);
  });

  it('builds a baseline from a run', () => {
    const failing = { ...resultOf('x/y', 'FAIL'), reason: 'no serverInfo' };
    expect(baselineFromResults([failing, resultOf('x/z', 'PASS')])).toEqual({ version: 1, expectedFailures: { 'x/y': 'no serverInfo' } });
  });

  it('rejects malformed baselines with the pointer of the problem', () => {
    const bad = (data: unknown, known?: (id: string) => boolean) => {
      try {
        parseBaseline(data, 'b.json', known);
      } catch (error) {
        expect(error).toBeInstanceOf(BaselineError);
        return (error as BaselineError).pointer;
      }
      throw new Error('expected a BaselineError');
    };
    expect(bad([])).toBe('');
    expect(bad({ version: 2, expectedFailures: {} })).toBe('/version');
    expect(bad({ version: 1 })).toBe('/expectedFailures');
    expect(bad({ version: 1, expectedFailures: { 'a/b': 3 } })).toBe('/expectedFailures/a~1b');
    expect(bad({ version: 1, expectedFailures: { 'a/b': 'why' } }, (id) => id === 'a/c')).toBe('/expectedFailures/a~1b');
    expect(bad({ version: 1, expectedFailures: {}, extra: true })).toBe('/extra');
  });

  it('reads a baseline file, with typed errors for unreadable and non-JSON files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baseline-'));
    try {
      const good = join(dir, 'good.json');
      writeFileSync(good, JSON.stringify({ version: 1, expectedFailures: { 'a/b': 'reason' } }));
      expect(readBaseline(good).expectedFailures).toEqual({ 'a/b': 'reason' });
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, '{ not json');
      expect(() => readBaseline(broken)).toThrow(BaselineError);
      expect(() => readBaseline(join(dir, 'missing.json'))).toThrow(/cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rerun commands', () => {
  it('select exactly one case against the same target, with seed, path and scale when given', () => {
    expect(rerunCommand({ targetArgs: ['--url', 'https://h:4433/mcp'], caseId: 'lifecycle/ping' })).toBe(
      'mcp-flow-conformance server --url https://h:4433/mcp --case lifecycle/ping',
    );
    expect(rerunCommand({ targetArgs: ['--stdio', 'node srv.js'], caseId: 'a/b', seed: 42, path: '3:1:0', timeoutScale: 2, strict: true })).toBe(
      "mcp-flow-conformance server --stdio 'node srv.js' --case a/b --seed 42 --path 3:1:0 --timeout-scale 2 --strict",
    );
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});

describe('registry roles', () => {
  const run = async () => undefined;
  it('a client registry refuses server-only requirements, a server registry client-only ones; either takes "both"', () => {
    const client = new CaseRegistry(undefined, { role: 'client' });
    expect(() => client.register(defineCase({ id: 'c/a', suite: 'c', title: 't', requirements: ['FLOW-CAP-1'], run }))).toThrow(/FLOW-CAP-1 binds the server; this registry holds client cases/);
    const server = new CaseRegistry(undefined, { role: 'server' });
    expect(() => server.register(defineCase({ id: 's/a', suite: 's', title: 't', requirements: ['CORE-LIFE-1'], run }))).toThrow(/CORE-LIFE-1 binds the client; this registry holds server cases/);
    expect(client.register(defineCase({ id: 'c/b', suite: 'c', title: 't', requirements: ['CORE-RPC-1'], run })).timeLimitMs).toBe(20_000);
    expect(server.register(defineCase({ id: 's/b', suite: 's', title: 't', requirements: ['CORE-RPC-1'], run })).timeLimitMs).toBe(10_000);
    expect(new CaseRegistry().register(defineCase({ id: 'x/a', suite: 'x', title: 't', requirements: ['CORE-LIFE-1'], run })).level).toBe('MUST');
  });
});
