// The @modelcontextprotocol/sdk `Transport` interface over an MCP Flow WebTransport session, so an
// SDK Client or Server runs over the binding unchanged. The adapter adds what the SDK does not know
// about: the client's offered encodings in `initialize` params, the server's `result.transport`
// (ServerTransportCapabilities) in the initialize result, and progress and log datagrams, which
// it hands to the SDK as the notifications they carry (WT-DGRAM-6).
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ConnectionClosedError, InvalidStateError } from '../errors.js';
import { connectWebTransport, type WebTransportClientOptions } from './client.js';
import type { WebTransportSessionConnection } from './session.js';

export interface SdkTransportOptions {
  /** Client role: encodings offered when the SDK's initialize has no `transport`. Default ["cbor", "json"]. */
  encodings?: string[];
}

/** Binding-level notifications the transport itself handles; the SDK never sees them. */
const TRANSPORT_METHODS = new Set(['$/shutdown']);

/** Datagram channels whose payloads are MCP notifications: progress (0x01) and log (0x03). */
const DATAGRAM_NOTIFICATIONS = new Map<number, string>([
  [0x01, 'notifications/progress'],
  [0x03, 'notifications/message'],
]);

export class WebTransportSdkTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly connection: WebTransportSessionConnection;
  readonly #encodings: string[];
  #initializeId: string | number | undefined;
  #started = false;
  #closeReported = false;

  constructor(connection: WebTransportSessionConnection, options: SdkTransportOptions = {}) {
    this.connection = connection;
    this.#encodings = options.encodings ?? ['cbor', 'json'];
  }

  async start(): Promise<void> {
    if (this.#started) throw new InvalidStateError('this WebTransportSdkTransport was already started');
    this.#started = true;
    void this.connection.closed.then(() => this.#reportClose());
    void this.#pump();
    void this.#pumpDatagrams();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    await this.connection.send(this.#complete(message));
  }

  async close(): Promise<void> {
    await this.connection.close('closed by the MCP SDK');
    this.#reportClose();
  }

  async #pump(): Promise<void> {
    for (;;) {
      let received;
      try {
        received = await this.connection.next();
      } catch (error) {
        if (!(error instanceof ConnectionClosedError)) this.onerror?.(error as Error);
        return;
      }
      const message = received.message as Record<string, unknown>;
      if (typeof message?.['method'] === 'string' && TRANSPORT_METHODS.has(message['method'])) continue;
      if (message?.['method'] === 'initialize' && (typeof message['id'] === 'number' || typeof message['id'] === 'string')) {
        this.#initializeId = message['id'];
      }
      try {
        this.onmessage?.(message as JSONRPCMessage);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  /** Progress and log datagrams as the notifications they carry (payload = params, or the whole notification). */
  async #pumpDatagrams(): Promise<void> {
    const facet = this.connection.webtransport;
    for (;;) {
      let datagram;
      try {
        datagram = await facet.nextDatagram((d) => DATAGRAM_NOTIFICATIONS.has(d.channel));
      } catch (error) {
        if (!(error instanceof ConnectionClosedError)) this.onerror?.(error as Error);
        return;
      }
      const payload = datagram.decoded;
      // A payload that did not decode to an object carries nothing the SDK could use.
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) continue;
      const record = payload as Record<string, unknown>;
      const message = typeof record['method'] === 'string' ? record : { jsonrpc: '2.0', method: DATAGRAM_NOTIFICATIONS.get(datagram.channel)!, params: record };
      try {
        this.onmessage?.(message as JSONRPCMessage);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  /** Fills in the binding's fields the SDK leaves out. */
  #complete(message: JSONRPCMessage): JSONRPCMessage {
    const record = message as Record<string, unknown>;
    if (this.connection.role === 'client' && record['method'] === 'initialize') {
      const params = (record['params'] ?? {}) as Record<string, unknown>;
      if (params['transport'] !== undefined) return message;
      return { ...record, params: { ...params, transport: { type: 'mcp-flow', version: '0.1', encodings: this.#encodings } } } as unknown as JSONRPCMessage;
    }
    if (this.connection.role === 'server' && this.#initializeId !== undefined && record['id'] === this.#initializeId && 'result' in record) {
      this.#initializeId = undefined;
      const result = record['result'] as Record<string, unknown>;
      if (result['transport'] !== undefined) return message;
      return { ...record, result: { ...result, transport: this.connection.negotiate() } } as unknown as JSONRPCMessage;
    }
    return message;
  }

  #reportClose(): void {
    if (this.#closeReported) return;
    this.#closeReported = true;
    this.onclose?.();
  }
}

/** Connects to `url` and wraps the session for an SDK Client. */
export async function connectSdkTransport(
  url: string,
  options: WebTransportClientOptions & SdkTransportOptions = {},
): Promise<WebTransportSdkTransport> {
  const connection = await connectWebTransport(url, options);
  return new WebTransportSdkTransport(connection, options);
}
