// A connection's transcript: every byte sent and received, in order, with what it decoded to.
// Transcripts attach to failing checks and serialise as NDJSON (one entry per line).
import { writeFile } from 'node:fs/promises';

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
  /** The decoded message, when the bytes decoded to one. */
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
  /** Entries kept; older ones are dropped (counted in `dropped`). Default 100000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export class Transcript {
  readonly #entries: TranscriptEntry[] = [];
  readonly #maxHexBytes: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  #seq = 0;
  #dropped = 0;

  constructor(options: TranscriptOptions = {}) {
    this.#maxHexBytes = options.maxHexBytes ?? 4096;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
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
    if (record.bytes) {
      const kept = record.bytes.subarray(0, this.#maxHexBytes);
      entry.hex = Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString('hex');
      if (kept.byteLength < byteLength) entry.truncated = true;
    }
    if (record.decoded !== undefined) entry.decoded = record.decoded;
    if (record.error) entry.error = record.error;
    if (record.note) entry.note = record.note;
    this.#entries.push(entry);
    if (this.#entries.length > this.#maxEntries) {
      this.#entries.shift();
      this.#dropped++;
    }
    return entry;
  }

  /** Records a lifecycle event with no bytes. */
  event(note: string): TranscriptEntry {
    return this.record({ direction: 'local', channel: { kind: 'session' }, note });
  }

  entries(): readonly TranscriptEntry[] {
    return this.#entries;
  }

  /** Entries dropped because the transcript was over `maxEntries`. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The last `count` entries (optionally only those matching `filter`). */
  excerpt(count: number, filter?: (entry: TranscriptEntry) => boolean): TranscriptEntry[] {
    const chosen = filter ? this.#entries.filter(filter) : this.#entries;
    return chosen.slice(Math.max(0, chosen.length - count));
  }

  toNdjson(): string {
    return this.#entries.map((entry) => JSON.stringify(entry, bigintReplacer)).join('\n') + '\n';
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
