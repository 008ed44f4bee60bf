// The encoding in force on one control stream (seed 001 section 3): JSON for `initialize` and its
// result, then the negotiated encoding for every later message, switched at that exact boundary.
import { type EncodingName, isEncodingName } from './codec.js';
import { EncodingAlreadyNegotiatedError, UnknownEncodingError } from './errors.js';
import { isRecord } from './data-model.js';

export type JsonRpcId = string | number;

export class EncodingState {
  #current: EncodingName = 'json';
  #negotiated = false;
  #initializeRequestId: JsonRpcId | undefined;

  get current(): EncodingName {
    return this.#current;
  }

  /** True once the initialize result has been sent (server) or received (client). */
  get negotiated(): boolean {
    return this.#negotiated;
  }

  /** The id of the `initialize` request seen on this stream (written by a client, read by a server). */
  get initializeRequestId(): JsonRpcId | undefined {
    return this.#initializeRequestId;
  }

  /** Records the `initialize` request id, so the matching result can be recognised. */
  noteInitializeRequest(id: JsonRpcId): void {
    if (!this.#negotiated) this.#initializeRequestId = id;
  }

  /** Switches to the negotiated encoding. Repeating the same switch is a no-op; a different one throws. */
  switchTo(name: EncodingName): void {
    if (!isEncodingName(name)) throw new UnknownEncodingError(name);
    if (this.#negotiated) {
      if (name !== this.#current) throw new EncodingAlreadyNegotiatedError(this.#current, name);
      return;
    }
    this.#current = name;
    this.#negotiated = true;
  }
}

/** The id of a JSON-RPC request named `initialize`, or undefined for any other message. */
export function initializeRequestId(message: unknown): JsonRpcId | undefined {
  if (!isRecord(message) || message['method'] !== 'initialize') return undefined;
  const id = message['id'];
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * If `message` is the success response to the initialize request, the encoding it selects
 * (`result.transport.encoding`; "json" when the result names none, the server default), else undefined.
 * When the initialize request id is unknown, only a result that names a known encoding counts.
 */
export function negotiatedEncoding(message: unknown, initializeId: JsonRpcId | undefined): EncodingName | undefined {
  if (!isRecord(message) || !('result' in message) || 'method' in message) return undefined;
  const result = message['result'];
  if (!isRecord(result)) return undefined;
  const transport = result['transport'];
  const encoding = isRecord(transport) ? transport['encoding'] : undefined;
  if (initializeId === undefined) return isEncodingName(encoding) ? encoding : undefined;
  if (message['id'] !== initializeId) return undefined;
  if (encoding === undefined) return 'json';
  return isEncodingName(encoding) ? encoding : undefined;
}
