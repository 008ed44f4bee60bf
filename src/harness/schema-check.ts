// Judges every JSON-RPC message a case's transcript holds, in either direction, by the schemas
// (src/schema/findings.ts): each message by the schema for its method and direction (a message of
// the target under test by a schema for the target's side), the negotiated protocol version
// narrowing the candidates, and each response by the result schema of the request it answers
// (matched by id, in the other direction).
import { isProtocolVersion } from '../protocol/methods.js';
import { judgeMessage, type MessageDirection, type RequirementLookup, type SchemaFinding, type SchemaRegistry } from '../schema/index.js';
import type { TranscriptEntry } from '../transport/transcript.js';
import { isRecord } from '../wire/index.js';

export { REF_STREAM_SCHEMA } from '../schema/index.js';

export interface TranscriptFinding extends SchemaFinding {
  /** Who sent the message: the harness (`sent`) or the target (`received`). */
  direction: 'sent' | 'received';
  /** Transcript position of the message. */
  seq: number;
  message: unknown;
}

/** The JSON-RPC messages of one transcript entry (a batch counts as its members). */
function messagesOf(entry: TranscriptEntry): Record<string, unknown>[] {
  if (entry.direction === 'local' || entry.decoded === undefined) return [];
  if (entry.channel.kind === 'datagram' || entry.channel.kind === 'stream') return [];
  const items = Array.isArray(entry.decoded) ? entry.decoded : [entry.decoded];
  return items.filter((item): item is Record<string, unknown> => isRecord(item) && 'jsonrpc' in item);
}

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;

/**
 * Walks the entries in order and returns what the schemas find in each message: shapes broken
 * (violations) and members the documents do not name (extra members). Messages no schema
 * describes (unknown methods, answers to requests nobody saw) give nothing: the cases decide what
 * an unknown method deserves.
 */
export function validateTranscript(
  registry: SchemaRegistry,
  catalog: RequirementLookup,
  entries: readonly TranscriptEntry[],
  options: {
    directions?: readonly ('sent' | 'received')[];
    protocolVersion?: string;
    /** What the target under test is (default 'server'): its messages are `received`. */
    targetRole?: 'server' | 'client';
    /** The transcript is of a WebTransport session: the binding's extensions of core messages apply. */
    webTransport?: boolean;
  } = {},
): TranscriptFinding[] {
  const directions = new Set(options.directions ?? ['sent', 'received']);
  const targetIsServer = (options.targetRole ?? 'server') === 'server';
  const flow = (direction: 'sent' | 'received'): MessageDirection =>
    (direction === 'received') === targetIsServer ? 'server-to-client' : 'client-to-server';
  /** Requests by id, per direction: the method, and whether the request asked for a task (2025-11-25). */
  const requested = { sent: new Map<string, { method: string; task: boolean }>(), received: new Map<string, { method: string; task: boolean }>() };
  let protocolVersion = options.protocolVersion;
  /** The version the latest initialize request asked for (judges an initialize result that names none). */
  let askedVersion: string | undefined;
  const findings: TranscriptFinding[] = [];
  for (const entry of entries) {
    const direction = entry.direction as 'sent' | 'received';
    for (const message of messagesOf(entry)) {
      let requestMethod: string | undefined;
      let taskRequested: boolean | undefined;
      let versionForMessage = protocolVersion;
      if (typeof message.method === 'string') {
        if ('id' in message) requested[direction].set(idKey(message.id), { method: message.method, task: isRecord(message.params) && 'task' in message.params });
        if (message.method === 'initialize' && versionForMessage === undefined) {
          const asked = isRecord(message.params) ? message.params.protocolVersion : undefined;
          if (isProtocolVersion(asked)) versionForMessage = askedVersion = asked;
        }
      } else if ('id' in message) {
        // A response answers a request that went the other way.
        const other = direction === 'sent' ? 'received' : 'sent';
        const request = requested[other].get(idKey(message.id));
        requestMethod = request?.method;
        taskRequested = request?.task;
        if (requestMethod === 'initialize' && isRecord(message.result)) {
          if (isProtocolVersion(message.result.protocolVersion)) protocolVersion = message.result.protocolVersion;
          versionForMessage = protocolVersion ?? askedVersion;
        }
      }
      if (!directions.has(direction)) continue;
      const { findings: found } = judgeMessage(registry, catalog, message, {
        direction: flow(direction),
        ...(versionForMessage !== undefined ? { protocolVersion: versionForMessage } : {}),
        ...(requestMethod !== undefined ? { requestMethod } : {}),
        ...(taskRequested !== undefined ? { taskRequested } : {}),
        // The harness's own initialize may leave the binding's transport member out on purpose.
        ...(options.webTransport ? { webTransport: true, bindingExtensions: direction === 'received' } : {}),
      });
      for (const finding of found) findings.push({ ...finding, direction, seq: entry.seq, message });
    }
  }
  return findings;
}
