// The MCP Flow mock client: initialize and negotiation, lists that follow cursors, tools/call with
// execution-stream downloads, interactive sessions driven by an Answerer, cancellation, and the
// server-to-client requests and notifications a client must serve (ping, interaction.prompt /
// continue / complete, refusals of what it did not declare, $/shutdown, $/streamError). Faults
// (faults.ts) each make it break one client requirement on purpose.
import type { Connection, ReceivedMessage } from '../../transport/connection.js';
import { ConnectionClosedError, ConnectionTimeoutError } from '../../transport/errors.js';
import type { HttpClientFacet } from '../../transport/http/client.js';
import { Transcript } from '../../transport/transcript.js';
import { cborCodec, encodeFrame, jsonCodec } from '../../wire/index.js';
import { LATEST_PROTOCOL_VERSION, isProtocolVersion } from '../../protocol/methods.js';
import { CANCEL, type Answerer, type AskState } from './answerer.js';
import { openConnection, type MockClientTarget } from './connect.js';
import { ClientStateError, InitializeFailedError, RpcResponseError } from './errors.js';
import { ClientFaults, MOCK_CLIENT_FAULT as F } from './faults.js';
import { FrameLogTranscript } from './log.js';
import { ExecutionStreams, refStreamItems, type StreamInfo, type StreamOutcome } from './streams.js';

type Id = string | number;
type Message = Record<string, unknown>;

export interface MockClientOptions {
  /** WebTransport: encodings offered in initialize, preferred first. Default ["cbor", "json"]. */
  encodings?: ('cbor' | 'json')[];
  /** Default the latest known protocol version. */
  protocolVersion?: string;
  clientInfo?: { name: string; version: string; [extra: string]: unknown };
  /** Declared client capabilities. Default {} (no sampling, roots or elicitation: such requests are refused). */
  capabilities?: Record<string, unknown>;
  /** Fault names (faults.ts). */
  faults?: Iterable<string>;
  /** Gets one readable line per frame and event (log.ts). */
  log?: (line: string) => void;
  /** Aborting closes the client. */
  signal?: AbortSignal;
  /** Liveness deadline for each answer the client waits for. Default 30000 ms. */
  requestTimeoutMs?: number;
  /** How long a `ref/stream` waits for its stream beyond the session's own grace. Default 1000 ms. */
  streamGraceMs?: number;
  /** After accepted:false, how long to wait for the server's re-prompt before answering the kept prompt again. Default 2000 ms. */
  repromptGraceMs?: number;
  /** Every notification the server sends (after the client handled it). */
  onNotification?: (message: Message) => void;
}

export interface InitializeInfo {
  protocolVersion: string;
  serverInfo: unknown;
  capabilities: Record<string, unknown>;
  /** The encoding in force after initialize (always json outside WebTransport). */
  encoding: 'json' | 'cbor';
  /** WebTransport: the server's result.transport. */
  transport?: Record<string, unknown>;
  /** The whole initialize result. */
  result: Message;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (update: { requestId: Id; progress: number; total?: number; message?: string }) => void;
  /** WebTransport: where the payload of each execution stream of this call goes (default: memory). */
  download?: (stream: StreamInfo) => WritableStream<Uint8Array> | undefined;
}

export interface RequestOptions {
  /** Aborting sends the cancel and rejects with the signal's reason. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Progress of this request (its id is sent as the progress token). */
  onProgress?: CallOptions['onProgress'];
  /** Called with the request id just before the request goes out. */
  beforeSend?: (id: Id) => void;
}

export interface CallOutcome {
  /** The result came, is not isError, and every stream it names arrived complete. */
  ok: boolean;
  requestId: Id;
  result?: Message;
  error?: { code?: number; message?: string; data?: unknown };
  /** The call was aborted (a cancel was sent unless a fault withheld it). */
  cancelled?: boolean;
  streams: StreamOutcome[];
  /** What went wrong, in words. */
  failures: string[];
}

export interface InteractionOutcome {
  status: 'completed' | 'cancelled' | 'failed';
  sessionId?: string;
  /** interaction.complete params.result. */
  result?: Message;
  summary?: string;
  /** What this client answered interaction.complete with as finalResult. */
  finalResult?: unknown;
  answers: number;
  rejections: number;
  /** Execution streams of the session (a file export over WebTransport). */
  streams: StreamOutcome[];
  failures: string[];
}

interface PendingRequest {
  method: string;
  timer: NodeJS.Timeout;
  resolve(message: Message): void;
  reject(error: Error): void;
}

/** What the server asked of one interactive session. */
type SessionEvent =
  | { kind: 'prompt'; prompt: Message; progress?: Message }
  | { kind: 'complete'; params: Message; finalResult: unknown }
  | { kind: 'closed'; error: Error };

class SessionEvents {
  readonly #events: SessionEvent[] = [];
  #waiter: (() => void) | undefined;

  push(event: SessionEvent): void {
    this.#events.push(event);
    this.#waiter?.();
  }

  /** The next event, or undefined after `timeoutMs`. */
  async next(timeoutMs: number, signal?: AbortSignal): Promise<SessionEvent | undefined> {
    await this.wait(timeoutMs, signal);
    return this.#events.shift();
  }

  /** Whether an event is queued within `timeoutMs` (it stays queued). */
  async wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#events.length === 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.#waiter = undefined;
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        this.#waiter = done;
      });
    }
    return this.#events.length > 0;
  }
}

const METHOD_NOT_FOUND = -32601;
const SESSION_NOT_FOUND = -32001;
/** How long close() lets the server close the session after the control stream ended. */
const CLOSE_GRACE_MS = 2000;
/** A request id this client never uses (cancel-unknown-request). */
const NEVER_SENT_ID = 999_999;

/** Opens a connection to `target` (not yet initialized). */
export async function connectMockClient(target: MockClientTarget, options: MockClientOptions = {}): Promise<MockClient> {
  const faults = new ClientFaults(options.faults);
  const transcript = options.log ? new FrameLogTranscript(options.log) : new Transcript();
  const connection = await openConnection(target, { faults, transcript, ...(options.requestTimeoutMs !== undefined ? { timeoutMs: options.requestTimeoutMs } : {}) });
  return new MockClient(connection, faults, options);
}

export class MockClient {
  readonly connection: Connection;
  readonly faults: ClientFaults;
  /** Problems the server caused that ended no operation (kept for reports). */
  readonly notes: string[] = [];

  readonly #options: MockClientOptions;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #sentIds = new Set<number>();
  readonly #sessions = new Map<string, SessionEvents>();
  readonly #progress = new Map<string, NonNullable<CallOptions['onProgress']>>();
  /** Server requests naming a session not yet known while an interaction.start is in flight. */
  #held: Message[] = [];
  #startsInFlight = 0;
  #nextId = 0;
  #initialized: InitializeInfo | undefined;
  #initializeId: Id | undefined;
  #shutdownReceived = false;
  #closing: Promise<void> | undefined;
  /** Sends nobody awaits (answers to the server, cancels): close() lets them finish. */
  readonly #sending = new Set<Promise<void>>();
  readonly #streams: ExecutionStreams | undefined;

  constructor(connection: Connection, faults: ClientFaults, options: MockClientOptions = {}) {
    this.connection = connection;
    this.faults = faults;
    this.#options = options;
    const wt = connection.webtransport;
    if (wt) {
      this.#streams = new ExecutionStreams(wt, {
        isOwnRequest: (id) => this.#sentIds.has(id),
        acceptInjected: faults.has(F.acceptInjectedStream),
        note: (text) => this.#note(text),
      });
      void this.#readDatagrams();
    }
    options.signal?.addEventListener('abort', () => void this.close(), { once: true });
    void this.#dispatchLoop();
  }

  get initialized(): InitializeInfo | undefined {
    return this.#initialized;
  }

  /** Whether the server sent `$/shutdown`. */
  get shutdownReceived(): boolean {
    return this.#shutdownReceived;
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
    const id = this.#takeId();
    this.#initializeId = id;
    const params: Message = {
      protocolVersion: this.#options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
      capabilities: this.#options.capabilities ?? {},
    };
    if (!this.faults.has(F.initializeWithoutClientInfo)) params['clientInfo'] = this.#options.clientInfo ?? { name: 'mcp-flow-conformance mock-client', version: '0.1.0' };
    if (wt && !this.faults.has(F.noTransportExtension)) {
      const encodings = this.#options.encodings ?? ['cbor', 'json'];
      params['transport'] = { type: 'mcp-flow', version: '0.1', ...(encodings.length > 0 ? { encodings } : {}) };
    }
    const message = { jsonrpc: '2.0', id, method: 'initialize', params };
    const answer = this.#expect(id, 'initialize');
    // FAULT initialize-in-cbor: the frame goes out CBOR-encoded, bypassing the session's encoding state.
    if (wt && this.faults.has(F.initializeInCbor)) await this.connection.sendRaw(encodeFrame(cborCodec.encode(message)));
    else await this.connection.send(message);
    // FAULT send-before-initialize-result: tools/list before the initialize result arrived (a ping there is allowed, WT-CONN-5).
    if (wt && this.faults.has(F.sendBeforeInitializeResult)) await this.connection.send(this.#requestMessage(this.#takeId(), 'tools/list', {}));
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
    // FAULT cancel-unknown-request.
    if (wt && this.faults.has(F.cancelUnknownRequest)) await this.#send({ jsonrpc: '2.0', method: '$/cancel', params: { requestId: NEVER_SENT_ID } });
    return info;
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
    if (init.capabilities[capability] === undefined) return [];
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
    if (this.#shutdownReceived && !this.faults.has(F.requestsAfterShutdown)) {
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
    const answer = this.#expect(id, method, options.timeoutMs);
    if (onProgress) void answer.finally(() => this.#progress.delete(idKey(id))).catch(() => undefined);
    try {
      await this.#send(this.#requestMessage(id, method, params));
    } catch (error) {
      this.#take(id);
      throw error;
    }
    const signal = options.signal;
    if (!signal) return answer;
    return new Promise<Message>((resolve, reject) => {
      const onAbort = () => {
        this.#take(id);
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
  async callTool(name: string, args: Message = {}, options: CallOptions = {}): Promise<CallOutcome> {
    const outcome: CallOutcome = { ok: false, requestId: -1, streams: [], failures: [] };
    const download = options.download;
    try {
      const response = await this.request('tools/call', { name, arguments: args }, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        beforeSend: (id) => {
          outcome.requestId = id;
          // Before the request goes out: a stream may arrive before the result naming it (WT-EXEC-7).
          if (download && typeof id === 'number') this.#streams?.setSink(id, download);
        },
      });
      // The sink stays set until the streams are resolved: one may arrive after the result (WT-EXEC-7).
      return await this.#callOutcome(outcome, response);
    } catch (error) {
      if (options.signal?.aborted) {
        outcome.cancelled = true;
        outcome.failures.push(`tools/call ${name} was aborted${this.faults.has(F.noCancelOnAbort) ? '' : ' and cancelled'}`);
        return outcome;
      }
      throw error;
    } finally {
      if (typeof outcome.requestId === 'number') this.#streams?.clearSink(outcome.requestId);
    }
  }

  async #callOutcome(outcome: CallOutcome, response: Message): Promise<CallOutcome> {
    const result = record(response['result']);
    if (!result) {
      const error = record(response['error']) ?? {};
      outcome.error = error as CallOutcome['error'] & object;
      outcome.failures.push(`error ${String(error['code'] ?? '?')}: ${String(error['message'] ?? '')}`);
      return outcome;
    }
    outcome.result = result;
    if (result['isError'] === true) outcome.failures.push('the tool result has isError: true');
    if (typeof outcome.requestId === 'number') {
      outcome.streams = await this.#resolveStreams(outcome.requestId, refStreamItems(result['content']), outcome.failures);
    }
    outcome.ok = outcome.failures.length === 0;
    return outcome;
  }

  /** The streams `items` name for `requestId`: each must have arrived complete (and as long as announced). */
  async #resolveStreams(requestId: number, items: ReturnType<typeof refStreamItems>, failures: string[]): Promise<StreamOutcome[]> {
    const streams = this.#streams;
    if (!streams || items.length === 0) return [];
    const outcomes: StreamOutcome[] = [];
    for (const item of items) {
      const outcome = await streams.take(requestId, item.streamTag, this.#options.streamGraceMs ?? 1000);
      if (outcome === undefined) {
        // FAULT dangling-stream-ref-ignored: the result counts as complete.
        if (!this.faults.has(F.danglingStreamRefIgnored)) failures.push(`ref/stream names stream tag ${item.streamTag} of request ${requestId}, but no such stream came`);
        continue;
      }
      if (item.mimeType !== undefined) outcome.mimeType = item.mimeType;
      if (item.size !== undefined) checkLength(outcome, item.size);
      if (!outcome.complete || outcome.failure) failures.push(outcome.failure ?? `stream tag ${item.streamTag} did not complete`);
      outcomes.push(outcome);
    }
    return outcomes;
  }

  // ---- interactive sessions ---------------------------------------------------------------------

  /**
   * Runs one MCP Flow session: interaction.start, then each prompt (the initialPrompt, each
   * interaction.prompt, each interaction.continue nextPrompt) answered through `answerer` with
   * interaction.respond; a rejected value is asked again (attempt + 1, with the server's reason).
   * Aborting `signal`, or the answerer returning CANCEL, sends interaction.cancel.
   */
  async interact(toolName: string, initialParams: Message | undefined, answerer: Answerer, options: { signal?: AbortSignal } = {}): Promise<InteractionOutcome> {
    const outcome: InteractionOutcome = { status: 'failed', answers: 0, rejections: 0, streams: [], failures: [] };
    const signal = options.signal;
    const events = new SessionEvents();
    let start: Message;
    let startId: Id = -1;
    this.#startsInFlight++;
    try {
      start = await this.request('interaction.start', { toolName, ...(initialParams !== undefined ? { initialParams } : {}) }, {
        ...(signal ? { signal } : {}),
        beforeSend: (id) => void (startId = id),
      });
    } catch (error) {
      this.#startSettled();
      if (signal?.aborted) {
        outcome.status = 'cancelled';
        return outcome;
      }
      throw error;
    }
    const started = record(start['result']);
    const sessionId = started?.['sessionId'];
    if (!started || typeof sessionId !== 'string') {
      this.#startSettled();
      const error = record(start['error']);
      outcome.failures.push(error ? `interaction.start failed with error ${String(error['code'] ?? '?')}: ${String(error['message'] ?? '')}` : 'the interaction.start result has no string sessionId');
      return outcome;
    }
    outcome.sessionId = sessionId;
    this.#sessions.set(sessionId, events);
    this.#startSettled();
    const closedWatch = this.connection.closed.then(() => events.push({ kind: 'closed', error: new ConnectionClosedError('the connection closed during the interaction') }));
    void closedWatch;
    const initialPrompt = record(started['initialPrompt']);
    if (initialPrompt) events.push({ kind: 'prompt', prompt: initialPrompt, ...(record(started['progress']) ? { progress: record(started['progress'])! } : {}) });

    let current: Message | undefined;
    let state: AskState = { sessionId, attempt: 1 };
    const respondIds: number[] = [];
    try {
      for (;;) {
        if (signal?.aborted) return await this.#cancelInteraction(outcome, sessionId, 'cancelled by the user');
        const event = await events.next(this.#timeoutMs, signal);
        if (signal?.aborted) return await this.#cancelInteraction(outcome, sessionId, 'cancelled by the user');
        if (event === undefined) {
          outcome.failures.push(`the server sent no prompt or completion for session ${sessionId} within ${this.#timeoutMs} ms`);
          return outcome;
        }
        if (event.kind === 'closed') {
          outcome.failures.push(event.error.message);
          return outcome;
        }
        if (event.kind === 'complete') {
          outcome.status = 'completed';
          const result = record(event.params['result']);
          if (result) outcome.result = result;
          if (typeof event.params['summary'] === 'string') outcome.summary = event.params['summary'];
          outcome.finalResult = event.finalResult;
          if (result?.['success'] === false) outcome.failures.push('interaction.complete reports success: false');
          outcome.streams = await this.#sessionStreams(result, respondIds, outcome.failures);
          if (outcome.failures.length > 0) outcome.status = 'failed';
          return outcome;
        }
        const progress = event.progress;
        if (progress && typeof progress['current'] === 'number') {
          answerer.progress?.({
            requestId: startId,
            progress: progress['current'],
            ...(typeof progress['total'] === 'number' ? { total: progress['total'] } : {}),
            ...(typeof progress['message'] === 'string' ? { message: progress['message'] } : {}),
          });
        }
        current = event.prompt;
        let value: unknown;
        try {
          value = await answerer.ask(event.prompt, state);
        } catch (error) {
          if (signal?.aborted) throw error;
          outcome.failures.push(`no answer for the prompt: ${(error as Error).message}`);
          return outcome;
        }
        if (value === CANCEL) return await this.#cancelInteraction(outcome, sessionId, 'cancelled by the user');
        outcome.answers++;
        // FAULT respond-without-value.
        const response = this.faults.has(F.respondWithoutValue) ? { answer: value } : { value };
        const answered = await this.request('interaction.respond', { sessionId, response }, {
          beforeSend: (id) => {
            if (typeof id === 'number') respondIds.push(id);
          },
        });
        const result = record(answered['result']);
        if (!result) {
          const error = record(answered['error']);
          outcome.failures.push(`interaction.respond failed with error ${String(error?.['code'] ?? '?')}: ${String(error?.['message'] ?? '')}`);
          return outcome;
        }
        if (result['accepted'] === false) {
          outcome.rejections++;
          const validation = record(result['validation']) ?? {};
          state = {
            sessionId,
            attempt: state.attempt + 1,
            rejected: {
              ...(typeof validation['error'] === 'string' ? { message: validation['error'] } : {}),
              ...(validation['suggestion'] !== undefined ? { suggestion: validation['suggestion'] } : {}),
              ...(validation['errors'] !== undefined ? { errors: validation['errors'] } : {}),
            },
          };
          // FAULT no-retry-after-rejection.
          if (this.faults.has(F.noRetryAfterRejection)) {
            outcome.failures.push(`the value was rejected${state.rejected?.message ? `: ${state.rejected.message}` : ''}; not answering again (fault)`);
            return outcome;
          }
          // Wait (bounded) for the re-prompt; without one the kept prompt is answered again (FLOW-RESPOND-4 reading 2).
          if (!(await events.wait(this.#options.repromptGraceMs ?? 2000, signal))) events.push({ kind: 'prompt', prompt: current });
          continue;
        }
        state = { sessionId, attempt: 1 };
      }
    } catch (error) {
      if (signal?.aborted) return this.#cancelInteraction(outcome, sessionId, 'cancelled by the user');
      throw error;
    } finally {
      this.#sessions.delete(sessionId);
    }
  }

  async #cancelInteraction(outcome: InteractionOutcome, sessionId: string, reason: string): Promise<InteractionOutcome> {
    outcome.status = 'cancelled';
    try {
      const answer = await this.request('interaction.cancel', { sessionId, reason });
      if (!record(answer['result'])) outcome.failures.push(`interaction.cancel failed: ${JSON.stringify(answer['error'])}`);
    } catch (error) {
      outcome.failures.push(`interaction.cancel could not be sent: ${(error as Error).message}`);
    }
    return outcome;
  }

  /** A file announced by interaction.complete (result.data.file.stream) must have arrived, as long as its size says. */
  async #sessionStreams(result: Message | undefined, respondIds: number[], failures: string[]): Promise<StreamOutcome[]> {
    const file = record(record(result?.['data'])?.['file']);
    const stream = record(file?.['stream']);
    if (file && typeof file['content'] === 'string' && typeof file['size'] === 'number') {
      // An inline file: its size must match its content (UTF-8 text).
      const bytes = Buffer.byteLength(file['content'], 'utf8');
      if (bytes !== file['size']) failures.push(`interaction.complete carries a file of ${bytes} bytes inline, but its size says ${file['size']}`);
    }
    if (!this.#streams || !stream) return [];
    const requestId = stream['requestId'];
    const streamTag = stream['streamTag'];
    if (typeof requestId !== 'number' || typeof streamTag !== 'number' || !respondIds.includes(requestId)) {
      failures.push(`interaction.complete names stream ${JSON.stringify(stream)}, which is not a stream of this session's interaction.respond requests`);
      return [];
    }
    const outcome = await this.#streams.take(requestId, streamTag, this.#options.streamGraceMs ?? 1000);
    if (!outcome) {
      if (!this.faults.has(F.danglingStreamRefIgnored)) failures.push(`interaction.complete names stream tag ${streamTag} of request ${requestId}, but no such stream came`);
      return [];
    }
    if (typeof file?.['mimeType'] === 'string') outcome.mimeType = file['mimeType'];
    if (typeof file?.['size'] === 'number') checkLength(outcome, file['size']);
    if (!outcome.complete || outcome.failure) failures.push(outcome.failure ?? `stream tag ${streamTag} did not complete`);
    return [outcome];
  }

  #startSettled(): void {
    this.#startsInFlight--;
    if (this.#startsInFlight > 0) return;
    const held = this.#held;
    this.#held = [];
    for (const message of held) this.#background(this.#serve(message));
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
    const closed = new ConnectionClosedError('the connection closed before the answer came');
    for (const pending of [...this.#pending.values()]) {
      clearTimeout(pending.timer);
      pending.reject(closed);
    }
    this.#pending.clear();
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
      if ('id' in message) this.#background(this.#serve(message));
      else this.#onNotification(method, message);
      return;
    }
    const id = message['id'];
    if (typeof id === 'string' || typeof id === 'number') {
      this.#take(id)?.resolve(message);
      return;
    }
    if (!('error' in message)) return;
    this.#note(`the server reported an error about no request: ${JSON.stringify(message['error'])}`);
    // Before the initialize result, an error about no request means the initialize frame itself was refused.
    if (this.#initializeId !== undefined && !this.#initialized) this.#take(this.#initializeId)?.resolve({ ...message, id: this.#initializeId });
  }

  #onNotification(method: string, message: Message): void {
    const params = record(message['params']) ?? {};
    if (method === '$/shutdown') {
      this.#shutdownReceived = true;
      // FAULT requests-after-shutdown: a new request right after the server's $/shutdown.
      if (this.faults.has(F.requestsAfterShutdown) && this.#initialized) {
        this.#background(this.#send(this.#requestMessage(this.#takeId(), 'tools/list', {})));
      }
    } else if (method === '$/streamError') {
      const known = this.#streams?.onStreamError(params) ?? false;
      if (!known) {
        this.#note(`$/streamError for a request or stream this client does not know: ignored ${JSON.stringify(params)}`);
        // FAULT stream-error-answered.
        if (this.faults.has(F.streamErrorAnswered)) {
          this.#background(this.#send({ jsonrpc: '2.0', id: null, error: { code: -32602, message: 'Unknown stream in $/streamError' } }));
        }
      }
    } else if (method === 'notifications/progress') {
      const token = params['progressToken'];
      const handler = typeof token === 'string' || typeof token === 'number' ? this.#progress.get(idKey(token)) : undefined;
      if (handler && typeof params['progress'] === 'number') handler(progressUpdate(token as Id, params));
    }
    // FAULT notification-answered.
    if (this.faults.has(F.notificationAnswered) && method !== '$/streamError') {
      this.#background(this.#send({ jsonrpc: '2.0', id: null, error: { code: METHOD_NOT_FOUND, message: `Notification ${method} answered (fault)` } }));
    }
    this.#options.onNotification?.(message);
  }

  /** Serves one server-to-client request. */
  async #serve(message: Message): Promise<void> {
    const id = message['id'] as Id;
    const method = message['method'] as string;
    const params = record(message['params']) ?? {};
    const answer = (result: unknown) => this.#send({ jsonrpc: '2.0', id, result });
    const refuse = (code: number, text: string, data?: unknown) =>
      this.#send({ jsonrpc: '2.0', id, error: { code, message: text, ...(data !== undefined ? { data } : {}) } });
    const declared = this.#options.capabilities ?? {};
    try {
      switch (method) {
        case 'ping':
          // FAULT ping-unanswered.
          if (!this.faults.has(F.pingUnanswered)) await answer({});
          return;
        case 'interaction.prompt':
        case 'interaction.continue':
        case 'interaction.complete': {
          const sessionId = params['sessionId'];
          const events = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
          if (!events && this.#startsInFlight > 0) {
            // The prompt may overtake the interaction.start result that names its session.
            this.#held.push(message);
            return;
          }
          if (!events) {
            // FAULT unknown-session-prompt-acknowledged.
            if (this.faults.has(F.unknownSessionPromptAcknowledged) && method !== 'interaction.complete') await answer({ acknowledged: true });
            else await refuse(SESSION_NOT_FOUND, `Session not found: ${String(sessionId)}`, { sessionId });
            return;
          }
          if (method === 'interaction.complete') {
            const result = record(params['result']);
            // FAULT final-result-not-data.
            const finalResult = this.faults.has(F.finalResultNotData) ? { summary: params['summary'] ?? null } : result?.['data'];
            // FAULT complete-without-success.
            await answer(this.faults.has(F.completeWithoutSuccess) ? { finalResult } : { success: true, finalResult });
            events.push({ kind: 'complete', params, finalResult });
            return;
          }
          // FAULT continue-unacknowledged: the request goes unanswered.
          if (!(method === 'interaction.continue' && this.faults.has(F.continueUnacknowledged))) await answer({ acknowledged: true });
          const prompt = record(method === 'interaction.prompt' ? params['prompt'] : params['nextPrompt']);
          const progress = record(params['progress']);
          if (prompt) events.push({ kind: 'prompt', prompt, ...(progress ? { progress } : {}) });
          else if (typeof progress?.['message'] === 'string') this.#options.onNotification?.({ jsonrpc: '2.0', method: 'interaction.continue', params });
          return;
        }
        case 'sampling/createMessage':
          // FAULT sampling-served-undeclared.
          if (declared['sampling'] !== undefined || this.faults.has(F.samplingServedUndeclared)) {
            await answer({ role: 'assistant', content: { type: 'text', text: 'mock client sample' }, model: 'mock-client', stopReason: 'endTurn' });
          } else await refuse(METHOD_NOT_FOUND, 'Method not found: this client did not declare sampling');
          return;
        case 'roots/list':
          if (declared['roots'] !== undefined) await answer({ roots: [] });
          else await refuse(METHOD_NOT_FOUND, 'Method not found: this client did not declare roots');
          return;
        case 'elicitation/create':
          if (declared['elicitation'] !== undefined) await answer({ action: 'decline' });
          else await refuse(METHOD_NOT_FOUND, 'Method not found: this client did not declare elicitation');
          return;
        default:
          // interaction.start/respond/cancel/getState and capabilities are client-to-server (FLOW-CAP-9).
          // FAULT interaction-request-served.
          if (method.startsWith('interaction.') && this.faults.has(F.interactionRequestServed)) await answer({});
          else await refuse(METHOD_NOT_FOUND, `Method not found: ${method}`);
      }
    } catch (error) {
      this.#note(`could not answer ${method}: ${(error as Error).message}`);
    }
  }

  async #readDatagrams(): Promise<void> {
    const wt = this.connection.webtransport!;
    for (;;) {
      let datagram;
      try {
        datagram = await wt.nextDatagram();
      } catch {
        return;
      }
      const decoded = record(datagram.decoded);
      if (datagram.channel !== 0x01 || !decoded || typeof decoded['progress'] !== 'number') continue;
      const handler = this.#progress.get(idKey(datagram.requestId));
      handler?.(progressUpdate(datagram.requestId, decoded));
    }
  }

  // ---- sending ----------------------------------------------------------------------------------

  #takeId(): number {
    // FAULT request-id-reused: every request after initialize gets the same id.
    if (this.faults.has(F.requestIdReused) && this.#initialized) return 1;
    return this.#nextId++;
  }

  #requestMessage(id: Id, method: string, params: Message | undefined): Message {
    // FAULT jsonrpc-version-wrong.
    const jsonrpc = this.faults.has(F.jsonrpcVersionWrong) && this.#initialized ? '2' : '2.0';
    if (typeof id === 'number') this.#sentIds.add(id);
    return { jsonrpc, id, method, ...(params !== undefined ? { params } : {}) };
  }

  /** Registers the wait for response `id` (before the request goes out, so no answer is missed). */
  #expect(id: Id, method: string, timeoutMs = this.#timeoutMs): Promise<Message> {
    const answer = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#take(id);
        reject(new ConnectionTimeoutError(`the answer to ${method} (id ${String(id)})`, timeoutMs));
      }, timeoutMs);
      this.#pending.set(idKey(id), { method, timer, resolve, reject });
    });
    // A caller that gave up (abort, a failed send) must not leave an unhandled rejection behind.
    answer.catch(() => undefined);
    return answer;
  }

  /** Removes the wait for response `id` (its timer too); returns it if it was still pending. */
  #take(id: Id): PendingRequest | undefined {
    const pending = this.#pending.get(idKey(id));
    if (!pending) return undefined;
    this.#pending.delete(idKey(id));
    clearTimeout(pending.timer);
    return pending;
  }

  /** Runs a send nobody awaits; close() waits for it (bounded), failures become notes. */
  #background(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.#note(`could not send: ${(error as Error).message}`));
    this.#sending.add(tracked);
    void tracked.finally(() => this.#sending.delete(tracked));
  }

  async #send(message: Message): Promise<void> {
    const wt = this.connection.webtransport;
    // FAULT encoding-not-switched: JSON frames although CBOR was negotiated.
    if (wt && wt.encoding === 'cbor' && this.faults.has(F.encodingNotSwitched)) {
      await this.connection.sendRaw(encodeFrame(jsonCodec.encode(message)));
      return;
    }
    await this.connection.send(message);
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

}

function checkLength(outcome: StreamOutcome, expected: number): void {
  outcome.expectedBytes = expected;
  if (outcome.complete && outcome.bytes !== expected) {
    outcome.complete = false;
    outcome.failure = `stream tag ${outcome.streamTag} of request ${outcome.requestId} carried ${outcome.bytes} bytes, but ${expected} were announced`;
  }
}

function progressUpdate(requestId: Id, params: Message): { requestId: Id; progress: number; total?: number; message?: string } {
  return {
    requestId,
    progress: params['progress'] as number,
    ...(typeof params['total'] === 'number' ? { total: params['total'] } : {}),
    ...(typeof params['message'] === 'string' ? { message: params['message'] } : {}),
  };
}

function idKey(id: Id): string {
  return `${typeof id}:${String(id)}`;
}

function record(value: unknown): Message | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Message) : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
