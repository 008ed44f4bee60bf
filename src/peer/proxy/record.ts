// The proxy record (`--record file.ndjson`): one Transcript (NDJSON, one TranscriptEntry per line)
// of every proxied session, seen from the client side of the upstream: `sent` entries are what the
// client sent to the server, `received` what the server sent back, `local` entries are session
// starts and ends and the violations found. Every entry's `note` starts with `session <n>`, so
// sessions that ran at the same time can be told apart.
import { readFile } from 'node:fs/promises';
import type { ReceivedMessage } from '../../transport/connection.js';
import { Transcript, type TranscriptEntry } from '../../transport/transcript.js';
import { RecordFileError } from './errors.js';
import type { Flow, Violation } from './violation.js';

const SESSION_NOTE = /^session (\d+)\b/;

export class ProxyRecord {
  readonly transcript: Transcript;

  constructor() {
    // Keep every entry and every message: a record is read back for replay.
    this.transcript = new Transcript({
      maxEntries: Number.MAX_SAFE_INTEGER,
      maxBytes: Number.POSITIVE_INFINITY,
      maxMessageBytes: Number.POSITIVE_INFINITY,
      maxHexBytes: 1 << 20,
    });
  }

  /** Records one forwarded message; returns its position (seq). */
  message(session: number, direction: Flow, received: ReceivedMessage): number {
    const entry = this.transcript.record({
      direction: direction === 'client-to-server' ? 'sent' : 'received',
      channel: received.channel,
      ...(received.body ? { bytes: received.body } : {}),
      decoded: received.message,
      note: `session ${session}${received.encoding ? ` ${received.encoding}` : ''}`,
    });
    return entry.seq;
  }

  /** Records a datagram or execution stream forwarded (bytes counted, payload kept as hex). */
  passthrough(session: number, direction: Flow, channel: TranscriptEntry['channel'], bytes: Uint8Array | undefined, byteLength: number, what: string): number {
    return this.transcript.record({
      direction: direction === 'client-to-server' ? 'sent' : 'received',
      channel,
      ...(bytes ? { bytes } : {}),
      byteLength,
      note: `session ${session} ${what}`,
    }).seq;
  }

  event(session: number, note: string): number {
    return this.transcript.event(`session ${session} ${note}`).seq;
  }

  violation(violation: Violation): void {
    this.transcript.record({
      direction: 'local',
      channel: { kind: 'session' },
      note: `session ${violation.session} violation ${violation.requirement} (${violation.direction} ${violation.subject}, #${violation.seq}): ${violation.message}`,
    });
  }

  /** The entries of one session (for report excerpts). */
  entriesOf(session: number): TranscriptEntry[] {
    return this.transcript.entries().filter((entry) => sessionOf(entry) === session);
  }
}

/** The session number an entry belongs to, from its note. */
export function sessionOf(entry: TranscriptEntry): number | undefined {
  const match = entry.note === undefined ? null : SESSION_NOTE.exec(entry.note);
  return match ? Number(match[1]) : undefined;
}

/** One recorded session: the client's messages and the server's, in order. */
export interface RecordedSession {
  session: number;
  entries: TranscriptEntry[];
}

/**
 * Reads a record file into its sessions (in order of their first entry). Throws RecordFileError
 * naming the file and, for a line that is not a transcript entry, its line number.
 */
export async function readRecordFile(file: string): Promise<RecordedSession[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RecordFileError(file, `cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, undefined, { cause: error });
  }
  return parseRecord(text, file);
}

/** Parses record text (see readRecordFile). */
export function parseRecord(text: string, file = '(record)'): RecordedSession[] {
  const sessions = new Map<number, RecordedSession>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const lineNumber = index + 1;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      throw new RecordFileError(file, `not JSON (${(error as Error).message})`, lineNumber, { cause: error });
    }
    const problem = entryProblem(entry);
    if (problem !== undefined) throw new RecordFileError(file, `not a transcript entry: ${problem}`, lineNumber);
    const typed = entry as TranscriptEntry;
    const session = sessionOf(typed);
    if (session === undefined) {
      if (typed.direction === 'local') return;
      throw new RecordFileError(file, 'a message entry whose note does not name its session ("session <n> ...")', lineNumber);
    }
    let recorded = sessions.get(session);
    if (!recorded) sessions.set(session, (recorded = { session, entries: [] }));
    recorded.entries.push(typed);
  });
  if (sessions.size === 0) throw new RecordFileError(file, 'holds no proxied session');
  return [...sessions.values()];
}

function entryProblem(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return 'not an object';
  const record = entry as Record<string, unknown>;
  if (typeof record['seq'] !== 'number') return 'no numeric "seq"';
  if (record['direction'] !== 'sent' && record['direction'] !== 'received' && record['direction'] !== 'local') {
    return `"direction" is ${JSON.stringify(record['direction'])}, not "sent", "received" or "local"`;
  }
  if (typeof record['channel'] !== 'object' || record['channel'] === null) return 'no "channel" object';
  return undefined;
}
