// The byte-level CBOR walk behind WT-ENC-10 and WT-ENC-13 (suites/support/cbor-items.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cborShapeIssues, CborWalkError, walkCbor } from '../../../suites/support/cbor-items.js';
import { codecFor } from '../../../src/wire/index.js';

const cbor = codecFor('cbor');
const hex = (text: string) => new Uint8Array(text.match(/../g)!.map((b) => parseInt(b, 16)));

describe('cborShapeIssues', () => {
  it('accepts what the project CBOR codec makes of JSON values (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(cborShapeIssues(cbor.encode({ jsonrpc: '2.0', id: 7, result: { value } }))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('flags an integral id encoded as a float64, half or single, under WT-ENC-13 (a SHOULD; WT-ENC-10 leaves numbers to it)', () => {
    // {"id": 1.0} with the value as float64, then as half (f93c00) and single (fa3f800000)
    for (const value of ['fb3ff0000000000000', 'f93c00', 'fa3f800000']) {
      const issues = cborShapeIssues(hex(`a1626964${value}`));
      expect(issues).toHaveLength(1);
      expect(issues[0]!.problem).toMatch(/integral value 1 is encoded as a float/);
      expect(issues[0]!.offset).toBe(4);
      expect(issues[0]!.requirement).toBe('WT-ENC-13');
    }
    expect(cborShapeIssues(hex('a1626964fb3ff8000000000000'))).toEqual([]); // 1.5 stays a float
  });

  it('flags a map key that is not a text string, and bytes after the item', () => {
    expect(cborShapeIssues(hex('a10101'))[0]).toMatchObject({ requirement: 'WT-ENC-10', problem: expect.stringMatching(/map key of major type 0/) });
    expect(cborShapeIssues(hex('a0ff'))[0]).toMatchObject({ requirement: 'WT-ENC-10', problem: expect.stringMatching(/1 byte\(s\) after the data item/) });
  });

  it('walks indefinite-length items', () => {
    // {_ "a": [_ 1, 2]} with a break after each
    expect(cborShapeIssues(hex('bf61619f0102ffff'))).toEqual([]);
  });

  it('throws CborWalkError for a body that ends inside an item', () => {
    expect(() => cborShapeIssues(hex('a26169'))).toThrow(CborWalkError);
    expect(() => cborShapeIssues(hex('ff'))).toThrow(/starts with a break/);
  });
});

describe('walkCbor (the shape the server and client cases read)', () => {
  it("reads the top item's major type, the major type of the top-level id (in any length form of its key), tags and trailing bytes", () => {
    expect(walkCbor(cbor.encode({ jsonrpc: '2.0', id: 7, result: {} }))).toMatchObject({ topMajor: 5, idMajor: 0, tags: [], trailingBytes: 0 });
    // {"id": 1.0 as float64}, then the key "id" with a one-byte length head (78 02)
    expect(walkCbor(hex('a1626964fb3ff0000000000000')).idMajor).toBe(7);
    expect(walkCbor(hex('a178026964fb3ff0000000000000')).idMajor).toBe(7);
    // a nested id is not the message's
    expect(walkCbor(hex('a16161a1626964f93c00')).idMajor).toBeUndefined();
    expect(walkCbor(hex('a1626964c101'))).toMatchObject({ idMajor: 6, tags: [{ offset: 4, tag: 1 }] });
    expect(walkCbor(hex('a0ff')).trailingBytes).toBe(1);
  });

  it('gives up on nesting deeper than it follows, with a CborWalkError', () => {
    expect(() => walkCbor(new Uint8Array(1000).fill(0x81))).toThrow(CborWalkError);
  });
});
