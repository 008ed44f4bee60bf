import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogError, UnknownRequirementError } from '../../src/protocol/errors.js';
import {
  Requirements,
  defaultCatalogPath,
  failureVerdict,
  parseCatalog,
  parseSource,
  readCatalog,
  requirement,
  requirements,
} from '../../src/protocol/requirements.js';

// Built at run time so that the project-wide "cited IDs exist" check does not see them.
const unknownId = ['CORE', 'RPC', '999'].join('-');

const valid = {
  id: 'WT-FRAME-1',
  level: 'MUST',
  system: 'WT',
  area: 'FRAME',
  text: 'Each control message is one frame.',
  source: '001_b966f71271833902.txt §2.1 Control Stream Frame',
  role: 'both',
  testable: true,
};

function catalogWith(...entries: object[]): unknown {
  return { version: 1, requirements: entries };
}

function expectCatalogError(data: unknown, pointer: string, fragment: string): void {
  try {
    parseCatalog(data, 'test.json');
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogError);
    const e = error as CatalogError;
    expect(e.code).toBe('CATALOG_INVALID');
    expect(e.pointer).toBe(pointer);
    expect(e.message).toContain(fragment);
    return;
  }
  throw new Error(`expected a CatalogError at ${pointer}`);
}

describe('parseCatalog', () => {
  it('accepts a well-formed entry', () => {
    const catalog = parseCatalog(catalogWith(valid));
    expect(catalog.requirements[0]?.id).toBe('WT-FRAME-1');
  });

  it('names what is wrong and where', () => {
    expectCatalogError([], '', 'JSON object');
    expectCatalogError({ version: 2, requirements: [] }, '/version', 'unsupported version');
    expectCatalogError(catalogWith(valid, valid), '/requirements/1/id', 'duplicate id WT-FRAME-1');
    expectCatalogError(catalogWith({ ...valid, id: 'WT-FRAME-01' }), '/requirements/0/id', 'not of the form');
    expectCatalogError(catalogWith({ ...valid, system: 'FLOW' }), '/requirements/0/system', 'does not match');
    expectCatalogError(catalogWith({ ...valid, id: ['WT', 'BOGUS', '1'].join('-'), area: 'BOGUS' }), '/requirements/0/area', 'not an area of WT');
    expectCatalogError(catalogWith({ ...valid, level: 'MUST NOT' }), '/requirements/0/level', 'MUST, SHOULD, MAY, INFO');
    expectCatalogError(catalogWith({ ...valid, role: 'host' }), '/requirements/0/role', 'server, client, both');
    expectCatalogError(catalogWith({ ...valid, text: ' ' }), '/requirements/0/text', 'non-empty');
    expectCatalogError(catalogWith({ ...valid, source: '005_unknown.txt §1' }), '/requirements/0/source', 'seed file');
    expectCatalogError(catalogWith({ ...valid, testable: false }), '/requirements/0/testable', 'cannot be checked');
    expectCatalogError(catalogWith({ ...valid, conflict: 'C-7' }), '/requirements/0/conflict', 'C-07');
    expectCatalogError(catalogWith({ ...valid, accepts: ['only one'] }), '/requirements/0/accepts', 'at least two');
    expectCatalogError(catalogWith({ ...valid, note: 'x' }), '/requirements/0/note', 'unknown field');
  });
});

describe('readCatalog', () => {
  const folder = mkdtempSync(join(tmpdir(), 'catalog-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('reports an unreadable or non-JSON file as a CatalogError naming the file', () => {
    const missing = join(folder, 'missing.json');
    expect(() => readCatalog(missing)).toThrow(CatalogError);
    expect(() => readCatalog(missing)).toThrow(/missing\.json/);
    const broken = join(folder, 'broken.json');
    writeFileSync(broken, '{"version": 1,');
    expect(() => readCatalog(broken)).toThrow(/not valid JSON/);
  });

  it('finds the project catalog from the module', () => {
    expect(defaultCatalogPath()).toMatch(/suites[\\/]requirements\.json$/);
  });
});

describe('Requirements', () => {
  it('looks requirements up by ID', () => {
    const r = requirement('WT-FRAME-1');
    expect(r.level).toBe('MUST');
    expect(r.system).toBe('WT');
    expect(requirements().has('FLOW-START-5')).toBe(true);
    expect(requirements().list({ system: 'FW', area: 'ERR' }).every((x) => x.id.startsWith('FW-ERR-'))).toBe(true);
    expect(requirements().list({ level: 'INFO' }).every((x) => x.level === 'INFO')).toBe(true);
  });

  it('throws a typed error for an unknown or malformed ID', () => {
    const all = requirements();
    expect(() => all.get(unknownId)).toThrow(UnknownRequirementError);
    try {
      all.get('not-an-id');
    } catch (error) {
      expect((error as UnknownRequirementError).code).toBe('UNKNOWN_REQUIREMENT');
      expect((error as UnknownRequirementError).id).toBe('not-an-id');
      expect((error as Error).message).toContain('not a well-formed');
    }
    expect(() => all.assertKnown(['WT-ID-1', unknownId])).toThrow(unknownId);
  });

  it('works on any parsed catalog', () => {
    const small = new Requirements(parseCatalog(catalogWith(valid)));
    expect(small.size).toBe(1);
    expect(small.get('WT-FRAME-1').text).toContain('one frame');
    expect(small.has('WT-FRAME-2')).toBe(false);
  });
});

describe('failureVerdict', () => {
  it('fails MUST, warns SHOULD, informs MAY and INFO', () => {
    expect(failureVerdict('MUST')).toBe('FAIL');
    expect(failureVerdict('SHOULD')).toBe('WARN');
    expect(failureVerdict('MAY')).toBe('INFO');
    expect(failureVerdict('INFO')).toBe('INFO');
  });
});

describe('parseSource', () => {
  it('splits seed, section and further references', () => {
    expect(parseSource('000_73a733fb938bdd0a.txt §Error Codes')).toEqual({ seed: '000_73a733fb938bdd0a.txt', section: 'Error Codes' });
    expect(parseSource('002_a41331816123f095.txt §Message Types; official MCP schema RequestId')).toEqual({
      seed: '002_a41331816123f095.txt',
      section: 'Message Types',
      also: 'official MCP schema RequestId',
    });
  });

  it('rejects unknown seeds and missing sections', () => {
    expect(parseSource('999_x.txt §Intro')).toBeUndefined();
    expect(parseSource('000_73a733fb938bdd0a.txt')).toBeUndefined();
  });
});
