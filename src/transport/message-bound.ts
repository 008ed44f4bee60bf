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

/**
 * `value` when its JSON text is within `limit`; otherwise the same shape with every member that is
 * over the limit on its own replaced by an OmittedValue, or (when that is still over) the whole
 * value replaced by one. Bytes (Uint8Array) over the limit count as their hex.
 */
export function boundValue(value: unknown, limit: number): unknown {
  if (limit === Number.POSITIVE_INFINITY || value === null || typeof value !== 'object' && typeof value !== 'string') return value;
  const text = jsonText(value);
  if (text === undefined || text.length <= limit) return value;
  if (typeof value === 'string' || value instanceof Uint8Array) return omittedValue(text, limit);
  let bounded: unknown;
  if (Array.isArray(value)) bounded = value.map((item) => boundValue(item, limit));
  else {
    const members: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(members, key, { value: boundValue(member, limit), enumerable: true, writable: true, configurable: true });
    }
    bounded = members;
  }
  const boundedText = jsonText(bounded);
  return boundedText !== undefined && boundedText.length <= limit ? bounded : omittedValue(text, limit);
}
