// How much of one message a record keeps (transcripts, check values, reports): a message within
// the limit is kept whole; one over it only as its size, its SHA-256 and its first bytes, so what
// a hostile peer sends cannot grow a record (or a report) beyond the limit per message.
import { createHash } from 'node:crypto';

/** The default limit: 64 KiB per message. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;
/** Characters of an omitted value's JSON kept as its head (at most a quarter of the limit, so it fits). */
const HEAD_CHARS = 1024;

/** What is kept of a value over the limit, in its place. */
export interface OmittedValue {
  /** Says what was left out and why, e.g. `a value of 60000123 bytes (JSON), over the 65536-byte limit`. */
  omitted: string;
  /** Size of the value as JSON text (UTF-16 code units, i.e. characters). */
  jsonLength: number;
  /** SHA-256 (hex) of the value's JSON text (UTF-8). */
  sha256: string;
  /** The first characters of its JSON text. */
  head: string;
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `limit` checked: a non-negative integer number of bytes (Infinity: no limit). */
export function checkMessageLimit(limit: number, what = 'message size limit'): number {
  if (limit === Number.POSITIVE_INFINITY || (Number.isSafeInteger(limit) && limit >= 0)) return limit;
  throw new RangeError(`${what} must be a non-negative integer number of bytes, got ${limit}`);
}

function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_key, member: unknown) =>
      typeof member === 'bigint' ? member.toString() : member instanceof Uint8Array ? `<${member.byteLength} bytes>` : member,
    );
  } catch {
    // A value with a cycle: the reporters name it; nothing here can measure it.
    return undefined;
  }
}

function omittedValue(text: string, limit: number): OmittedValue {
  const head = text.slice(0, Math.min(HEAD_CHARS, Math.floor(limit / 4)));
  return {
    omitted: `a value of ${text.length} characters (JSON), over the ${limit}-byte limit: only its size, SHA-256 and first ${head.length} characters are kept`,
    jsonLength: text.length,
    sha256: sha256Hex(text),
    head,
  };
}

/** Thrown by jsonLengthUpTo on a value with a cycle (which has no JSON text). */
const CYCLE = Symbol('cycle');

/**
 * The length of `value`'s JSON text as jsonText writes it, counted without writing it: exact while
 * it is within `cap`, and some number over `cap` as soon as it is known to be over (a 60 MB string
 * is not copied to learn that it is over 64 KiB). `value` is what JSON.stringify would write at
 * this place (undefined, functions and symbols are left to the caller). Throws CYCLE on a cycle.
 */
export function jsonLengthUpTo(value: unknown, cap: number, seen: Set<object> = new Set()): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2 > cap ? value.length + 2 : JSON.stringify(value).length;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return value.toString().length + 2;
    case 'object':
      break;
    default:
      return 0;
  }
  if (value === null) return 4;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    const text = jsonText(value);
    if (text === undefined) throw CYCLE;
    return text.length;
  }
  if (value instanceof Uint8Array) return `<${value.byteLength} bytes>`.length + 2;
  if (seen.has(value)) throw CYCLE;
  seen.add(value);
  try {
    let total = 2;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length && total <= cap; index++) {
        const item: unknown = value[index];
        total += (index > 0 ? 1 : 0) + (writtenAsNull(item) ? 4 : jsonLengthUpTo(item, cap - total, seen));
      }
      return total;
    }
    let first = true;
    for (const [key, member] of Object.entries(value)) {
      if (total > cap) break;
      if (writtenAsNull(member)) continue;
      total += (first ? 0 : 1) + JSON.stringify(key).length + 1 + jsonLengthUpTo(member, cap - total, seen);
      first = false;
    }
    return total;
  } finally {
    seen.delete(value);
  }
}

/** Whether JSON.stringify leaves `value` out of an object (and writes null for it in an array). */
function writtenAsNull(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Whether `value`'s JSON text is within `limit`; undefined when it has none (a cycle). */
function fits(value: unknown, limit: number): boolean | undefined {
  try {
    return jsonLengthUpTo(value, limit) <= limit;
  } catch (error) {
    if (error === CYCLE) return undefined;
    throw error;
  }
}

/** The OmittedValue of `value`, written out once (its size and SHA-256 are of the whole text). */
function omitted(value: unknown, limit: number): unknown {
  const text = jsonText(value);
  return text === undefined ? value : omittedValue(text, limit);
}

/**
 * `value` when its JSON text is within `limit`; otherwise the same shape with every member that is
 * over the limit on its own replaced by an OmittedValue, or (when that is still over) the whole
 * value replaced by one. Sizes are counted, not written (jsonLengthUpTo): only an omitted value's
 * text is written, once, for its SHA-256.
 */
export function boundValue(value: unknown, limit: number): unknown {
  if (limit === Number.POSITIVE_INFINITY || value === null || typeof value !== 'object' && typeof value !== 'string') return value;
  const within = fits(value, limit);
  if (within !== false) return value;
  if (typeof value === 'string' || value instanceof Uint8Array) return omitted(value, limit);
  let bounded: unknown;
  if (Array.isArray(value)) bounded = value.map((item) => boundValue(item, limit));
  else {
    const members: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(members, key, { value: boundValue(member, limit), enumerable: true, writable: true, configurable: true });
    }
    bounded = members;
  }
  return fits(bounded, limit) === true ? bounded : omitted(value, limit);
}
