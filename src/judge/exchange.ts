// The context each message of one conversation is judged in, for every observer alike (a run's
// transcript, the proxy's live sessions): which way it went, the protocol version the initialize
// exchange settled on, and for a response the request it answers (matched by id, of the same
// JSON type, among the requests that went the other way) and whether that request asked for a
// task (2025-11-25).
import { idKey } from '../protocol/jsonrpc.js';
import { isProtocolVersion } from '../protocol/methods.js';
import { isRecord } from '../wire/index.js';
import type { MessageContext, MessageDirection } from './schema.js';

interface Requested {
  method: string;
  task: boolean;
}

const other = (direction: MessageDirection): MessageDirection => (direction === 'client-to-server' ? 'server-to-client' : 'client-to-server');

export class Exchange {
  /** Requests by id, per direction they went. */
  readonly #requested: Record<MessageDirection, Map<string, Requested>> = { 'client-to-server': new Map(), 'server-to-client': new Map() };
  /** The version the initialize result named (or the one given at the start). */
  #protocolVersion: string | undefined;
  /** The version the latest initialize request asked for (judges an initialize result that names none). */
  #askedVersion: string | undefined;

  constructor(options: { protocolVersion?: string } = {}) {
    this.#protocolVersion = options.protocolVersion;
  }

  /** The protocol version the initialize exchange settled on, once known. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /**
   * Notes one message going `direction` and returns the context the schemas judge it in:
   * undefined for what is not a JSON-RPC object (no `jsonrpc` member), which no schema judges.
   * Before the initialize result only the initialize request and its result are judged by the
   * version the request asked for; other messages by no version (any version's schema).
   */
  context(direction: MessageDirection, message: unknown): MessageContext | undefined {
    if (!isRecord(message) || !('jsonrpc' in message)) return undefined;
    let protocolVersion = this.#protocolVersion;
    let requestMethod: string | undefined;
    let taskRequested: boolean | undefined;
    if (typeof message['method'] === 'string') {
      if ('id' in message) {
        this.#requested[direction].set(idKey(message['id']), { method: message['method'], task: isRecord(message['params']) && 'task' in message['params'] });
      }
      if (message['method'] === 'initialize' && protocolVersion === undefined) {
        const asked = isRecord(message['params']) ? message['params']['protocolVersion'] : undefined;
        if (isProtocolVersion(asked)) protocolVersion = this.#askedVersion = asked;
      }
    } else if ('id' in message) {
      const request = this.#requested[other(direction)].get(idKey(message['id']));
      requestMethod = request?.method;
      taskRequested = request?.task;
      if (requestMethod === 'initialize' && isRecord(message['result'])) {
        if (isProtocolVersion(message['result']['protocolVersion'])) this.#protocolVersion = message['result']['protocolVersion'];
        protocolVersion = this.#protocolVersion ?? this.#askedVersion;
      }
    }
    return {
      direction,
      ...(protocolVersion !== undefined ? { protocolVersion } : {}),
      ...(requestMethod !== undefined ? { requestMethod } : {}),
      ...(taskRequested !== undefined ? { taskRequested } : {}),
    };
  }
}
