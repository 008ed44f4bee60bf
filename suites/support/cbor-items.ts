// The one byte-level walk of a CBOR body (RFC 8949) behind the server and client cases' CBOR rules:
// decoders turn a float64 1.0 into the number 1, so only the bytes tell whether an integral value
// went out as a CBOR integer. Reports, each with the requirement it speaks to, a map key that is not
// a text string and bytes after the one data item (WT-ENC-10), a float carrying a (safe) integral
// value (WT-ENC-13, a SHOULD), and the shape the cases read: the top item's major type, the major
// type of a top-level map's `id` member, and the tags met.
import { halfToNumber } from '../../src/wire/index.js';

/** One thing the body does that the binding's CBOR rules speak against, with the byte offset where it starts. */
export interface CborShapeIssue {
  offset: number;
  problem: string;
  /** WT-ENC-10 (one data item, text-string keys) or WT-ENC-13 (integral numbers as CBOR integers). */
  requirement: 'WT-ENC-10' | 'WT-ENC-13';
  /** What was found: a map key that is no text string, bytes after the item, an integral float. */
  kind: 'map-key' | 'trailing-bytes' | 'integral-float';
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
/** Nesting the walk follows before it gives up (a hostile body must not exhaust the stack). */
const MAX_DEPTH = 512;

/** What the walk of one body found. */
export interface CborWalk {
  issues: CborShapeIssue[];
  /** Major type of the data item (5: a map). */
  topMajor: number;
  /** Major type of the top-level map's `id` member's value, when it has one. */
  idMajor?: number;
  /** Byte offsets and numbers of the tags met. */
  tags: { offset: number; tag: number }[];
  /** Bytes after the data item. */
  trailingBytes: number;
}

/** Walks `body` as one CBOR data item; returns the issues found (empty for a body the rule accepts). */
export function cborShapeIssues(body: Uint8Array): CborShapeIssue[] {
  return walkCbor(body).issues;
}

/** Walks `body` as one CBOR data item (throws CborWalkError for one that is not well-formed). */
export function walkCbor(body: Uint8Array): CborWalk {
  const issues: CborShapeIssue[] = [];
  const tags: CborWalk['tags'] = [];
  let idMajor: number | undefined;
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

  /** The text of a definite text-string item at `at`, or undefined (the walk does not move). */
  const textAt = (at: number): string | undefined => {
    const initial = body[at];
    if (initial === undefined || initial >> 5 !== 3) return undefined;
    const info = initial & 0x1f;
    // The length as the head gives it, in any of its definite forms (a non-preferred one included).
    const size = info < 24 ? 0 : info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : undefined;
    if (size === undefined || at + 1 + size > body.byteLength) return undefined;
    const length = size === 0 ? info : size === 1 ? view.getUint8(at + 1) : size === 2 ? view.getUint16(at + 1) : view.getUint32(at + 1);
    const from = at + 1 + size;
    return from + length <= body.byteLength ? new TextDecoder().decode(body.subarray(from, from + length)) : undefined;
  };

  /** Walks one item; returns its major type (for the map-key rule) or BREAK. */
  const item = (depth = 0): number | typeof BREAK => {
    const start = pos;
    if (depth > MAX_DEPTH) throw new CborWalkError(start, `items nested more than ${MAX_DEPTH} deep`);
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
        if (Number.isSafeInteger(value) && !Object.is(value, -0)) issues.push({ offset: start, requirement: 'WT-ENC-13', kind: 'integral-float', problem: `the integral value ${value} is encoded as a float (${info === 25 ? 'half' : info === 26 ? 'single' : 'double'} precision), not as a CBOR integer` });
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
          for (;;) if (item(depth + 1) === BREAK) break;
        } else {
          need(length);
          pos += length;
        }
        return major;
      case 4:
        if (length === undefined) {
          for (;;) if (item(depth + 1) === BREAK) break;
        } else for (let i = 0; i < length; i++) item(depth + 1);
        return major;
      case 5: {
        const entry = (): boolean => {
          const keyAt = pos;
          const key = item(depth + 1);
          if (key === BREAK) return false;
          if (key !== 3) issues.push({ offset: keyAt, requirement: 'WT-ENC-10', kind: 'map-key', problem: `a map key of major type ${key} (JSON objects need text-string keys)` });
          const value = item(depth + 1);
          if (value === BREAK) throw new CborWalkError(pos - 1, 'a map ends between a key and its value');
          if (depth === 0 && key === 3 && textAt(keyAt) === 'id') idMajor = value;
          return true;
        };
        if (length === undefined) {
          while (entry());
        } else for (let i = 0; i < length; i++) entry();
        return major;
      }
      case 6:
        tags.push({ offset: start, tag: length ?? -1 });
        item(depth + 1);
        return major;
      default:
        throw new CborWalkError(start, `unknown major type ${major}`);
    }
  };

  const topMajor = item();
  if (topMajor === BREAK) throw new CborWalkError(0, 'the body starts with a break byte');
  if (pos < body.byteLength) issues.push({ offset: pos, requirement: 'WT-ENC-10', kind: 'trailing-bytes', problem: `${body.byteLength - pos} byte(s) after the data item` });
  return { issues, topMajor, ...(idMajor !== undefined ? { idMajor } : {}), tags, trailingBytes: body.byteLength - pos };
}
