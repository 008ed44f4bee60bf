// Everything one session of the mock server sends goes out here: responses (with the response
// faults applied as rewrites, fault-hooks.ts), notifications, and any message that belongs to a
// request (over Streamable HTTP it goes on that request's stream). A Sink is where the answers
// to one incoming message go: straight to the connection, or into a batch.
import type { Connection } from '../../../transport/connection.js';
import { ConnectionClosedError } from '../../../transport/errors.js';
import type { ActiveFaults } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { RESPONSE_REWRITES } from './fault-hooks.js';
import { isRecord, type JsonRpcErrorObject, type RequestId } from './jsonrpc.js';

/** Where the answers to one message go: straight to the connection, or into a batch. */
export interface Sink {
  send(message: unknown, relatedTo?: RequestId): Promise<void>;
}

export class Outbox {
  readonly #connection: Connection;
  readonly #faults: ActiveFaults;
  /** The connection itself, as a Sink. */
  readonly direct: Sink;

  constructor(connection: Connection, faults: ActiveFaults) {
    this.#connection = connection;
    this.#faults = faults;
    this.direct = { send: (message, relatedTo) => this.send(message, relatedTo) };
  }

  async result(sink: Sink, id: RequestId, result: unknown): Promise<void> {
    await this.#emit(sink, { jsonrpc: '2.0', id, result });
  }

  async error(sink: Sink, id: RequestId | null, error: JsonRpcErrorObject): Promise<void> {
    await this.#emit(sink, { jsonrpc: '2.0', id, error });
  }

  async #emit(sink: Sink, response: Record<string, unknown>): Promise<void> {
    const sent = this.#faults.rewrite(RESPONSE_REWRITES, response);
    try {
      await sink.send(sent);
      if (this.#faults.has(F.duplicateResponse) && sent['id'] !== null) await sink.send(sent);
    } catch (error) {
      this.note(`answer not sent: ${describe(error)}`);
    }
  }

  async notify(method: string, params: unknown, relatedTo?: RequestId): Promise<void> {
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message['params'] = params;
    await this.send(message, relatedTo);
  }

  /** Sends on the connection; over HTTP, messages that belong to a request go on that request's stream. */
  async send(message: unknown, relatedTo?: RequestId): Promise<void> {
    if (this.#connection.isClosed) throw new ConnectionClosedError('the session ended');
    const related = (this.#connection as { sendRelated?: (id: RequestId | undefined, m: unknown) => Promise<void> }).sendRelated;
    const isResponse = isRecord(message) && !('method' in message);
    if (relatedTo !== undefined && !isResponse && typeof related === 'function') {
      await related.call(this.#connection, relatedTo, message);
      return;
    }
    await this.#connection.send(message);
  }

  /** A line in the connection's transcript. */
  note(text: string): void {
    this.#connection.transcript.event(`mock server: ${text}`);
  }
}

export function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
