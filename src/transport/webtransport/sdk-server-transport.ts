// An official @modelcontextprotocol/sdk `Server` or `McpServer` serving MCP over the MCP Flow
// WebTransport binding. The server-role session connection already enforces the binding's framing,
// encodings and the 001 §1 state machine, with the binding's admission rules attached through its
// hooks (`hooks`); the SDK adapter (sdk-transport.ts) fills in `result.transport` from them. What
// is left is the binding's own cancellation, which the SDK does not know: `$/cancel` (001 §4,
// WT-CANCEL-1..4) aborts the work as MCP's `notifications/cancelled` does, but the cancelled
// request is still answered, with an error. `listenSdkServer` puts it together: a
// WebTransport listener that gives each session a fresh SDK server.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { idKey, type RequestId } from '../../protocol/jsonrpc.js';
import { InvalidStateError } from '../errors.js';
import { WebTransportSdkTransport } from './sdk-transport.js';
import { listenWebTransport, type WebTransportServer, type WebTransportServerOptions } from './server.js';
import type { WebTransportSessionConnection } from './session.js';

/** The error a request cancelled with `$/cancel` is answered with (001 §4.2: -32000 "Cancelled"). */
export const CANCELLED_ERROR = { code: -32000, message: 'Cancelled' } as const;

/** A string or number id, as the SDK's own RequestId type has it. */
function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || typeof value === 'number';
}

/**
 * The SDK `Transport` of one server-role WebTransport session. Requests from the client are
 * tracked until the SDK answers them; `$/cancel` of one of them aborts its handler (delivered to
 * the SDK as `notifications/cancelled`), answers it with CANCELLED_ERROR and drops whatever the
 * SDK still sends for it. `$/cancel` of anything else is ignored (WT-CANCEL-4).
 */
export class WebTransportSdkServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #inner: WebTransportSdkTransport;
  /** Client requests the SDK has not answered yet. */
  readonly #inFlight = new Set<string>();
  /** Requests answered by a cancel: the SDK's own late answer and progress for them are dropped. */
  readonly #cancelled = new Set<string>();

  constructor(connection: WebTransportSessionConnection) {
    if (connection.role !== 'server') {
      throw new InvalidStateError(`WebTransportSdkServerTransport needs a server-role session; this one has role "${connection.role}" (use WebTransportSdkTransport for a client)`);
    }
    this.#inner = new WebTransportSdkTransport(connection);
  }

  get connection(): WebTransportSessionConnection {
    return this.#inner.connection;
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message) => this.#receive(message as unknown as Record<string, unknown>);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#inFlight.clear();
      this.#cancelled.clear();
      this.onclose?.();
    };
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const record = message as unknown as Record<string, unknown>;
    const id = record['id'];
    if (!('method' in record) && isRequestId(id)) {
      const key = idKey(id);
      this.#inFlight.delete(key);
      // Already answered with CANCELLED_ERROR: exactly one answer per request (CORE-RPC-16).
      if (this.#cancelled.delete(key)) return;
    } else if (record['method'] === 'notifications/progress' || record['method'] === 'notifications/message') {
      // Nothing more for a cancelled request (WT-CANCEL-3).
      const related = options?.relatedRequestId;
      if (related !== undefined && this.#cancelled.has(idKey(related))) return;
    }
    await this.#inner.send(message, options);
  }

  async close(): Promise<void> {
    await this.#inner.close();
  }

  #receive(message: Record<string, unknown>): void {
    if (message['method'] === '$/cancel') {
      void this.#cancel(message['params']).catch((error: unknown) => this.onerror?.(error as Error));
      return;
    }
    if (typeof message['method'] === 'string' && isRequestId(message['id'])) {
      const key = idKey(message['id']);
      // A (forbidden, CORE-RPC-4) reuse of a cancelled id is a new request: its answer goes out.
      this.#cancelled.delete(key);
      this.#inFlight.add(key);
    }
    this.onmessage?.(message as unknown as JSONRPCMessage);
  }

  /** 001 §4 `$/cancel`: abort, answer with an error, then stay silent about the request. */
  async #cancel(params: unknown): Promise<void> {
    const record = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
    const requestId = record['requestId'];
    if (!isRequestId(requestId)) return;
    const key = idKey(requestId);
    // Unknown, finished or already cancelled: ignored (WT-CANCEL-4).
    if (!this.#inFlight.delete(key)) return;
    this.#cancelled.add(key);
    const reason = typeof record['reason'] === 'string' ? record['reason'] : undefined;
    // The SDK aborts the handler's signal and sends no response of its own for it.
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, ...(reason !== undefined ? { reason } : {}) } } as JSONRPCMessage);
    await this.#inner.send({
      jsonrpc: '2.0',
      id: requestId,
      error: { ...CANCELLED_ERROR, ...(reason !== undefined ? { data: { reason } } : {}) },
    } as JSONRPCMessage);
  }
}

/** The part of an SDK `Server` / `McpServer` that serving a session needs. */
export interface SdkServerLike {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export interface SdkServerListenOptions extends Omit<WebTransportServerOptions, 'onConnection'> {
  /** A fresh SDK server for each session (an SDK server serves one transport at a time). */
  createServer(connection: WebTransportSessionConnection): SdkServerLike;
  /** The binding's rules the SDK does not know (admission before READY, `result.transport`): e.g. webTransportBinding().listener.hooks (src/peer/server/binding.ts). */
  hooks: NonNullable<WebTransportServerOptions['hooks']>;
}

/**
 * Listens for WebTransport sessions and serves each with its own SDK server over
 * WebTransportSdkServerTransport. Closing the listener closes every session, and with it each
 * SDK server (the SDK closes a server whose transport closed).
 */
export async function listenSdkServer(options: SdkServerListenOptions): Promise<WebTransportServer> {
  const { createServer, ...listenOptions } = options;
  return listenWebTransport({
    ...listenOptions,
    onConnection: (connection) => {
      const transport = new WebTransportSdkServerTransport(connection);
      const server = createServer(connection);
      server.connect(transport).catch(async (error: unknown) => {
        connection.transcript.event(`the SDK server could not start on this session: ${(error as Error).message}`);
        await connection.close('SDK server failed to start');
      });
    },
  });
}
