// What the parts of the mock client share: MockClient (client.ts) owns the connection, the request
// machinery and the faults; calls.ts, interaction.ts and serving.ts work through this view of it.
import type { Connection } from '../../transport/connection.js';
import type { ClientFaults } from './faults.js';
import type { ExecutionStreams } from './streams.js';
import type { Id, InitializeInfo, Message, MockClientOptions, ProgressReport, RequestOptions } from './types.js';

export interface ClientContext {
  readonly connection: Connection;
  readonly faults: ClientFaults;
  readonly options: MockClientOptions;
  /** WebTransport: the execution streams the server opens. */
  readonly streams: ExecutionStreams | undefined;
  /** Liveness deadline for each answer the client waits for. */
  readonly timeoutMs: number;
  /** The initialize exchange, once it succeeded. */
  readonly initialized: InitializeInfo | undefined;
  /** The client capabilities initialize declared (faults may declare more than the options). */
  readonly declared: Record<string, unknown>;
  /** Ids of this client's requests still waiting for their answer. */
  inFlight(): Id[];
  /** Progress callbacks of the requests in flight, by idKey of the request id (the progress token). */
  readonly progress: Map<string, (update: ProgressReport) => void>;
  /** Sends a request and resolves with its whole response (RequestOptions as MockClient.request). */
  request(method: string, params?: Message, options?: RequestOptions): Promise<Message>;
  /** A request message with a fresh id (recorded as one this client sent), not sent yet. */
  newRequest(method: string, params?: Message): Message & { id: Id };
  /** Sends a message in the encoding in force (faults may change how). */
  send(message: Message): Promise<void>;
  /** The cancel notification of the transport: `$/cancel` over WebTransport, `notifications/cancelled` otherwise. */
  sendCancel(requestId: Id, reason: string): Promise<void>;
  /** Runs a send nobody awaits; close() waits for it (bounded), failures become notes. */
  background(work: Promise<unknown>): void;
  /** Gives up every request still waiting for its answer (they reject with `error`). */
  abandonPending(error: Error): void;
  /** A line for the client's notes and transcript. */
  note(text: string): void;
}
