// Decoding JSON-RPC bodies received over HTTP: bytes -> JSON value, with the JSON-RPC error code a
// receiver answers with when they do not decode, and how each message of a body is classified.

export { decodeJsonBody, type BodyDecodeFailure, type BodyDecodeResult } from '../json-message.js';

export type JsonRpcId = string | number | null;

/** What one item of a body is, by JSON-RPC 2.0 shape (not by schema). */
export type MessageKind =
  | { kind: 'request'; id: JsonRpcId; method: string }
  | { kind: 'notification'; method: string }
  | { kind: 'response'; id: JsonRpcId }
  | { kind: 'invalid'; id: JsonRpcId; reason: string };

export function classifyMessage(value: unknown): MessageKind {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', id: null, reason: 'a JSON-RPC message must be an object' };
  }
  const message = value as Record<string, unknown>;
  const id = message.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) || id === null;
  const safeId: JsonRpcId = validId ? (id as JsonRpcId) : null;
  if (message.jsonrpc !== '2.0') return { kind: 'invalid', id: safeId, reason: 'jsonrpc must be "2.0"' };
  if ('method' in message) {
    if (typeof message.method !== 'string') return { kind: 'invalid', id: safeId, reason: 'method must be a string' };
    if (!('id' in message)) return { kind: 'notification', method: message.method };
    if (!validId) return { kind: 'invalid', id: null, reason: 'id must be a string, a number or null' };
    return { kind: 'request', id: safeId, method: message.method };
  }
  if ('result' in message || 'error' in message) {
    if (!validId) return { kind: 'invalid', id: null, reason: 'id must be a string, a number or null' };
    return { kind: 'response', id: safeId };
  }
  return { kind: 'invalid', id: safeId, reason: 'neither a request, a notification nor a response' };
}

/** A JSON-RPC error response object. */
export function jsonRpcError(id: JsonRpcId, code: number, message: string, data?: unknown): Record<string, unknown> {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}

/** The id of a response message, when `value` is one (has `result` or `error`). */
export function responseId(value: unknown): JsonRpcId | undefined {
  const kind = classifyMessage(value);
  return kind.kind === 'response' ? kind.id : undefined;
}
