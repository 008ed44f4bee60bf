// Validates every JSON-RPC message a case's transcript holds, in either direction, against the
// schemas: the negotiated protocol version narrows the candidates and each response is matched
// to the request it answers (by id, in the other direction) so its result schema is the right one.
import { isProtocolVersion } from '../protocol/methods.js';
import type { SchemaRegistry, ValidationIssue } from '../schema/registry.js';
import type { TranscriptEntry } from '../transport/transcript.js';
import { isRecord } from '../wire/index.js';

export interface SchemaViolation {
  direction: 'sent' | 'received';
  /** Transcript position of the message. */
  seq: number;
  message: unknown;
  /** The schema the message came closest to, as a path below schemas/. */
  schema: string;
  /** Requirement IDs the schema annotates. */
  requirements: string[];
  issues: ValidationIssue[];
  /** JSON pointer of the first issue inside the message. */
  pointer: string;
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
 * Walks the entries in order and returns the messages that break their best-matching schema.
 * Messages no schema describes (unknown methods, responses to unknown ids with no fitting schema)
 * are not violations here: the cases decide what an unknown method deserves.
 */
export function validateTranscript(
  registry: SchemaRegistry,
  entries: readonly TranscriptEntry[],
  options: { directions?: readonly ('sent' | 'received')[]; protocolVersion?: string } = {},
): SchemaViolation[] {
  const directions = new Set(options.directions ?? ['sent', 'received']);
  const requested = { sent: new Map<string, string>(), received: new Map<string, string>() };
  let protocolVersion = options.protocolVersion;
  /** The version the latest initialize request asked for (judges an initialize result that names none). */
  let askedVersion: string | undefined;
  const violations: SchemaViolation[] = [];
  for (const entry of entries) {
    const direction = entry.direction as 'sent' | 'received';
    for (const message of messagesOf(entry)) {
      let requestMethod: string | undefined;
      let versionForMessage = protocolVersion;
      if (typeof message.method === 'string') {
        if ('id' in message) requested[direction].set(idKey(message.id), message.method);
        if (message.method === 'initialize' && versionForMessage === undefined) {
          const asked = isRecord(message.params) ? message.params.protocolVersion : undefined;
          if (isProtocolVersion(asked)) versionForMessage = askedVersion = asked;
        }
      } else if ('id' in message) {
        // A response answers a request that went the other way.
        const other = direction === 'sent' ? 'received' : 'sent';
        requestMethod = requested[other].get(idKey(message.id));
        if (requestMethod === 'initialize' && isRecord(message.result)) {
          if (isProtocolVersion(message.result.protocolVersion)) protocolVersion = message.result.protocolVersion;
          versionForMessage = protocolVersion ?? askedVersion;
        }
      }
      if (!directions.has(direction)) continue;
      const candidates = registry.identify(message, {
        ...(versionForMessage !== undefined ? { protocolVersion: versionForMessage } : {}),
        ...(requestMethod !== undefined ? { requestMethod } : {}),
      });
      const best = candidates[0];
      if (!best || best.issues.length === 0) continue;
      violations.push({
        direction,
        seq: entry.seq,
        message,
        schema: best.schema.file,
        requirements: [...(best.schema.meta.requirements ?? [])],
        issues: best.issues,
        pointer: best.issues[0]?.instancePath ?? '',
      });
    }
  }
  return violations;
}
