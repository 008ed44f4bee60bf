// JSON-RPC 2.0 helpers of the mock server: the envelope check and WebTransport's id range. The
// message model itself (ids, id keys, error objects) is src/protocol/jsonrpc.ts's.
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { errorObject, isRequestId, type JsonRpcErrorObject, type RequestId } from '../../../protocol/jsonrpc.js';
import { isRecord } from '../../../wire/data-model.js';
import { isU32 } from '../../../wire/exec-header.js';

export { isRecord };
export { errorObject, idKey, isRequestId, type JsonRpcErrorObject, type RequestId } from '../../../protocol/jsonrpc.js';

/** An id a WebTransport header can carry: an integer in 0..2^32-1 (WT-ID-1). */
export function isHeaderId(id: RequestId): id is number {
  return isU32(id);
}

/** What went wrong with a message, as the error it is answered with. */
export interface Malformed {
  /** The id to echo (null when it cannot be read, or when the readings send null for every Invalid Request). */
  id: RequestId | null;
  error: JsonRpcErrorObject;
  /** A malformed response (both or neither of result and error): it may go unanswered (CORE-RPC-9). */
  response?: true;
}

export interface EnvelopeOptions {
  /** Serve a request whose only flaw is a missing or wrong jsonrpc member (CORE-RPC-9, lenient reading). */
  lenientJsonrpc?: boolean;
  /** Answer every Invalid Request with id null, even when the id can be read (CORE-RPC-9, JSON-RPC §5). */
  nullIds?: boolean;
}

/**
 * Checks the JSON-RPC envelope of one message (not its params): returns a Malformed answer for
 * an invalid message (CORE-RPC-2, -3, -9), undefined for a well-formed request, notification or response.
 */
export function checkEnvelope(message: unknown, options: EnvelopeOptions = {}): Malformed | undefined {
  if (!isRecord(message)) {
    return { id: null, error: errorObject(JSONRPC_ERROR.InvalidRequest, 'Invalid Request: a JSON-RPC message is an object') };
  }
  const hasId = 'id' in message;
  const readableId = hasId && isRequestId(message['id']) ? (message['id'] as RequestId) : null;
  if (hasId && readableId === null) {
    return {
      id: null,
      error: errorObject(JSONRPC_ERROR.InvalidRequest, `Invalid Request: id must be a string or an integer, got ${JSON.stringify(message['id'])}`),
    };
  }
  const echo = options.nullIds ? null : readableId;
  if (message['jsonrpc'] !== '2.0' && !options.lenientJsonrpc) {
    return {
      id: echo,
      error: errorObject(JSONRPC_ERROR.InvalidRequest, `Invalid Request: jsonrpc must be "2.0", got ${JSON.stringify(message['jsonrpc'])}`),
    };
  }
  if (!('method' in message)) {
    const result = 'result' in message;
    const error = 'error' in message;
    if (result !== error) return undefined;
    if (!result && !hasId) return { id: null, error: errorObject(JSONRPC_ERROR.InvalidRequest, 'Invalid Request: a message has a method, or is a response with result or error') };
    const what = result ? 'a response has either result or error, not both' : 'a message with an id has a method (a request) or result/error (a response)';
    // Its id names a request of ours, not of the peer's: an error carrying it would answer a request nobody sent.
    return { id: null, error: errorObject(JSONRPC_ERROR.InvalidRequest, `Invalid Request: ${what}`), response: true };
  }
  if (typeof message['method'] !== 'string') {
    return { id: echo, error: errorObject(JSONRPC_ERROR.InvalidRequest, 'Invalid Request: method must be a string') };
  }
  if ('params' in message && (typeof message['params'] !== 'object' || message['params'] === null)) {
    return { id: echo, error: errorObject(JSONRPC_ERROR.InvalidRequest, 'Invalid Request: params must be an object') };
  }
  return undefined;
}
