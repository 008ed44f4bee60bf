// A connection's transcript: every byte sent and received, in order, with what it decoded to.
// Transcripts attach to failing checks and serialise as NDJSON (one entry per line). Memory is
// bounded whatever the peer sends: a message over the message limit is kept as its size, SHA-256
// and first bytes (message-bound.ts), and the entries form a ring bounded in count and in bytes.
import { writeFile } from 'node:fs/promises';
import { classifyMessage } from './http/json-body.js';
import { checkMessageLimit, DEFAULT_MAX_MESSAGE_BYTES, sha256Hex } from './message-bound.js';

export type Direction = 'sent' | 'received' | 'local';

/** Where on the connection an entry happened. */
export type TranscriptChannel =
  | { kind: 'control' }
  | { kind: 'stream'; streamId: number; header?: { requestId: number; streamTag: number } }
  | { kind: 'datagram'; channel: number; requestId?: number }
  | {
      kind: 'http';
      method?: string;
      url?: string;
      status?: number;
      headers?: Record<string, string>;
    }
  | { kind: 'stdio'; fd: 'stdin' | 'stdout' | 'stderr' }
  /** Connection lifecycle events (open, close, state changes) that carry no bytes. */
  | { kind: 'session' };

export interface TranscriptEntry {
  /** 0-based position in this transcript. */
  seq: number;
  /** Milliseconds since the Unix epoch. */
  at: number;
  direction: Direction;
  channel: TranscriptChannel;
  /** Total bytes on the wire for this entry (0 for events). */
  byteLength: number;
  /** Hex of the first `maxHexBytes` bytes. */
  hex?: string;
  /** True when `hex` holds fewer bytes than `byteLength`. */
  truncated?: boolean;
  /**
   * Set when the bytes were over the transcript's message limit: the SHA-256 (hex) of all of them.
   * Such an entry keeps no `decoded` (only `hex`, the first bytes, and `summary`): whoever needs
   * the message whole takes it from the connection (`next()`), never from the transcript.
   */
  sha256?: string;
  /** For an entry over the message limit that decoded: what the message was (`request tools/list id 3`). */
  summary?: string;
  /** The decoded message, when the bytes decoded to one (and were within the message limit). */
  decoded?: unknown;
  /** Why the bytes did not decode, when they did not. */
  error?: { code: string; message: string };
  /** A human note (state change, close reason, ...). */
  note?: string;
}

export interface TranscriptRecord {
  direction: Direction;
  channel: TranscriptChannel;
  bytes?: Uint8Array;
  /** Byte count when the bytes themselves are not kept (e.g. a long execution stream). */
  byteLength?: number;
  decoded?: unknown;
  error?: { code: string; message: string };
  note?: string;
}

export interface TranscriptOptions {
  /** Bytes of each entry kept as hex; the rest is counted, not kept. Default 4096. */
  maxHexBytes?: number;
  /**
   * A message whose bytes are over this is kept as its size, SHA-256 and first `maxHexBytes` bytes,
   * without `decoded`. Default 64 KiB (DEFAULT_MAX_MESSAGE_BYTES).
   */
  maxMessageBytes?: number;
  /** Entries kept; older ones are dropped (counted in `dropped`). Default 10000. */
  maxEntries?: number;
  /**
   * Memory the kept entries may take, estimated from what each keeps (hex, decoded message, note);
   * older entries are dropped past it, as past `maxEntries`. Default 32 MiB.
   */
  maxBytes?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** Characters of a note kept. */
const NOTE_CHARS = DEFAULT_MAX_MESSAGE_BYTES;

/** Estimated memory of one kept entry: its fixed part, its strings and its decoded message. */
function entryCost(entry: TranscriptEntry): number {
  const decoded = entry.decoded === undefined ? 0 : 3 * Math.max(entry.byteLength, 64);
  return 160 + (entry.hex?.length ?? 0) + 2 * (entry.note?.length ?? 0) + decoded;
}

/** `request tools/list id 3`, `response id 3`, `notification notifications/message`, `a batch of 4`. */
function summarise(decoded: unknown): string {
  if (Array.isArray(decoded)) return `a batch of ${decoded.length}`;
  const kind = classifyMessage(decoded);
  switch (kind.kind) {
    case 'request':
      return `request ${kind.method} id ${JSON.stringify(kind.id)}`;
    case 'notification':
      return `notification ${kind.method}`;
    case 'response':
      return `response id ${JSON.stringify(kind.id)}`;
    case 'invalid':
      return `not a JSON-RPC message (${kind.reason})`;
  }
}

/**
 * An entry as a transcript with these limits (default: the default ones) would have kept it, for an
 * entry recorded under looser limits (the proxy's record keeps everything for replay) before it goes
 * into a report: over the message limit, no `decoded` but a summary, and the SHA-256 when all the
 * bytes were kept as hex; hex cut to `maxHexBytes`.
 */
export function keptEntry(entry: TranscriptEntry, limits: Pick<TranscriptOptions, 'maxMessageBytes' | 'maxHexBytes'> = {}): TranscriptEntry {
  const maxMessageBytes = limits.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const maxHexChars = 2 * (limits.maxHexBytes ?? 4096);
  const oversized = entry.byteLength > maxMessageBytes;
  if (!oversized && (entry.hex?.length ?? 0) <= maxHexChars) return entry;
  const kept: TranscriptEntry = { ...entry };
  if (oversized) {
    if (entry.hex !== undefined && !entry.truncated && entry.sha256 === undefined) kept.sha256 = sha256Hex(Buffer.from(entry.hex, 'hex'));
    if (entry.decoded !== undefined) {
      delete kept.decoded;
      kept.summary = summarise(entry.decoded);
    }
  }
  if (entry.hex !== undefined && entry.hex.length > maxHexChars) {
    kept.hex = entry.hex.slice(0, maxHexChars);
    kept.truncated = true;
  }
  return kept;
}

export class Transcript {
  /** The ring: entries from `#start` on are kept; the ones before it wait to be compacted away. */
  #entries: TranscriptEntry[] = [];
  #start = 0;
  #bytes = 0;
  readonly #maxHexBytes: number;
  readonly #maxMessageBytes: number;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #seq = 0;
  #dropped = 0;

  constructor(options: TranscriptOptions = {}) {
    this.#maxHexBytes = options.maxHexBytes ?? 4096;
    this.#maxMessageBytes = checkMessageLimit(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, 'maxMessageBytes');
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.#now = options.now ?? Date.now;
  }

  /** The message limit this transcript keeps decoded messages within. */
  get maxMessageBytes(): number {
    return this.#maxMessageBytes;
  }

  record(record: TranscriptRecord): TranscriptEntry {
    const byteLength = record.byteLength ?? record.bytes?.byteLength ?? 0;
    const entry: TranscriptEntry = {
      seq: this.#seq++,
      at: this.#now(),
      direction: record.direction,
      channel: record.channel,
      byteLength,
    };
    const oversized = byteLength > this.#maxMessageBytes;
    if (record.bytes) {
      const kept = record.bytes.subarray(0, this.#maxHexBytes);
      entry.hex = Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString('hex');
      if (kept.byteLength < byteLength) entry.truncated = true;
      if (oversized) entry.sha256 = sha256Hex(record.bytes);
    }
    if (record.decoded !== undefined) {
      if (oversized) entry.summary = summarise(record.decoded);
      else entry.decoded = record.decoded;
    }
    if (record.error) entry.error = record.error;
    if (record.note) {
      // A note may quote the peer (a stderr line): it is held to a bound too.
      entry.note = record.note.length > NOTE_CHARS ? `${record.note.slice(0, NOTE_CHARS)}… (${record.note.length - NOTE_CHARS} more characters)` : record.note;
    }
    this.#entries.push(entry);
    this.#bytes += entryCost(entry);
    while (this.#entries.length - this.#start > 1 && (this.#entries.length - this.#start > this.#maxEntries || this.#bytes > this.#maxBytes)) {
      this.#bytes -= entryCost(this.#entries[this.#start]!);
      this.#start++;
      this.#dropped++;
    }
    // Compacted once half the array is dropped entries: O(1) per record on average.
    if (this.#start > 0 && this.#start * 2 >= this.#entries.length) this.#compact();
    return entry;
  }

  #compact(): void {
    this.#entries = this.#entries.slice(this.#start);
    this.#start = 0;
  }

  /** Records a lifecycle event with no bytes. */
  event(note: string): TranscriptEntry {
    return this.record({ direction: 'local', channel: { kind: 'session' }, note });
  }

  /** The kept entries, oldest first. */
  entries(): readonly TranscriptEntry[] {
    if (this.#start > 0) this.#compact();
    return this.#entries;
  }

  /** Entries dropped because the transcript was over `maxEntries` or `maxBytes`. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The last `count` entries (optionally only those matching `filter`). */
  excerpt(count: number, filter?: (entry: TranscriptEntry) => boolean): TranscriptEntry[] {
    const kept = this.entries();
    const chosen = filter ? kept.filter(filter) : kept;
    return chosen.slice(Math.max(0, chosen.length - count));
  }

  toNdjson(): string {
    return this.entries().map((entry) => JSON.stringify(entry, bigintReplacer)).join('\n') + '\n';
  }

  async writeNdjson(path: string): Promise<void> {
    await writeFile(path, this.toNdjson(), 'utf8');
  }

  /** Parses NDJSON written by `toNdjson` (for replay and tests). */
  static parseNdjson(text: string): TranscriptEntry[] {
    const entries: TranscriptEntry[] = [];
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        entries.push(JSON.parse(line) as TranscriptEntry);
      } catch (error) {
        // Numbered as in the file, blank lines included.
        throw new SyntaxError(`transcript line ${index + 1} is not JSON: ${(error as Error).message}`);
      }
    });
    return entries;
  }
}

function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
