// A byte-level walk of one CBOR body (RFC 8949): decoders turn a float64 1.0 into the number 1, so
// only the bytes tell whether an integral value went out as a CBOR integer. Reports, each with the
// requirement it breaks, a map key that is not a text string and bytes after the one data item
// (WT-ENC-10), and a float carrying a (safe) integral value (WT-ENC-13, a SHOULD).
import { halfToNumber } from '../../src/wire/index.js';

/** One thing the body does that the binding's CBOR rules speak against, with the byte offset where it starts. */
export interface CborShapeIssue {
  offset: number;
  problem: string;
  /** WT-ENC-10 (one data item, text-string keys) or WT-ENC-13 (integral numbers as CBOR integers). */
  requirement: 'WT-ENC-10' | 'WT-ENC-13';
}

/** Thrown when the bytes end inside an item or hold a reserved encoding. */
export class CborWalkError extends Error {
  readonly offset: number;
  constructor(offset: number, message: string) {
    super(`CBOR body at byte ${offset}: ${message}`);
    this.name = 'CborWalkError';
    this.offset = offset;
  }
}

const BREAK = Symbol('break');

/** Walks `body` as one CBOR data item; returns the issues found (empty for a body the rule accepts). */
export function cborShapeIssues(body: Uint8Array): CborShapeIssue[] {
  const issues: CborShapeIssue[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let pos = 0;

  const need = (count: number) => {
    if (pos + count > body.byteLength) throw new CborWalkError(pos, `the body ends inside an item (needs ${count} more byte(s))`);
  };
  /** The argument of the head at `pos` (after the initial byte); undefined for indefinite length. */
  const argument = (info: number, start: number): number | undefined => {
    if (info < 24) return info;
    if (info === 24) {
      need(1);
      return body[pos++]!;
    }
    if (info === 25) {
      need(2);
      pos += 2;
      return view.getUint16(pos - 2);
    }
    if (info === 26) {
      need(4);
      pos += 4;
      return view.getUint32(pos - 4);
    }
    if (info === 27) {
      need(8);
      pos += 8;
      return Number(view.getBigUint64(pos - 8));
    }
    if (info === 31) return undefined;
    throw new CborWalkError(start, `reserved additional information ${info}`);
  };

  /** Walks one item; returns its major type (for the map-key rule) or BREAK. */
  const item = (): number | typeof BREAK => {
    const start = pos;
    need(1);
    const initial = body[pos++]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (initial === 0xff) return BREAK;
    if (major === 7) {
      if (info === 25 || info === 26 || info === 27) {
        need(info === 25 ? 2 : info === 26 ? 4 : 8);
        const value = info === 25 ? halfToNumber(view.getUint16(pos)) : info === 26 ? view.getFloat32(pos) : view.getFloat64(pos);
        pos += info === 25 ? 2 : info === 26 ? 4 : 8;
        // Beyond 2^53 a float cannot be told from an integer the sender meant; -0 has no integer form.
        if (Number.isSafeInteger(value) && !Object.is(value, -0)) issues.push({ offset: start, requirement: 'WT-ENC-13', problem: `the integral value ${value} is encoded as a float (${info === 25 ? 'half' : info === 26 ? 'single' : 'double'} precision), not as a CBOR integer` });
        return major;
      }
      if (info === 24) {
        need(1);
        pos++;
      } else if (info > 24) throw new CborWalkError(start, `reserved simple value encoding ${info}`);
      return major;
    }
    const length = argument(info, start);
    switch (major) {
      case 0:
      case 1:
        return major;
      case 2:
      case 3:
        if (length === undefined) {
          for (;;) if (item() === BREAK) break;
        } else {
          need(length);
          pos += length;
        }
        return major;
      case 4:
        if (length === undefined) {
          for (;;) if (item() === BREAK) break;
        } else for (let i = 0; i < length; i++) item();
        return major;
      case 5: {
        const entry = (): boolean => {
          const keyAt = pos;
          const key = item();
          if (key === BREAK) return false;
          if (key !== 3) issues.push({ offset: keyAt, requirement: 'WT-ENC-10', problem: `a map key of major type ${key} (JSON objects need text-string keys)` });
          if (item() === BREAK) throw new CborWalkError(pos - 1, 'a map ends between a key and its value');
          return true;
        };
        if (length === undefined) {
          while (entry());
        } else for (let i = 0; i < length; i++) entry();
        return major;
      }
      case 6:
        item();
        return major;
      default:
        throw new CborWalkError(start, `unknown major type ${major}`);
    }
  };

  if (item() === BREAK) throw new CborWalkError(0, 'the body starts with a break byte');
  if (pos < body.byteLength) issues.push({ offset: pos, requirement: 'WT-ENC-10', problem: `${body.byteLength - pos} byte(s) after the data item` });
  return issues;
}
