// The mock client's readable frame log (`--log`): one line per transcript entry, so every byte
// the client sends or receives shows up, raw and undecodable frames included. Control messages are
// shown decoded (CBOR as JSON) with their encoding; stream payloads and datagrams by size.
import { Transcript, type TranscriptChannel, type TranscriptEntry, type TranscriptOptions, type TranscriptRecord } from '../../transport/transcript.js';

/**
 * A transcript that tells a watcher of every entry as it is recorded: the client learns at once of
 * what its session saw on its own (a frame refused, a datagram dropped: binding-faults.ts).
 */
export class ObservedTranscript extends Transcript {
  readonly #watchers = new Set<(entry: TranscriptEntry) => void>();

  /** Calls `watcher` with every entry recorded from now on. */
  watch(watcher: (entry: TranscriptEntry) => void): void {
    this.#watchers.add(watcher);
  }

  override record(record: TranscriptRecord): TranscriptEntry {
    const entry = super.record(record);
    for (const watcher of this.#watchers) watcher(entry);
    return entry;
  }
}

/** A transcript that also writes each entry as a log line. */
export class FrameLogTranscript extends ObservedTranscript {
  constructor(log: (line: string) => void, options?: TranscriptOptions) {
    super(options);
    this.watch((entry) => log(describeEntry(entry)));
  }
}

const ARROW = { sent: '->', received: '<-', local: '··' } as const;

/** One readable line for a transcript entry. */
export function describeEntry(entry: TranscriptEntry): string {
  const time = new Date(entry.at).toISOString().slice(11, 23);
  const parts = [time, ARROW[entry.direction], describeChannel(entry.channel)];
  const encoding = encodingOf(entry);
  if (encoding) parts.push(`[${encoding}]`);
  if (entry.decoded !== undefined) {
    parts.push(describeMessage(entry.decoded), toJson(entry.decoded));
  } else if (entry.byteLength > 0) {
    parts.push(`${entry.byteLength} bytes${entry.hex && entry.channel.kind !== 'stream' ? ` ${entry.hex.slice(0, 64)}${entry.hex.length > 64 || entry.truncated ? '…' : ''}` : ''}`);
  }
  if (entry.error) parts.push(`error ${entry.error.code}: ${entry.error.message}`);
  if (entry.note && entry.note !== encoding) parts.push(`(${entry.note})`);
  return parts.join(' ');
}

function describeChannel(channel: TranscriptChannel): string {
  switch (channel.kind) {
    case 'control':
      return 'control';
    case 'stream':
      return `stream ${channel.streamId}${channel.header ? ` (request ${channel.header.requestId}, tag ${channel.header.streamTag})` : ''}`;
    case 'datagram':
      return `datagram ch ${channel.channel}${channel.requestId !== undefined ? ` request ${channel.requestId}` : ''}`;
    case 'http':
      return `http ${channel.method ?? ''}${channel.status !== undefined ? ` ${channel.status}` : ''}`.trimEnd();
    case 'stdio':
      return channel.fd;
    case 'session':
      return 'session';
  }
}

/** The encoding of a control frame: noted on received frames, read from the first body byte of sent ones. */
function encodingOf(entry: TranscriptEntry): 'json' | 'cbor' | undefined {
  if (entry.channel.kind === 'http' || entry.channel.kind === 'stdio') return entry.decoded !== undefined ? 'json' : undefined;
  if (entry.channel.kind !== 'control') return undefined;
  if (entry.note === 'json' || entry.note === 'cbor') return entry.note;
  const first = entry.hex?.slice(8, 10);
  if (first === undefined || first === '') return undefined;
  return first === '7b' || first === '5b' ? 'json' : 'cbor';
}

/** What a JSON-RPC message is: request (method, id), notification, response or error. */
export function describeMessage(message: unknown): string {
  if (Array.isArray(message)) return `batch of ${message.length}`;
  if (typeof message !== 'object' || message === null) return 'not a message';
  const m = message as Record<string, unknown>;
  if (typeof m['method'] === 'string') return 'id' in m ? `request ${m['method']} id=${toJson(m['id'])}` : `notification ${m['method']}`;
  if ('result' in m) return `response id=${toJson(m['id'])}`;
  if ('error' in m) return `error id=${toJson(m['id'])}`;
  return 'message';
}

function toJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, item: unknown) =>
        typeof item === 'bigint' ? `${item}n` : item instanceof Uint8Array ? `<${item.byteLength} bytes>` : item,
      ) ?? String(value)
    );
  } catch {
    return String(value);
  }
}
