// Streamable HTTP client connection (MCP 2025-03-26 / 2025-06-18 "Streamable HTTP" transport):
// every message is POSTed to the endpoint; answers come back as a JSON body or an SSE stream and are
// queued for `next()`. The session id and protocol version are learned from the initialize exchange.
// Here: the POST exchange, the GET event stream and the DELETE on close; a case's raw requests are
// raw-request.ts's, reading a body (whole or as SSE events) is body.ts's.
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { ArrivalQueue, receivedMessageLimits } from '../arrival-queue.js';
import { BoundedList } from '../bounded-list.js';
import type {
  CloseInfo,
  Connection,
  ConnectionFault,
  HttpFacet,
  HttpRefusal,
  NextOptions,
  RawHttpRequest,
  RawHttpResponse,
  ReceivedMessage,
} from '../connection.js';
import { ConnectFailedError, ConnectionClosedError, ConnectionError, ConnectionTimeoutError } from '../errors.js';
import { Transcript, type TranscriptChannel, type TranscriptOptions } from '../transcript.js';
import { flattenHeaders, hasHeader, mediaType, startExchange } from './exchange.js';
import { classifyMessage, decodeJsonBody } from './json-body.js';
import { bodyErrorCode, readBody, readSse, sseEventWithoutMessage } from './body.js';
import { rawRequest, type RawRequestLink } from './raw-request.js';
import type { SseEvent } from './sse.js';
import { encodeJsonMessage } from '../json-message.js';

/** Exchanges (and SSE streams) a connection may have open before Node warns of a listener leak. */
const MAX_OPEN_EXCHANGES = 1000;
/** Characters of a refused POST's body kept in its HttpRefusal. */
const REFUSAL_TEXT_CHARS = 2048;
/** Faults kept: the first and the latest this many each (a peer may cause them without end). */
const FAULTS_KEPT = 500;

export const SESSION_HEADER = 'Mcp-Session-Id';
export const PROTOCOL_VERSION_HEADER = 'MCP-Protocol-Version';
const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface HttpClientOptions {
  /** Headers added to every request (e.g. `Authorization` from `--header`). */
  headers?: Record<string, string>;
  /** Session id to send from the start (otherwise learned from the initialize response). */
  sessionId?: string;
  /** MCP-Protocol-Version to send from the start (otherwise learned from the initialize result). */
  protocolVersion?: string;
  /** Opens the GET SSE stream once `notifications/initialized` has been sent. Default false. */
  eventStream?: boolean;
  /** Sends DELETE for the session on close. Default true. */
  deleteSessionOnClose?: boolean;
  /** Default deadline of `http.request()` and of the DELETE on close. Default 30000 ms. */
  requestTimeoutMs?: number;
  /** Bodies (JSON or other) larger than this are cut off and reported as a fault (a raw `request()` fails with BodyTooLargeError). Default 64 MiB. */
  maxBodyBytes?: number;
  /**
   * SSE events (characters) longer than this are skipped and reported as a fault, as a stdio line
   * over its limit is; a raw `request()` reads at most this much of an event stream. Default 16 MiB.
   */
  maxEventBytes?: number;
  /** For https endpoints. */
  tls?: { ca?: string | Buffer; rejectUnauthorized?: boolean };
  transcript?: Transcript | TranscriptOptions;
}

/** The HTTP facet of a client connection: the interface's `request()` plus session control. */
export interface HttpClientFacet extends HttpFacet {
  readonly protocolVersion: string | undefined;
  /** Replaces the session id sent with later requests (`undefined`: send none). */
  setSessionId(sessionId: string | undefined): void;
  /** Replaces the MCP-Protocol-Version sent with later requests (`undefined`: send none). */
  setProtocolVersion(version: string | undefined): void;
  /**
   * Opens the GET SSE stream for server-initiated messages (queued like any other). Resolves with
   * the response status once the server answered (405 means the server offers no such stream).
   */
  openEventStream(): Promise<{ status: number }>;
}

/** Opens a Streamable HTTP client connection. No request is sent until the first `send`. */
export async function connectHttp(url: string | URL, options: HttpClientOptions = {}): Promise<HttpClientConnection> {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch (error) {
    throw new ConnectFailedError(`not a URL: ${JSON.stringify(String(url))}`, { cause: error });
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new ConnectFailedError(`Streamable HTTP needs an http: or https: URL, got ${endpoint.protocol}`);
  }
  return new HttpClientConnection(endpoint, options);
}

export class HttpClientConnection implements Connection {
  readonly kind = 'http' as const;
  readonly transcript: Transcript;
  readonly closed: Promise<CloseInfo>;
  readonly http: HttpClientFacet;
  readonly url: URL;

  readonly #options: HttpClientOptions;
  readonly #agent: http.Agent;
  readonly #queue = new ArrivalQueue<ReceivedMessage>('message', receivedMessageLimits((_item, dropped) => this.#droppedUnread(dropped)));
  readonly #faults = new BoundedList<ConnectionFault>(FAULTS_KEPT, FAULTS_KEPT);
  readonly #refusals: HttpRefusal[] = [];
  /** Aborts every exchange still running when the connection closes. */
  readonly #lifetime = new AbortController();
  readonly #background = new Set<Promise<void>>();
  /** Ids of initialize requests sent, to learn the protocol version from their results. */
  readonly #initializeIds = new Set<string | number>();
  #resolveClosed!: (info: CloseInfo) => void;
  #closing: Promise<void> | undefined;
  #isClosed = false;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #eventStreamOpened = false;

  constructor(url: URL, options: HttpClientOptions) {
    // Every open SSE response and exchange listens on the lifetime signal; a server that answers
    // each POST with an event stream keeps many open at once (not a leak).
    setMaxListeners(MAX_OPEN_EXCHANGES, this.#lifetime.signal);
    this.url = url;
    this.#options = options;
    this.transcript = options.transcript instanceof Transcript ? options.transcript : new Transcript(options.transcript);
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#sessionId = options.sessionId;
    this.#protocolVersion = options.protocolVersion;
    this.#agent =
      url.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, ca: options.tls?.ca, rejectUnauthorized: options.tls?.rejectUnauthorized ?? true })
        : new http.Agent({ keepAlive: true });
    const self = this;
    this.http = {
      get sessionId() {
        return self.#sessionId;
      },
      get protocolVersion() {
        return self.#protocolVersion;
      },
      setSessionId: (id) => {
        self.#sessionId = id;
      },
      setProtocolVersion: (version) => {
        self.#protocolVersion = version;
      },
      request: (request, requestOptions) => self.#request(request, requestOptions),
      refusals: () => self.#refusals,
      openEventStream: () => self.#openEventStream(),
    };
    this.transcript.event(`http client for ${url.href}`);
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  async send(message: unknown): Promise<void> {
    await this.#post(encodeJsonMessage(message), message);
    const kind = classifyMessage(message);
    if (this.#options.eventStream && kind.kind === 'notification' && kind.method === 'notifications/initialized') {
      await this.#openEventStream();
    }
  }

  async sendRaw(bytes: Uint8Array): Promise<void> {
    const decoded = decodeJsonBody(bytes);
    await this.#post(bytes, decoded.ok ? decoded.value : undefined);
  }

  next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage> {
    return this.#queue.next(predicate, options);
  }

  pending(): readonly ReceivedMessage[] {
    return this.#queue.pending();
  }

  faults(): readonly ConnectionFault[] {
    return this.#faults.items();
  }

  close(reason = 'closed by client'): Promise<void> {
    this.#closing ??= this.#close(reason);
    return this.#closing;
  }

  async #close(reason: string): Promise<void> {
    this.#isClosed = true;
    this.#lifetime.abort(new ConnectionClosedError(`connection closed: ${reason}`));
    await Promise.allSettled([...this.#background]);
    if (this.#sessionId !== undefined && this.#options.deleteSessionOnClose !== false) {
      await this.#deleteSession();
    }
    this.#agent.destroy();
    if (this.#queue.dropped > 0) this.transcript.event(`${this.#queue.dropped} messages were dropped unread (more than the queue keeps)`);
    this.transcript.event(`closed: ${reason}`);
    this.#queue.close(new ConnectionClosedError(`connection closed (${reason}) while waiting for a message`));
    this.#resolveClosed({ initiator: 'local', reason });
  }

  // ----- POST ----------------------------------------------------------------------------------

  /** Headers every protocol request carries (session and version as currently known). */
  #protocolHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.#sessionId !== undefined) headers[SESSION_HEADER] = this.#sessionId;
    if (this.#protocolVersion !== undefined) headers[PROTOCOL_VERSION_HEADER] = this.#protocolVersion;
    return { ...headers, ...this.#options.headers };
  }

  async #post(bytes: Uint8Array, decoded: unknown): Promise<void> {
    this.#assertOpen();
    const headers = { 'Content-Type': 'application/json', Accept: ACCEPT_BOTH, ...this.#protocolHeaders() };
    const requestIds: (string | number | null)[] = [];
    for (const item of Array.isArray(decoded) ? decoded : [decoded]) {
      const kind = classifyMessage(item);
      if (kind.kind !== 'request') continue;
      requestIds.push(kind.id);
      if (kind.method === 'initialize' && kind.id !== null) this.#initializeIds.add(kind.id);
    }
    const isInitialize = this.#initializeIds.size > 0 && containsInitialize(decoded);
    this.transcript.record({
      direction: 'sent',
      channel: { kind: 'http', method: 'POST', url: this.url.href, headers },
      bytes,
      decoded,
    });
    const exchange = startExchange({
      url: this.url,
      method: 'POST',
      headers,
      body: bytes,
      agent: this.#agent,
      signal: this.#lifetime.signal,
    });
    await exchange.written;
    this.#track(
      exchange.response.then(
        (response) => this.#consumePost(response, isInitialize, requestIds),
        (error: unknown) => this.#fault('HTTP_EXCHANGE_FAILED', `POST ${this.url.href}: ${(error as Error).message}`),
      ),
    );
  }

  /**
   * Reads the response to a message POST and queues every message in it. An HTTP error status is
   * the server's answer to the POST (kept in `refusals()`); its body is free, so only the JSON-RPC
   * messages in it are delivered and anything else is not a fault.
   */
  async #consumePost(response: IncomingMessage, learnSession: boolean, requestIds: (string | number | null)[]): Promise<void> {
    const status = response.statusCode ?? 0;
    const headers = flattenHeaders(response.headers);
    const sessionId = headers['mcp-session-id'];
    if (sessionId !== undefined && (learnSession || this.#sessionId === undefined) && status < 300) {
      this.#sessionId = sessionId;
    }
    const channel: TranscriptChannel = { kind: 'http', method: 'POST', url: this.url.href, status, headers };
    if (status >= 400) {
      await this.#consumeRefusal(response, channel, requestIds);
      return;
    }
    if (mediaType(headers['content-type']) === 'text/event-stream') {
      await this.#consumeStream(response, channel);
      return;
    }
    const body = await this.#readBodyOrFault(response, channel);
    if (body === undefined) return;
    if (body.byteLength === 0) {
      this.transcript.record({ direction: 'received', channel, note: `POST answered ${status} with no body` });
      return;
    }
    const decoded = decodeJsonBody(body);
    if (!decoded.ok) {
      this.transcript.record({ direction: 'received', channel, bytes: body, error: decoded.failure });
      this.#fault(decoded.failure.code, `POST answered ${status}: ${decoded.failure.message}`, channel, decoded.failure.jsonRpcCode);
      return;
    }
    this.transcript.record({ direction: 'received', channel, bytes: body, decoded: decoded.value });
    const items = Array.isArray(decoded.value) ? decoded.value : [decoded.value];
    for (const message of items) this.#deliver(message, channel);
  }

  /** A POST answered with an HTTP error status: recorded as a refusal; JSON-RPC messages in its body are delivered. */
  async #consumeRefusal(response: IncomingMessage, channel: TranscriptChannel & { kind: 'http' }, requestIds: (string | number | null)[]): Promise<void> {
    const status = channel.status ?? 0;
    const contentType = mediaType(channel.headers?.['content-type']);
    const body = (await this.#readBodyOrFault(response, channel)) ?? new Uint8Array();
    const text = new TextDecoder().decode(body);
    const decoded = body.byteLength > 0 ? decodeJsonBody(body) : undefined;
    const messages = decoded?.ok ? (Array.isArray(decoded.value) ? decoded.value : [decoded.value]).filter(isJsonRpcMessage) : [];
    this.#refusals.push({
      status,
      requestIds,
      contentType,
      text: text.slice(0, REFUSAL_TEXT_CHARS),
      carriedMessage: messages.length > 0,
      at: Date.now(),
    });
    const what = body.byteLength === 0 ? 'no body' : messages.length > 0 ? 'a JSON-RPC message' : `a ${contentType || 'untyped'} body that is no JSON-RPC message`;
    this.transcript.record({
      direction: 'received',
      channel,
      ...(body.byteLength > 0 ? { bytes: body } : {}),
      ...(decoded?.ok ? { decoded: decoded.value } : {}),
      note: `POST refused with HTTP ${status} and ${what}`,
    });
    for (const message of messages) this.#deliver(message, channel);
  }

  /** Reads an event stream (a POST's or the GET's) and queues every message in it. */
  async #consumeStream(response: IncomingMessage, channel: TranscriptChannel & { kind: 'http' }): Promise<void> {
    const method = channel.method ?? 'POST';
    this.transcript.record({ direction: 'received', channel, note: `${method} answered ${channel.status} with an SSE stream` });
    try {
      await readSse(response, this.#lifetime.signal, this.#maxEventBytes, (event) => this.#onSseEvent(event, channel), {
        onOverflow: (chars) => this.#sseEventTooLarge(chars, channel),
      });
      this.transcript.record({ direction: 'received', channel, note: 'SSE stream ended' });
    } catch (error) {
      if (!this.#lifetime.signal.aborted) {
        this.#fault('SSE_STREAM_FAILED', `${method} SSE stream broke: ${(error as Error).message}`, channel);
      }
    }
  }

  /** An SSE event over the body limit was skipped: a fault (its message, if any, is lost). */
  #sseEventTooLarge(chars: number, channel: TranscriptChannel): void {
    const error = { code: 'SSE_EVENT_TOO_LARGE', message: `an SSE event of at least ${chars} characters is over the limit of ${this.#maxEventBytes}; skipped` };
    this.transcript.record({ direction: 'received', channel, byteLength: chars, error });
    this.#fault(error.code, error.message, channel);
  }

  /** The queue dropped messages nobody took: said once in the transcript (and counted at close). */
  #droppedUnread(dropped: number): void {
    if (dropped === 1) this.transcript.event('more messages arrived unread than the queue keeps: the oldest unread ones are dropped from here on');
  }

  /** A whole body, or undefined after recording why it could not be read. */
  async #readBodyOrFault(response: IncomingMessage, channel: TranscriptChannel & { kind: 'http' }): Promise<Uint8Array | undefined> {
    try {
      return await readBody(response, this.#lifetime.signal, this.#maxBodyBytes, `${channel.method} ${channel.url}`);
    } catch (error) {
      if (!this.#lifetime.signal.aborted) this.#fault(bodyErrorCode(error), `${channel.method} body: ${(error as Error).message}`, channel);
      return undefined;
    }
  }

  #onSseEvent(event: SseEvent, channel: TranscriptChannel): void {
    const bytes = new TextEncoder().encode(event.raw);
    if (event.data === '') {
      // An event with an empty data field (MCP 2025-11-25: the priming event that carries only an
      // event id, and possibly retry) is part of the stream's plumbing, not a message.
      this.transcript.record({ direction: 'received', channel, bytes, note: sseEventWithoutMessage(event) });
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      const failure = { code: 'INVALID_JSON', message: `SSE event data is not JSON: ${(error as Error).message}` };
      this.transcript.record({ direction: 'received', channel, bytes, error: failure });
      this.#fault(failure.code, failure.message, channel, -32700);
      return;
    }
    this.transcript.record({ direction: 'received', channel, bytes, decoded: message });
    for (const item of Array.isArray(message) ? message : [message]) {
      this.#deliver(item, channel);
    }
  }

  /**
   * Queues a received message. Its body is not kept with it (ReceivedMessage.body): over Streamable
   * HTTP the body is JSON, whose every detail the decoded message and the transcript (first bytes,
   * SHA-256 of a long one) hold; a second copy of a large answer stayed alive as long as the message.
   */
  #deliver(message: unknown, channel: TranscriptChannel): void {
    const kind = classifyMessage(message);
    if (kind.kind === 'response' && kind.id !== null && this.#initializeIds.has(kind.id)) {
      const result = (message as { result?: { protocolVersion?: unknown } }).result;
      if (typeof result?.protocolVersion === 'string') this.#protocolVersion = result.protocolVersion;
    }
    const received: ReceivedMessage = { message, channel, at: Date.now(), encoding: 'json' };
    this.#queue.push(received);
  }

  // ----- GET stream, DELETE, raw requests ------------------------------------------------------

  async #openEventStream(): Promise<{ status: number }> {
    this.#assertOpen();
    if (this.#eventStreamOpened) throw new ConnectionError('EVENT_STREAM_OPEN', 'the GET SSE stream is already open');
    const headers = { Accept: 'text/event-stream', ...this.#protocolHeaders() };
    this.transcript.record({ direction: 'sent', channel: { kind: 'http', method: 'GET', url: this.url.href, headers } });
    // The stream lives as long as the connection; only the wait for its response head has a deadline.
    const timeoutMs = this.#options.requestTimeoutMs ?? 30_000;
    const opening = new AbortController();
    const timer = setTimeout(() => opening.abort(new ConnectionTimeoutError('the response to the GET stream request', timeoutMs)), timeoutMs);
    const exchange = startExchange({
      url: this.url,
      method: 'GET',
      headers,
      agent: this.#agent,
      signal: AbortSignal.any([this.#lifetime.signal, opening.signal]),
    });
    let response: IncomingMessage;
    try {
      response = await exchange.response;
    } finally {
      clearTimeout(timer);
    }
    const status = response.statusCode ?? 0;
    const responseHeaders = flattenHeaders(response.headers);
    const channel: TranscriptChannel & { kind: 'http' } = { kind: 'http', method: 'GET', url: this.url.href, status, headers: responseHeaders };
    if (status !== 200 || mediaType(responseHeaders['content-type']) !== 'text/event-stream') {
      // No stream (405: the server offers none). Whatever the body says, it is the answer to the
      // GET, not a message of the session: delivering it would pair it with the next request.
      this.#track(this.#recordNoStream(response, channel));
      return { status };
    }
    this.#eventStreamOpened = true;
    this.#track(
      this.#consumeStream(response, channel).finally(() => {
        this.#eventStreamOpened = false;
      }),
    );
    return { status };
  }

  /** The answer to a GET that opened no event stream: recorded, never delivered. */
  async #recordNoStream(response: IncomingMessage, channel: TranscriptChannel & { kind: 'http' }): Promise<void> {
    const body = (await this.#readBodyOrFault(response, channel)) ?? new Uint8Array();
    const decoded = body.byteLength > 0 ? decodeJsonBody(body) : undefined;
    this.transcript.record({
      direction: 'received',
      channel,
      ...(body.byteLength > 0 ? { bytes: body } : {}),
      ...(decoded?.ok ? { decoded: decoded.value } : {}),
      note: `GET answered ${channel.status} without an event stream${channel.status === 405 ? ' (the server offers none)' : ''}; its body is not a message`,
    });
  }

  async #deleteSession(): Promise<void> {
    const headers = { ...this.#protocolHeaders() };
    const channel: TranscriptChannel = { kind: 'http', method: 'DELETE', url: this.url.href, headers };
    this.transcript.record({ direction: 'sent', channel });
    const deadline = AbortSignal.timeout(this.#options.requestTimeoutMs ?? 30_000);
    try {
      const response = await startExchange({ url: this.url, method: 'DELETE', headers, agent: this.#agent, signal: deadline })
        .response;
      const body = await readBody(response, deadline, this.#maxBodyBytes, `DELETE ${this.url.href}`);
      this.transcript.record({
        direction: 'received',
        channel: { kind: 'http', method: 'DELETE', url: this.url.href, status: response.statusCode ?? 0, headers: flattenHeaders(response.headers) },
        bytes: body,
        note: `DELETE answered ${response.statusCode}`,
      });
    } catch (error) {
      this.transcript.event(`DELETE of the session failed: ${(error as Error).message}`);
    }
  }

  async #request(request: RawHttpRequest, options: NextOptions = {}): Promise<RawHttpResponse> {
    this.#assertOpen();
    const headers: Record<string, string> = {};
    if (!request.omitExtraHeaders) Object.assign(headers, this.#options.headers);
    if (!request.omitSessionId && this.#sessionId !== undefined && !hasHeader(request.headers ?? {}, SESSION_HEADER)) {
      headers[SESSION_HEADER] = this.#sessionId;
    }
    Object.assign(headers, request.headers);
    return rawRequest(this.#rawLink, request, headers, options);
  }

  get #rawLink(): RawRequestLink {
    return {
      url: this.url,
      agent: this.#agent,
      transcript: this.transcript,
      lifetime: this.#lifetime.signal,
      timeoutMs: this.#options.requestTimeoutMs ?? 30_000,
      maxEventBytes: this.#maxEventBytes,
      maxBodyBytes: this.#maxBodyBytes,
      onSseOverflow: (chars, channel) => this.#sseEventTooLarge(chars, channel),
    };
  }

  // ----- helpers -------------------------------------------------------------------------------

  get #maxEventBytes(): number {
    return this.#options.maxEventBytes ?? 16 * 1024 * 1024;
  }

  get #maxBodyBytes(): number {
    return this.#options.maxBodyBytes ?? 64 * 1024 * 1024;
  }

  #assertOpen(): void {
    if (this.#isClosed) throw new ConnectionClosedError('the HTTP connection is closed');
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.#fault('HTTP_EXCHANGE_FAILED', (error as Error).message));
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  #fault(code: string, message: string, channel: TranscriptChannel = { kind: 'http', url: this.url.href }, jsonRpcCode?: number): void {
    const fault: ConnectionFault = { code, message, channel, at: Date.now() };
    if (jsonRpcCode !== undefined) fault.jsonRpcCode = jsonRpcCode;
    this.#faults.push(fault);
    this.transcript.record({ direction: 'local', channel, error: { code, message } });
  }
}

/** A JSON-RPC request, notification or response (by shape, not by schema). */
function isJsonRpcMessage(value: unknown): boolean {
  return classifyMessage(value).kind !== 'invalid';
}

function containsInitialize(decoded: unknown): boolean {
  return (Array.isArray(decoded) ? decoded : [decoded]).some((item) => {
    const kind = classifyMessage(item);
    return kind.kind === 'request' && kind.method === 'initialize';
  });
}
