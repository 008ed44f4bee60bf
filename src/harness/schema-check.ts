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

/** The WebTransport binding's tool-result content item pointing at an execution stream (001 §5, WT-EXEC-4). */
export const REF_STREAM_SCHEMA = 'binding/ref-stream.payload.schema.json';

/**
 * On WebTransport a tools/call result may carry `ref/stream` content items, which the core result
 * schema does not know: each is validated against the binding's own schema, and the core schema
 * sees the rest of the message (the item replaced by an empty text item).
 */
function splitBindingContent(
  registry: SchemaRegistry,
  message: Record<string, unknown>,
): { core: Record<string, unknown>; items: { pointer: string; issues: ValidationIssue[]; index: number }[] } {
  const result = message.result;
  if (!isRecord(result) || !Array.isArray(result.content)) return { core: message, items: [] };
  const content = result.content as unknown[];
  if (!content.some((item) => isRecord(item) && item.type === 'ref/stream')) return { core: message, items: [] };
  const items: { pointer: string; issues: ValidationIssue[]; index: number }[] = [];
  const replaced = content.map((item, index) => {
    if (!isRecord(item) || item.type !== 'ref/stream') return item;
    const issues = registry.validate(REF_STREAM_SCHEMA, item).map((issue) => ({ ...issue, instancePath: `/result/content/${index}${issue.instancePath}` }));
    if (issues.length > 0) items.push({ pointer: issues[0]!.instancePath, issues, index });
    return { type: 'text', text: '' };
  });
  return { core: { ...message, result: { ...result, content: replaced } }, items };
}

/**
 * Walks the entries in order and returns the messages that break their best-matching schema.
 * Messages no schema describes (unknown methods, responses to unknown ids with no fitting schema)
 * are not violations here: the cases decide what an unknown method deserves.
 */
export function validateTranscript(
  registry: SchemaRegistry,
  entries: readonly TranscriptEntry[],
  options: {
    directions?: readonly ('sent' | 'received')[];
    protocolVersion?: string;
    /** The transcript is of a WebTransport session: binding content items are allowed where the binding puts them. */
    webTransport?: boolean;
  } = {},
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
      let judged = message;
      if (options.webTransport && requestMethod === 'tools/call') {
        const split = splitBindingContent(registry, message);
        judged = split.core;
        const itemSchema = split.items.length > 0 ? registry.get(REF_STREAM_SCHEMA) : undefined;
        for (const item of split.items) {
          violations.push({
            direction,
            seq: entry.seq,
            message,
            schema: itemSchema!.file,
            requirements: [...(itemSchema!.meta.requirements ?? [])],
            issues: item.issues,
            pointer: item.pointer,
          });
        }
      }
      const candidates = registry.identify(judged, {
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
