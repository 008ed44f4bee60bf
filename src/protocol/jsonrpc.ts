// The JSON-RPC 2.0 message model every layer speaks (002 §Message Types defers to JSON-RPC 2.0):
// the message types, guards that tell a request, a notification and a response apart, the key
// that keeps an id's JSON type, the error of an answer, and builders for each kind of message.
//
// The types are type aliases (not interfaces) so that a built message is a `Message` too.
// The guards sort messages; they do not judge them. A request here is any object with a string
// `method` and a string or number `id`; whether that id is one MCP allows (CORE-RPC-3) is
// `isRequestId`'s question, and whether a message is well-formed is the judge's (src/judge/).
import { isRecord } from '../wire/data-model.js';
import { isReadableId } from '../wire/request-id.js';

/** A request id MCP allows: a string or a number (an integer, CORE-RPC-3; never null). */
export type RequestId = string | number;

/** Any JSON-RPC object, before it is known what it is. */
export type Message = Record<string, unknown>;

export type JsonRpcRequest = {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Message;
};

export type JsonRpcNotification = {
  jsonrpc: '2.0';
  method: string;
  params?: Message;
};

export type JsonRpcErrorObject = {
  code: number;
  message: string;
  data?: unknown;
};

export type JsonRpcResult = {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
};

export type JsonRpcErrorResponse = {
  jsonrpc: '2.0';
  /** null only when the id of the request could not be read (JSON-RPC 2.0 §5). */
  id: RequestId | null;
  error: JsonRpcErrorObject;
};

export type JsonRpcResponse = JsonRpcResult | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

// ---- guards -------------------------------------------------------------------------------------

/** A valid MCP request id: a string or an integer (never null, never fractional) (CORE-RPC-3). */
export function isRequestId(value: unknown): value is RequestId {
  // The readable id every transport uses (src/wire/request-id.ts): one definition.
  return isReadableId(value);
}

/** A request (a string method and a string or number id), optionally of one method. */
export function isRequest(message: unknown, method?: string): message is Message & { id: RequestId; method: string } {
  return (
    isRecord(message) &&
    typeof message['method'] === 'string' &&
    (typeof message['id'] === 'string' || typeof message['id'] === 'number') &&
    (method === undefined || message['method'] === method)
  );
}

/** A notification (a string method and no id), optionally of one method. */
export function isNotification(message: unknown, method?: string): message is Message & { method: string } {
  return isRecord(message) && typeof message['method'] === 'string' && !('id' in message) && (method === undefined || message['method'] === method);
}

/** A response: no method, and a result or an error. */
export function isResponse(message: unknown): message is Message {
  return isRecord(message) && !('method' in message) && ('result' in message || 'error' in message);
}

/** The response to request `id` (the same id, of the same JSON type). */
export function isResponseTo(message: unknown, id: unknown): message is Message {
  return isResponse(message) && message['id'] === id;
}

/** The `error` object of an answer, when it is one. */
export function errorOf(message: unknown): { code?: unknown; message?: unknown; data?: unknown } | undefined {
  return isRecord(message) && isRecord(message['error']) ? message['error'] : undefined;
}

/** `params`, or {} when the message has none (or is not an object). */
export function paramsOf(message: unknown): Message {
  return isRecord(message) && isRecord(message['params']) ? message['params'] : {};
}

/**
 * A map key that keeps the JSON type of an id: the integer 1 and the string "1" are different
 * requests (CORE-RPC-5).
 */
export function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

// ---- builders -----------------------------------------------------------------------------------

export function request(id: RequestId, method: string, params?: Message): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function notification(method: string, params?: Message): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** A success response. `id` is whatever the request carried (a harness may echo an id on purpose). */
export function resultResponse(id: unknown, result: unknown): Message {
  return { jsonrpc: '2.0', id, result };
}

export function errorObject(code: number, message: string, data?: unknown): JsonRpcErrorObject {
  return data === undefined ? { code, message } : { code, message, data };
}

/** An error response; `id` null when the request's id could not be read. */
export function errorResponse(id: unknown, code: number, message: string, data?: unknown): Message {
  return { jsonrpc: '2.0', id, error: errorObject(code, message, data) };
}
