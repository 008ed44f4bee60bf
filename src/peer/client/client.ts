// The MCP Flow mock client: initialize and negotiation, lists that follow cursors, requests and
// their cancellation, and the sending and receiving that every part shares. Tool calls (calls.ts),
// interactive sessions (interaction.ts) and what the server sends unasked (serving.ts) work through
// its ClientContext (context.ts). Faults (faults.ts) each make it break one client requirement on purpose.
import type { Connection, ReceivedMessage } from '../../transport/connection.js';
import { ConnectionClosedError } from '../../transport/errors.js';
import type { HttpClientFacet } from '../../transport/http/client.js';
import { Transcript } from '../../transport/transcript.js';
import { cborCodec, encodeFrame, jsonCodec } from '../../wire/index.js';
import { LATEST_PROTOCOL_VERSION, isProtocolVersion } from '../../protocol/methods.js';
import type { Answerer } from './answerer.js';
import { BindingFaultWatch } from './binding-faults.js';
import { callTool } from './calls.js';
import { openConnection, openSecondBidirectionalStream, type MockClientTarget } from './connect.js';
import type { ClientContext } from './context.js';
import { ClientStateError, InitializeFailedError, RpcResponseError } from './errors.js';
import { ClientFaults, MOCK_CLIENT_FAULT as F } from './faults.js';
import { interact, Sessions } from './interaction.js';
import { FrameLogTranscript, ObservedTranscript } from './log.js';
import { PendingRequests } from './pending.js';
import { ServerMessages } from './serving.js';
import { ExecutionStreams } from './streams.js';
import {
  delay,
  idKey,
  record,
  type CallOptions,
  type CallOutcome,
  type Id,
  type InitializeInfo,
  type InteractionOutcome,
  type Message,
  type MockClientOptions,
  type ProgressReport,
  type RequestOptions,
} from './types.js';
import { cborBodyWithFloatId } from '../cbor-float-id.js';

export type { CallOptions, CallOutcome, InitializeInfo, InteractionOutcome, MockClientOptions, RequestOptions } from './types.js';

/** How long close() lets the server close the session after the control stream ended. */
const CLOSE_GRACE_MS = 2000;
/** A request id this client never uses (cancel-unknown-request, cancelled-unknown-request). */
const NEVER_SENT_ID = 999_999;
/** A protocol version that defines no tasks/* methods (method-outside-version). */
const VERSION_WITHOUT_TASKS = '2025-06-18';

/** Opens a connection to `target` (not yet initialized). */
export async function connectMockClient(target: MockClientTarget, options: MockClientOptions = {}): Promise<MockClient> {
  const faults = new ClientFaults(options.faults);
  const transcript = options.log ? new FrameLogTranscript(options.log) : new ObservedTranscript();
  const connection = await openConnection(target, { faults, transcript, ...(options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {}) });
  return new MockClient(connection, faults, options);
}

export class MockClient {
  readonly connection: Connection;
  readonly faults: ClientFaults;
  /** Problems the server caused that ended no operation (kept for reports). */
  readonly notes: string[] = [];

  readonly #options: MockClientOptions;
  readonly #pending = new PendingRequests();
  readonly #sentIds = new Set<number>();
  readonly #progress = new Map<string, (update: ProgressReport) => void>();
  readonly #sessions: Sessions;
  readonly #server: ServerMessages;
  readonly #context: ClientContext;
  #nextId = 0;
  #declared: Record<string, unknown>;
  #initialized: InitializeInfo | undefined;
  #initializeId: Id | undefined;
  /** FAULT encoding-lapses: notifications/initialized went out; what follows goes out in JSON. */
  #initializedSent = false;
  #closing: Promise<void> | undefined;
  /** Sends nobody awaits (answers to the server, cancels): close() lets them finish. */
  readonly #sending = new Set<Promise<void>>();
  readonly #streams: ExecutionStreams | undefined;

  constructor(connection: Connection, faults: ClientFaults, options: MockClientOptions = {}) {
    this.connection = connection;
    this.faults = faults;
    this.#options = options;
    this.#declared = declaredCapabilities(options, faults);
    this.#context = this.#contextFor();
    this.#sessions = new Sessions((message) => this.#background(this.#server.serve(message)));
    this.#server = new ServerMessages(this.#context, this.#sessions);
    const wt = connection.webtransport;
    if (wt) {
      this.#streams = new ExecutionStreams(wt, {
        isOwnRequest: (id) => this.#sentIds.has(id),
        acceptInjected: faults.has(F.acceptInjectedStream),
        ...(faults.has(F.streamBeforeResultDropped) ? { refuseEarly: (id: number) => this.#pending.ids().includes(id) } : {}),
        note: (text) => this.#note(text),
      });
      void this.#server.readDatagrams();
      if (connection.transcript instanceof ObservedTranscript) {
        const watch = new BindingFaultWatch(this.#context);
        connection.transcript.watch(() => watch.poke());
      }
    }
    options.signal?.addEventListener('abort', () => void this.close(), { once: true });
    void this.#dispatchLoop();
  }

  get initialized(): InitializeInfo | undefined {
    return this.#initialized;
  }

  /** Whether the server sent `$/shutdown`. */
  get shutdownReceived(): boolean {
    return this.#server.shutdownReceived;
  }

  get #timeoutMs(): number {
    return this.#options.requestTimeoutMs ?? 30_000;
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  /** initialize, the version check, then notifications/initialized (CORE-LIFE-1..4, WT-INIT-1, WT-ENC-1/12). */
  async initialize(): Promise<InitializeInfo> {
    if (this.#initialized) throw new ClientStateError('initialize() was already called successfully');
    const wt = this.connection.webtransport;
    // FAULT request-before-initialize.
    if (this.faults.has(F.requestBeforeInitialize)) await this.#send(this.#requestMessage(this.#takeId(), 'tools/list', {}));
    // FAULT notification-before-initialize: the first control message is a notification, not initialize.
    if (wt && this.faults.has(F.notificationBeforeInitialize)) await this.#send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const id = this.#takeId();
    this.#initializeId = id;
    // FAULT method-outside-version: a version without tasks/*, which the client then calls.
    const protocolVersion = this.faults.has(F.methodOutsideVersion) ? VERSION_WITHOUT_TASKS : (this.#options.protocolVersion ?? LATEST_PROTOCOL_VERSION);
    const params: Message = { protocolVersion, capabilities: this.#declared };
    if (!this.faults.has(F.initializeWithoutClientInfo)) params['clientInfo'] = this.#options.clientInfo ?? { name: 'mcp-flow-conformance mock-client', version: '0.1.0' };
    if (wt && !this.faults.has(F.noTransportExtension)) {
      // FAULT json-not-spoken: only CBOR is offered.
      const encodings = this.faults.has(F.jsonNotSpoken) ? ['cbor'] : (this.#options.encodings ?? ['cbor', 'json']);
      params['transport'] = { type: 'mcp-flow', version: '0.1', ...(encodings.length > 0 ? { encodings } : {}) };
    }
    const message = { jsonrpc: '2.0', id, method: 'initialize', params };
    const answer = this.#pending.expect(id, 'initialize', this.#timeoutMs);
    // FAULT initialize-in-cbor: the frame goes out CBOR-encoded, bypassing the session's encoding state.
    if (wt && this.faults.has(F.initializeInCbor)) await this.connection.sendRaw(encodeFrame(cborCodec.encode(message)));
    else await this.connection.send(message);
    // FAULT send-before-initialize-result: a notification before the initialize result arrived (only a ping is allowed, WT-CONN-5).
    if (wt && this.faults.has(F.sendBeforeInitializeResult)) await this.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // FAULT request-before-initialize-result: tools/list before the initialize result arrived (CORE-LIFE-6).
    if (wt && this.faults.has(F.requestBeforeInitializeResult)) await this.connection.send(this.#requestMessage(this.#takeId(), 'tools/list', {}));
    const response = await answer;
    const result = record(response['result']);
    if (!result) {
      const error = record(response['error']);
      // FAULT request-after-initialize-error.
      if (this.faults.has(F.requestAfterInitializeError)) await this.#send(this.#requestMessage(this.#takeId(), 'tools/list', {})).catch(() => undefined);
      throw new InitializeFailedError(`the server answered initialize with error ${String(error?.['code'] ?? '?')}: ${String(error?.['message'] ?? '')}`.trim());
    }
    const version = result['protocolVersion'];
    if (!isProtocolVersion(version) && !this.faults.has(F.continueAfterVersionMismatch)) {
      // CORE-VER-5: a version this client does not speak ends the session.
      await this.close();
      throw new InitializeFailedError(`the server answered protocol version ${JSON.stringify(version)}, which this client does not speak`);
    }
    // FAULT initialize-cancelled.
    if (this.faults.has(F.initializeCancelled)) await this.#sendCancel(id, 'initialize cancelled (fault)');
    // FAULT no-protocol-version-header: later HTTP requests carry no MCP-Protocol-Version.
    if (this.connection.http && this.faults.has(F.noProtocolVersionHeader)) (this.connection.http as HttpClientFacet).setProtocolVersion(undefined);
    const info: InitializeInfo = {
      protocolVersion: String(version),
      serverInfo: result['serverInfo'],
      capabilities: record(result['capabilities']) ?? {},
      encoding: wt?.encoding ?? 'json',
      result,
    };
    const transport = record(result['transport']);
    if (transport) info.transport = transport;
    this.#initialized = info;
    if (!this.faults.has(F.noInitializedNotification)) await this.#send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    this.#initializedSent = true;
    await this.#afterInitializedFaults();
    return info;
  }

  /** What faults send right after notifications/initialized. */
  async #afterInitializedFaults(): Promise<void> {
    const wt = this.connection.webtransport;
    // FAULT cancel-unknown-request.
    if (wt && this.faults.has(F.cancelUnknownRequest)) await this.#send({ jsonrpc: '2.0', method: '$/cancel', params: { requestId: NEVER_SENT_ID } });
    // FAULT cancelled-unknown-request.
    if (this.faults.has(F.cancelledUnknownRequest)) await this.#send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: NEVER_SENT_ID, reason: 'fault' } });
    // FAULT request-id-null: a ping whose id is null.
    if (this.faults.has(F.requestIdNull)) this.#background(this.#send({ jsonrpc: '2.0', id: null, method: 'ping' }));
    // FAULT progress-unsolicited: progress for a token the server never gave.
    if (this.faults.has(F.progressUnsolicited)) await this.#send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'never-given', progress: 1 } });
    // FAULT method-outside-version: tasks/list under a version that does not define it.
    if (this.faults.has(F.methodOutsideVersion)) this.#background(this.request('tasks/list', {}));
    // FAULT second-bidirectional-stream.
    if (wt && this.faults.has(F.secondBidirectionalStream)) await openSecondBidirectionalStream(this.connection);
  }

  /**
   * Closes the connection (idempotent). Pending requests fail with ConnectionClosedError. Over
   * WebTransport the control stream is ended first (FIN after everything written) and the server,
   * which closes the session when it ends (WT-CONN-6), gets a moment to do so: closing the session
   * at once can discard the last frames still in flight over HTTP/2.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      // What is still being sent (a cancel, an answer to the server) goes out first.
      await Promise.race([Promise.allSettled([...this.#sending]), delay(CLOSE_GRACE_MS)]);
      const wt = this.connection.webtransport;
      if (wt && !this.connection.isClosed) {
        try {
          await wt.endControlStream();
          await Promise.race([this.connection.closed, delay(CLOSE_GRACE_MS)]);
        } catch {
          // the control stream is already gone: close the session below
        }
      }
      await this.connection.close('mock client closing').catch(() => undefined);
    })();
    return this.#closing;
  }

  // ---- lists ------------------------------------------------------------------------------------

  /** tools/list, following nextCursor until a page has none (CORE-PAGE-4). */
  listTools(): Promise<Message[]> {
    return this.#list('tools/list', 'tools', 'tools');
  }

  /** prompts/list (every page); empty when the server declared no prompts (CORE-CAP-1). */
  listPrompts(): Promise<Message[]> {
    return this.#list('prompts/list', 'prompts', 'prompts');
  }

  /** resources/list (every page); empty when the server declared no resources (CORE-CAP-1). */
  listResources(): Promise<Message[]> {
    return this.#list('resources/list', 'resources', 'resources');
  }

  async #list(method: string, capability: string, key: string): Promise<Message[]> {
    const init = this.#requireReady();
    const declared = init.capabilities[capability] !== undefined;
    // FAULT undeclared-feature-called: the list is asked for whatever the server declared.
    if (!declared && !this.faults.has(F.undeclaredFeatureCalled)) return [];
    const items: Message[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      // FAULT cursor-modified.
      const sent = cursor !== undefined && this.faults.has(F.cursorModified) ? `${cursor}x` : cursor;
      const response = await this.request(method, sent === undefined ? {} : { cursor: sent });
      const result = record(response['result']);
      if (!result) throw new RpcResponseError(method, record(response['error']));
      const page = result[key];
      if (Array.isArray(page)) items.push(...page.filter((item): item is Message => record(item) !== undefined));
      const next = result['nextCursor'];
      if (next === undefined || next === null) return items;
      if (typeof next !== 'string') throw new RpcResponseError(method, { code: undefined, message: `nextCursor is not a string: ${JSON.stringify(next)}` });
      if (seen.has(next)) throw new RpcResponseError(method, { code: undefined, message: `nextCursor ${JSON.stringify(next)} came back a second time (the listing loops)` });
      seen.add(next);
      cursor = next;
    }
  }

  // ---- requests ---------------------------------------------------------------------------------

  /**
   * Sends a request and resolves with the whole response (result or error). Aborting `signal`
   * cancels it ($/cancel over WebTransport, notifications/cancelled otherwise) and rejects with
   * the signal's reason.
   */
  async request(method: string, params?: Message, options: RequestOptions = {}): Promise<Message> {
    this.#requireReady();
    if (this.shutdownReceived && !this.faults.has(F.requestsAfterShutdown)) {
      throw new ClientStateError(`the server sent $/shutdown: no new requests (${method} not sent)`);
    }
    const id = this.#takeId();
    options.beforeSend?.(id);
    const onProgress = options.onProgress;
    if (onProgress) {
      // The request id is the progress token (unique among this client's active requests).
      params = { ...params, _meta: { ...record(params?.['_meta']), progressToken: id } };
      this.#progress.set(idKey(id), onProgress);
    }
    const answer = this.#pending.expect(id, method, options.timeoutMs ?? this.#timeoutMs);
    if (onProgress) void answer.finally(() => this.#progress.delete(idKey(id))).catch(() => undefined);
    try {
      await this.#send(this.#requestMessage(id, method, params));
    } catch (error) {
      this.#pending.forget(id);
      throw error;
    }
    const signal = options.signal;
    if (!signal) return answer;
    return new Promise<Message>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.forget(id);
        // FAULT no-cancel-on-abort.
        if (!this.faults.has(F.noCancelOnAbort)) this.#background(this.#sendCancel(id, 'aborted by the user'));
        reject(signal.reason instanceof Error ? signal.reason : new ClientStateError(`${method} was aborted`));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      answer.then(
        (message) => {
          signal.removeEventListener('abort', onAbort);
          resolve(message);
        },
        (error: Error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** tools/call; over WebTransport every execution stream its result names is read and checked. */
  callTool(name: string, args: Message = {}, options: CallOptions = {}): Promise<CallOutcome> {
    return callTool(this.#context, name, args, options);
  }

  /**
   * Runs one MCP Flow session: interaction.start, then each prompt (the initialPrompt, each
   * interaction.prompt, each interaction.continue nextPrompt) answered through `answerer` with
   * interaction.respond; a rejected value is asked again (attempt + 1, with the server's reason).
   * Aborting `signal`, or the answerer returning CANCEL, sends interaction.cancel.
   */
  interact(toolName: string, initialParams: Message | undefined, answerer: Answerer, options: { signal?: AbortSignal } = {}): Promise<InteractionOutcome> {
    return interact(this.#context, this.#sessions, toolName, initialParams, answerer, options);
  }

  // ---- receiving --------------------------------------------------------------------------------

  async #dispatchLoop(): Promise<void> {
    for (;;) {
      let received: ReceivedMessage;
      try {
        received = await this.connection.next();
      } catch {
        break; // closed
      }
      try {
        this.#dispatch(received);
      } catch (error) {
        this.#note(`could not handle a message: ${(error as Error).message}`);
      }
    }
    this.#pending.rejectAll(new ConnectionClosedError('the connection closed before the answer came'));
  }

  #dispatch(received: ReceivedMessage): void {
    // FAULT stops-after-parse-error: nothing after an undecodable frame is looked at.
    if (this.faults.has(F.stopsAfterParseError) && this.connection.faults().some((fault) => fault.jsonRpcCode === -32700 && fault.at <= received.at)) {
      this.#note(`ignored after a parse error (fault): ${JSON.stringify(received.message)}`);
      return;
    }
    const message = record(received.message);
    if (!message) return;
    const method = message['method'];
    if (typeof method === 'string') {
      if ('id' in message) this.#background(this.#server.serve(message));
      else this.#server.onNotification(method, message);
      return;
    }
    const id = message['id'];
    if (typeof id === 'string' || typeof id === 'number') {
      this.#pending.answer(id, message);
      return;
    }
    if (!('error' in message)) return;
    this.#note(`the server reported an error about no request: ${JSON.stringify(message['error'])}`);
    // Before the initialize result, an error about no request means the initialize frame itself was refused.
    if (this.#initializeId !== undefined && !this.#initialized) this.#pending.answer(this.#initializeId, { ...message, id: this.#initializeId });
  }

  // ---- sending ----------------------------------------------------------------------------------

  #takeId(): Id {
    // FAULT request-id-reused: every request after initialize gets the same id.
    if (this.faults.has(F.requestIdReused) && this.#initialized) return 1;
    const id = this.#nextId++;
    // FAULT string-request-ids: over WebTransport the requests after initialize get string ids.
    return this.faults.has(F.stringRequestIds) && this.#initialized && this.connection.webtransport ? `r${id}` : id;
  }

  #requestMessage(id: Id, method: string, params: Message | undefined): Message & { id: Id } {
    // FAULT jsonrpc-version-wrong.
    const jsonrpc = this.faults.has(F.jsonrpcVersionWrong) && this.#initialized ? '2' : '2.0';
    if (typeof id === 'number') this.#sentIds.add(id);
    // FAULT progress-token-not-integer: a fractional progressToken in every request after initialize.
    if (this.faults.has(F.progressTokenNotInteger) && this.#initialized && !Array.isArray(params)) params = { ...params, _meta: { ...record(params?.['_meta']), progressToken: 0.5 } };
    return { jsonrpc, id, method, ...(params !== undefined ? { params } : {}) };
  }

  /** Runs a send nobody awaits; close() waits for it (bounded), failures become notes. */
  #background(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      (error: unknown) => this.#note(`could not send: ${(error as Error).message}`),
    );
    this.#sending.add(tracked);
    void tracked.finally(() => this.#sending.delete(tracked));
  }

  async #send(message: Message): Promise<void> {
    const frame = this.#faultyFrame(message);
    if (frame) await this.connection.sendRaw(frame);
    else await this.connection.send(message);
  }

  /** The frame a fault sends instead of what the session would (WebTransport, after the initialize result), or undefined. */
  #faultyFrame(message: Message): Uint8Array | undefined {
    const wt = this.connection.webtransport;
    if (!wt || !this.#initialized) return undefined;
    const negotiated = wt.encoding;
    let encoding = negotiated;
    // FAULT encoding-not-switched: JSON frames although CBOR was negotiated.
    if (negotiated === 'cbor' && this.faults.has(F.encodingNotSwitched)) encoding = 'json';
    // FAULT encoding-lapses: JSON again once notifications/initialized went out in CBOR.
    if (negotiated === 'cbor' && this.#initializedSent && this.faults.has(F.encodingLapses)) encoding = 'json';
    // FAULT json-not-spoken: CBOR frames although JSON was negotiated.
    if (negotiated === 'json' && this.faults.has(F.jsonNotSpoken)) encoding = 'cbor';
    const trailing = encoding === 'cbor' && this.faults.has(F.cborTrailingByte);
    const shortPrefix = this.faults.has(F.frameLengthOffByOne);
    const id = (message as { id?: unknown }).id;
    // FAULT cbor-id-as-float: an integral id goes out as a CBOR float64.
    const floatId = encoding === 'cbor' && this.faults.has(F.cborIdAsFloat) && typeof id === 'number' && Number.isInteger(id);
    if (encoding === negotiated && !trailing && !shortPrefix && !floatId) return undefined;
    const encoded = floatId ? cborBodyWithFloatId(message as Message & { id: number }) : (encoding === 'cbor' ? cborCodec : jsonCodec).encode(message);
    // FAULT cbor-trailing-byte: one 0x00 byte after the CBOR data item.
    const body = trailing ? new Uint8Array([...encoded, 0x00]) : encoded;
    const frame = encodeFrame(body);
    // FAULT frame-length-off-by-one: the length prefix says one byte less than the body has.
    if (shortPrefix) new DataView(frame.buffer, frame.byteOffset).setUint32(0, body.byteLength - 1);
    return frame;
  }

  #sendCancel(requestId: Id, reason: string): Promise<void> {
    if (this.connection.webtransport) return this.#send({ jsonrpc: '2.0', method: '$/cancel', params: { requestId, reason } });
    return this.#send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
  }

  #requireReady(): InitializeInfo {
    if (!this.#initialized) throw new ClientStateError('call initialize() first');
    return this.#initialized;
  }

  #note(text: string): void {
    this.notes.push(text);
    this.connection.transcript.event(`mock client: ${text}`);
  }

  /** The view calls.ts, interaction.ts, serving.ts and binding-faults.ts work through. */
  #contextFor(): ClientContext {
    const client = this;
    return {
      connection: this.connection,
      faults: this.faults,
      options: this.#options,
      get streams() {
        return client.#streams;
      },
      get timeoutMs() {
        return client.#timeoutMs;
      },
      get initialized() {
        return client.#initialized;
      },
      get declared() {
        return client.#declared;
      },
      progress: this.#progress,
      inFlight: () => this.#pending.ids(),
      request: (method, params, options) => this.request(method, params, options),
      newRequest: (method, params) => this.#requestMessage(this.#takeId(), method, params),
      send: (message) => this.#send(message),
      sendCancel: (requestId, reason) => this.#sendCancel(requestId, reason),
      background: (work) => this.#background(work),
      abandonPending: (error) => this.#pending.rejectAll(error),
      note: (text) => this.#note(text),
    };
  }
}

/** The capabilities initialize declares: the options', and what some faults add. */
function declaredCapabilities(options: MockClientOptions, faults: ClientFaults): Record<string, unknown> {
  const declared: Record<string, unknown> = { ...(options.capabilities ?? {}) };
  // FAULTs roots-not-file-uri, elicitation-without-action, sampling-without-model: the capability is declared, and then answered wrongly.
  if (faults.has(F.rootsNotFileUri)) declared['roots'] ??= {};
  if (faults.has(F.elicitationWithoutAction)) declared['elicitation'] ??= {};
  if (faults.has(F.samplingWithoutModel)) declared['sampling'] ??= {};
  // FAULT capability-not-object: a capability declared as a boolean.
  if (faults.has(F.capabilityNotObject)) declared['roots'] = true;
  return declared;
}
