// What the schemas find in every JSON-RPC message of one transcript, in either direction: each
// message judged in its context (src/judge/exchange.ts), a message of the peer under test by a
// schema for that peer's side.
import type { RequirementLookup } from './place.js';
import type { SchemaRegistry } from '../schema/registry.js';
import type { TranscriptEntry } from '../transport/transcript.js';
import { isRecord } from '../wire/index.js';
import { Exchange } from './exchange.js';
import { judgeMessage, type MessageDirection, type SchemaFinding } from './schema.js';

export interface TranscriptFinding extends SchemaFinding {
  /** Who sent the message: the harness (`sent`) or the peer under test (`received`). */
  direction: 'sent' | 'received';
  /** Transcript position of the message. */
  seq: number;
  message: unknown;
}

export interface TranscriptOptions {
  /** The directions whose messages are judged (default both); the other's still give context. */
  directions?: readonly ('sent' | 'received')[];
  protocolVersion?: string;
  /** What the peer under test is (default 'server'): its messages are `received`. */
  targetRole?: 'server' | 'client';
  /** The transcript is of a WebTransport session: the binding's extensions of core messages apply. */
  webTransport?: boolean;
}

/** The JSON-RPC messages of one transcript entry (a batch counts as its members). */
export function messagesOf(entry: TranscriptEntry): unknown[] {
  if (entry.direction === 'local' || entry.decoded === undefined) return [];
  if (entry.channel.kind === 'datagram' || entry.channel.kind === 'stream') return [];
  return Array.isArray(entry.decoded) ? entry.decoded : [entry.decoded];
}

/**
 * Walks the entries in order and returns what the schemas find in each message: shapes broken
 * (violations) and members the documents do not name (extra members). Messages no schema
 * describes (unknown methods, answers to requests nobody saw) give nothing: the cases decide what
 * an unknown method deserves. The binding's extensions of core messages are judged on the peer's
 * messages only (a harness may leave the initialize `transport` member out on purpose).
 */
export function judgeTranscript(registry: SchemaRegistry, catalog: RequirementLookup, entries: readonly TranscriptEntry[], options: TranscriptOptions = {}): TranscriptFinding[] {
  const directions = new Set(options.directions ?? ['sent', 'received']);
  const targetIsServer = (options.targetRole ?? 'server') === 'server';
  const flow = (direction: 'sent' | 'received'): MessageDirection => ((direction === 'received') === targetIsServer ? 'server-to-client' : 'client-to-server');
  const exchange = new Exchange(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {});
  const findings: TranscriptFinding[] = [];
  for (const entry of entries) {
    const direction = entry.direction as 'sent' | 'received';
    for (const message of messagesOf(entry)) {
      const context = exchange.context(flow(direction), message);
      if (context === undefined || !directions.has(direction) || !isRecord(message)) continue;
      const judged = judgeMessage(registry, catalog, message, { ...context, ...(options.webTransport ? { webTransport: true, bindingExtensions: direction === 'received' } : {}) });
      for (const finding of judged.findings) findings.push({ ...finding, direction, seq: entry.seq, message });
    }
  }
  return findings;
}
