// Streamable HTTP server endpoint for the mock server: hosts one MCP endpoint (default
// http://127.0.0.1:<port>/mcp) and hands each MCP session to a handler as a server-side Connection.
// Written on node:http rather than the SDK transport so that every byte is recorded and malformed
// input is answered with the JSON-RPC error it deserves instead of being dropped.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ArrivalQueue } from '../arrival-queue.js';
import type { CloseInfo, Connection, ConnectionFault, NextOptions, ReceivedMessage } from '../connection.js';
import { ConnectFailedError, ConnectionClosedError, InvalidStateError } from '../errors.js';
import { isReadableId } from '../../wire/index.js';
import { Transcript, type TranscriptChannel, type TranscriptOptions } from '../transcript.js';
import { flattenHeaders, mediaType } from './exchange.js';
import { classifyMessage, decodeJsonBody, jsonRpcError, type JsonRpcId } from './json-body.js';
import { originAllowed, type OriginPolicy } from './origin.js';
import { encodeSseEvent } from './sse.js';

/** The protocol versions whose MCP-Protocol-Version header is accepted by default. */
export const DEFAULT_PROTOCOL_VERSIONS: readonly string[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

export interface HttpServerOptions {
  /** Called once per new MCP session, before its initialize request is queued. */
  onSession: (connection: HttpServerConnection) => void;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default /mcp. */
  path?: string;
  /** Which Origin headers are allowed (403 otherwise). Default 'loopback'. */
  allowedOrigins?: OriginPolicy;
  /** Largest POST body accepted (413 otherwise). Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * How answers to a POST are sent: 'json' (one JSON body), 'sse' (an event stream whenever the
   * request accepts it) or 'auto' (JSON unless the handler sends other messages while the request
   * is open, which switches that POST to an event stream). Default 'auto'.
   */
  responseMode?: 'auto' | 'json' | 'sse';
  /** POSTs must accept both application/json and text/event-stream (406 otherwise). Default true. */
  requireBothAcceptTypes?: boolean;
  /** MCP-Protocol-Version values accepted (400 otherwise); false skips the check. */
  supportedProtocolVersions?: readonly string[] | false;
  /** Sessions open at once; an initialize that would open one more is refused with 429. Default 64. */
  maxSessions?: number;
  /** A session that got no request and sent nothing this long, with no POST still owed an answer, ends (later requests get 404); 0: never. Default 600000 ms. */
  sessionIdleTimeoutMs?: number;
  /** Offer the GET SSE stream (405 otherwise). Default true. */
  allowGetStream?: boolean;
  /** Let clients end sessions with DELETE (405 otherwise). Default true. */
  allowDelete?: boolean;
  /** Options of each session's transcript and of the listener's own transcript. */
  transcript?: TranscriptOptions;
}

export interface HttpListener {
  /** The endpoint URL, e.g. http://127.0.0.1:54321/mcp. */
  readonly url: string;
  readonly port: number;
  /** Requests refused before they reached a session (no session, bad origin, ...). */
  readonly transcript: Transcript;
  sessions(): readonly HttpServerConnection[];
  /** Closes every session and the listening socket. */
  close(): Promise<void>;
}

export async function listenHttp(options: HttpServerOptions): Promise<HttpListener> {
  const endpoint = new HttpEndpoint(options);
  const server = http.createServer((req, res) => endpoint.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConnectFailedError(`cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${error.code ?? error.message}`, { cause: error })),
    );
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}${endpoint.path}`,
    port: address.port,
    transcript: endpoint.transcript,
    sessions: () => [...endpoint.sessions.values()],
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...endpoint.sessions.values()].map((session) => session.close('server shutting down')));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })()),
  };
}

const SESSION_HEADER = 'mcp-session-id';
const DEFAULT_MAX_SESSIONS = 64;
const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 600_000;

class HttpEndpoint {
  readonly path: string;
  readonly transcript: Transcript;
  readonly sessions = new Map<string, HttpServerConnection>();
  readonly #options: HttpServerOptions;

  constructor(options: HttpServerOptions) {
    this.#options = options;
    this.path = options.path ?? '/mcp';
    this.transcript = new Transcript(options.transcript);
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.#handle(req, res).catch((error: unknown) => {
      this.transcript.event(`request handling failed: ${(error as Error).message}`);
      if (!res.headersSent) reply(res, 500, jsonRpcError(null, -32603, 'Internal error'));
      else res.destroy();
    });
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const headers = flattenHeaders(req.headers);
    const method = req.method ?? 'GET';
    const channel: TranscriptChannel = { kind: 'http', method, url: req.url ?? '', headers };
    const pathname = new URL(req.url ?? '/', 'http://endpoint').pathname;
    const refuse = (status: number, code: number, message: string, recordOn: Transcript = this.transcript, extra?: Record<string, string>) => {
      recordOn.record({ direction: 'received', channel, note: `refused with ${status}: ${message}` });
      reply(res, status, jsonRpcError(null, code, message), extra);
      req.resume();
    };
    if (pathname !== this.path) return refuse(404, -32000, `Not Found: the MCP endpoint is ${this.path}`);
    if (!originAllowed(headers.origin, this.#options.allowedOrigins ?? 'loopback')) {
      return refuse(403, -32000, `Forbidden: origin ${JSON.stringify(headers.origin)} is not allowed`);
    }
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return refuse(405, -32000, `Method Not Allowed: ${method}`, this.transcript, { Allow: this.#allowedMethods() });
    }
    const versions = this.#options.supportedProtocolVersions ?? DEFAULT_PROTOCOL_VERSIONS;
    const version = headers['mcp-protocol-version'];
    if (version !== undefined && versions !== false && !versions.includes(version)) {
      return refuse(400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${versions.join(', ')})`);
    }
    const sessionId = headers[SESSION_HEADER];
    const session = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (sessionId !== undefined && !session) return refuse(404, -32001, 'Session not found');
    session?.touch();
    const on = session?.transcript ?? this.transcript;

    if (method === 'GET') {
      if (this.#options.allowGetStream === false) return refuse(405, -32000, 'Method Not Allowed: no GET stream', on, { Allow: this.#allowedMethods() });
      if (!acceptsType(headers.accept, 'text/event-stream')) {
        session?.fault('NOT_ACCEPTABLE', 'GET without Accept: text/event-stream', channel);
        return refuse(406, -32000, 'Not Acceptable: the GET stream needs Accept: text/event-stream', on);
      }
      if (!session) return refuse(400, -32000, 'Bad Request: Mcp-Session-Id header is required', on);
      if (session.hasEventStream) return refuse(409, -32000, 'Conflict: only one GET stream per session', on);
      session.transcript.record({ direction: 'received', channel, note: 'GET stream requested' });
      session.openEventStream(res, req);
      return;
    }

    if (method === 'DELETE') {
      if (this.#options.allowDelete === false) return refuse(405, -32000, 'Method Not Allowed: sessions cannot be deleted', on, { Allow: this.#allowedMethods() });
      if (!session) return refuse(400, -32000, 'Bad Request: Mcp-Session-Id header is required', on);
      session.transcript.record({ direction: 'received', channel, note: 'DELETE' });
      res.writeHead(200).end();
      req.resume();
      this.sessions.delete(session.sessionId);
      await session.end({ initiator: 'remote', reason: 'session deleted by the client (HTTP DELETE)' });
      return;
    }

    // POST
    const accept = headers.accept;
    const acceptsJson = acceptsType(accept, 'application/json');
    const acceptsSse = acceptsType(accept, 'text/event-stream');
    const requireBoth = this.#options.requireBothAcceptTypes ?? true;
    if (requireBoth ? !(acceptsJson && acceptsSse) : !(acceptsJson || acceptsSse)) {
      session?.fault('NOT_ACCEPTABLE', `POST with Accept ${JSON.stringify(accept ?? '')}`, channel);
      return refuse(406, -32000, 'Not Acceptable: the client must accept both application/json and text/event-stream', on);
    }
    if (mediaType(headers['content-type']) !== 'application/json') {
      session?.fault('UNSUPPORTED_MEDIA_TYPE', `POST with Content-Type ${JSON.stringify(headers['content-type'] ?? '')}`, channel);
      return refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json', on);
    }
    const limit = this.#options.maxBodyBytes ?? 4 * 1024 * 1024;
    const body = await readRequestBody(req, limit);
    if (body === 'too-large') {
      session?.fault('BODY_TOO_LARGE', `POST body over ${limit} bytes`, channel);
      on.record({ direction: 'received', channel, note: `refused with 413: body over ${limit} bytes` });
      reply(res, 413, jsonRpcError(null, -32000, `Payload Too Large: the limit is ${limit} bytes`), { Connection: 'close' });
      return;
    }
    if (body === 'aborted') {
      on.record({ direction: 'received', channel, note: 'client aborted the request body' });
      return;
    }
    const decoded = decodeJsonBody(body);
    if (!decoded.ok) {
      on.record({ direction: 'received', channel, bytes: body, error: decoded.failure });
      session?.fault(decoded.failure.code, decoded.failure.message, channel, decoded.failure.jsonRpcCode);
      const answer = jsonRpcError(null, decoded.failure.jsonRpcCode, `Parse error: ${decoded.failure.message}`);
      session?.recordSent(answer, 400);
      reply(res, 400, answer, session ? { 'Mcp-Session-Id': session.sessionId } : undefined);
      return;
    }
    const items = Array.isArray(decoded.value) ? decoded.value : [decoded.value];
    const initialize = items.some((item) => {
      const kind = classifyMessage(item);
      return kind.kind === 'request' && kind.method === 'initialize';
    });
    if (Array.isArray(decoded.value) && (items.length === 0 || (initialize && items.length > 1))) {
      on.record({ direction: 'received', channel, bytes: body, decoded: decoded.value });
      const why = items.length === 0 ? 'an empty batch' : 'initialize must not be part of a batch';
      session?.fault('INVALID_BATCH', why, channel, -32600);
      return refuse(400, -32600, `Invalid Request: ${why}`, on);
    }
    let target = session;
    if (!target) {
      if (!initialize) {
        on.record({ direction: 'received', channel, bytes: body, decoded: decoded.value });
        return refuse(400, -32000, 'Bad Request: Mcp-Session-Id header is required', on);
      }
      const maxSessions = this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS;
      if (this.sessions.size >= maxSessions) return refuse(429, -32000, `Too Many Requests: ${maxSessions} sessions are open already`);
      target = new HttpServerConnection(randomUUID(), this.#options);
      const opened = target;
      this.sessions.set(opened.sessionId, opened);
      void opened.closed.then(() => this.sessions.delete(opened.sessionId));
      opened.expireWhenIdle(this.#options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS, () => this.sessions.delete(opened.sessionId));
      this.#options.onSession(opened);
    }
    target.acceptPost(req, res, channel, body, decoded.value, { acceptsSse });
  }

  #allowedMethods(): string {
    const methods = ['POST'];
    if (this.#options.allowGetStream !== false) methods.unshift('GET');
    if (this.#options.allowDelete !== false) methods.push('DELETE');
    return methods.join(', ');
  }
}

/** One POST whose answers are still owed. */
interface PendingPost {
  res: http.ServerResponse;
  /** Answers still owed, by id key (a batch may repeat an id). */
  owed: Map<string, number>;
  answers: unknown[];
  isBatch: boolean;
  acceptsSse: boolean;
  streaming: boolean;
  done: boolean;
}

/** One MCP session on the server side: messages from the client arrive via `next()`. */
export class HttpServerConnection implements Connection {
  readonly kind = 'http' as const;
  readonly transcript: Transcript;
  readonly closed: Promise<CloseInfo>;
  /** The session id, from a cryptographically secure random UUID. */
  readonly sessionId: string;

  readonly #options: HttpServerOptions;
  readonly #queue = new ArrivalQueue<ReceivedMessage>('message');
  readonly #faults: ConnectionFault[] = [];
  readonly #posts: PendingPost[] = [];
  /** Server-to-client messages waiting for a GET stream. */
  readonly #parked: unknown[] = [];
  #eventStream: http.ServerResponse | undefined;
  #resolveClosed!: (info: CloseInfo) => void;
  #isClosed = false;
  /** When the client last sent a request, or this side a message (idle expiry). */
  #lastActivity = Date.now();
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(sessionId: string, options: HttpServerOptions) {
    this.sessionId = sessionId;
    this.#options = options;
    this.transcript = new Transcript(options.transcript);
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.transcript.event(`session ${sessionId} created`);
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  get hasEventStream(): boolean {
    return this.#eventStream !== undefined;
  }

  /**
   * Sends a message. A response goes to the POST that carried its request; any other message goes
   * to the newest open POST that can stream, else to the GET stream (kept until one opens).
   */
  async send(message: unknown): Promise<void> {
    this.#assertOpen();
    this.touch();
    const kind = classifyMessage(message);
    if (kind.kind === 'response' || (kind.kind === 'invalid' && hasAnswerShape(message))) {
      const post = this.#posts.find((candidate) => (candidate.owed.get(idKey(kind.id)) ?? 0) > 0);
      if (post) return this.#answer(post, message, kind.id);
      this.transcript.event(`no open POST owes an answer with id ${JSON.stringify(kind.id)}; using the GET stream`);
      return this.sendRelated(undefined, message);
    }
    const streamable = this.#options.responseMode !== 'json' ? [...this.#posts].reverse().find((post) => post.acceptsSse) : undefined;
    if (streamable) return this.#writeEvent(streamable, message);
    return this.sendRelated(undefined, message);
  }

  /**
   * Sends a non-response message on the POST that carried request `requestId` (switching it to an
   * event stream), or on the GET stream when `requestId` is undefined or no such POST is open.
   */
  async sendRelated(requestId: JsonRpcId | undefined, message: unknown): Promise<void> {
    this.#assertOpen();
    if (requestId !== undefined) {
      const post = this.#posts.find((candidate) => candidate.acceptsSse && candidate.owed.has(idKey(requestId)));
      if (post && this.#options.responseMode !== 'json') return this.#writeEvent(post, message);
    }
    if (this.#eventStream) {
      this.#writeSse(this.#eventStream, message, { kind: 'http', method: 'GET', status: 200 });
      return;
    }
    this.#parked.push(message);
    this.transcript.event('message kept until the client opens the GET stream');
  }

  /**
   * Writes bytes exactly as given: as the whole JSON body of the oldest open POST (which then counts
   * as answered), into its event stream if it streams, or into the GET stream.
   */
  async sendRaw(bytes: Uint8Array): Promise<void> {
    this.#assertOpen();
    const post = this.#posts[0];
    const channel: TranscriptChannel = { kind: 'http', method: post ? 'POST' : 'GET', status: 200 };
    if (post && !post.streaming) {
      post.done = true;
      this.#posts.splice(this.#posts.indexOf(post), 1);
      this.transcript.record({ direction: 'sent', channel, bytes });
      post.res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': this.sessionId });
      post.res.end(Buffer.from(bytes));
      return;
    }
    const stream = post?.res ?? this.#eventStream;
    if (!stream) throw new InvalidStateError('sendRaw needs an open POST or GET stream to write to');
    this.transcript.record({ direction: 'sent', channel, bytes });
    stream.write(Buffer.from(bytes));
  }

  next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage> {
    return this.#queue.next(predicate, options);
  }

  pending(): readonly ReceivedMessage[] {
    return this.#queue.pending();
  }

  faults(): readonly ConnectionFault[] {
    return this.#faults;
  }

  close(reason = 'closed by server'): Promise<void> {
    return this.end({ initiator: 'local', reason });
  }

  // ----- used by the endpoint ------------------------------------------------------------------

  /** The client sent a request on this session, or this side a message. */
  touch(): void {
    this.#lastActivity = Date.now();
  }

  /**
   * Ends the session once nothing crossed it for `timeoutMs` while no POST was still owed an
   * answer (`forget` drops it from the endpoint first, so later requests get 404); 0: never.
   */
  expireWhenIdle(timeoutMs: number, forget: () => void): void {
    if (timeoutMs <= 0) return;
    const check = () => {
      if (this.#isClosed) return;
      if (this.#posts.length > 0) this.touch();
      const idle = Date.now() - this.#lastActivity;
      if (idle < timeoutMs) {
        this.#idleTimer = setTimeout(check, timeoutMs - idle).unref();
        return;
      }
      forget();
      void this.end({ initiator: 'local', reason: `idle for ${timeoutMs} ms` });
    };
    this.#idleTimer = setTimeout(check, timeoutMs).unref();
  }

  /** Ends the session: open POSTs that are owed answers get 404, streams end. */
  async end(info: CloseInfo): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    clearTimeout(this.#idleTimer);
    for (const post of this.#posts.splice(0)) {
      post.done = true;
      if (post.streaming) post.res.end();
      else reply(post.res, 404, jsonRpcError(null, -32001, 'Session not found: the session ended'));
    }
    this.#eventStream?.end();
    this.#eventStream = undefined;
    this.transcript.event(`session ended: ${info.reason ?? info.initiator}`);
    this.#queue.close(new ConnectionClosedError(`session ${this.sessionId} ended (${info.reason ?? info.initiator})`));
    this.#resolveClosed(info);
  }

  fault(code: string, message: string, channel: TranscriptChannel, jsonRpcCode?: number): void {
    const fault: ConnectionFault = { code, message, channel, at: Date.now() };
    if (jsonRpcCode !== undefined) fault.jsonRpcCode = jsonRpcCode;
    this.#faults.push(fault);
  }

  recordSent(message: unknown, status: number): void {
    this.transcript.record({
      direction: 'sent',
      channel: { kind: 'http', method: 'POST', status },
      bytes: new TextEncoder().encode(JSON.stringify(message)),
      decoded: message,
    });
  }

  /** Takes a decoded POST body: queues its messages and keeps the response open for the answers. */
  acceptPost(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    channel: TranscriptChannel,
    body: Uint8Array,
    value: unknown,
    accepts: { acceptsSse: boolean },
  ): void {
    this.transcript.record({ direction: 'received', channel, bytes: body, decoded: value });
    if (this.#isClosed) {
      reply(res, 404, jsonRpcError(null, -32001, 'Session not found: the session ended'));
      return;
    }
    const isBatch = Array.isArray(value);
    const items: unknown[] = isBatch ? value : [value];
    const post: PendingPost = {
      res,
      owed: new Map(),
      answers: [],
      isBatch,
      acceptsSse: accepts.acceptsSse,
      streaming: false,
      done: false,
    };
    const toQueue: unknown[] = [];
    for (const item of items) {
      const kind = classifyMessage(item);
      if (kind.kind === 'invalid') {
        this.fault('INVALID_MESSAGE', `Invalid Request: ${kind.reason}`, channel, -32600);
        post.answers.push(jsonRpcError(kind.id, -32600, `Invalid Request: ${kind.reason}`));
        continue;
      }
      if (kind.kind === 'request' && kind.id !== null && !isReadableId(kind.id)) {
        // An id no answer could name (a fraction, an integer past 2^53): answered here with id null,
        // on this POST (the session's answer, id null, would find no POST that owes it).
        const reason = `id ${JSON.stringify(kind.id)} is not a string or an integer`;
        this.fault('INVALID_MESSAGE', `Invalid Request: ${reason}`, channel, -32600);
        post.answers.push(jsonRpcError(null, -32600, `Invalid Request: ${reason}`));
        continue;
      }
      if (kind.kind === 'request') post.owed.set(idKey(kind.id), (post.owed.get(idKey(kind.id)) ?? 0) + 1);
      toQueue.push(item);
    }
    if (post.owed.size === 0) {
      if (post.answers.length > 0) {
        const answer = isBatch ? post.answers : post.answers[0];
        this.recordSent(answer, 400);
        reply(res, 400, answer, { 'Mcp-Session-Id': this.sessionId });
      } else {
        this.transcript.record({ direction: 'sent', channel: { kind: 'http', method: 'POST', status: 202 }, note: 'accepted' });
        res.writeHead(202, { 'Mcp-Session-Id': this.sessionId }).end();
      }
    } else {
      this.#posts.push(post);
      res.on('close', () => {
        if (post.done) return;
        post.done = true;
        const at = this.#posts.indexOf(post);
        if (at >= 0) this.#posts.splice(at, 1);
        this.transcript.event('the client closed a POST before all its answers were sent');
      });
      if (this.#options.responseMode === 'sse' && post.acceptsSse) this.#startStream(post);
    }
    const bytes = isBatch ? undefined : body;
    for (const message of toQueue) {
      const received: ReceivedMessage = { message, channel, at: Date.now(), encoding: 'json' };
      if (bytes) received.body = bytes;
      this.#queue.push(received);
    }
    req.resume();
  }

  openEventStream(res: http.ServerResponse, req: http.IncomingMessage): void {
    this.#eventStream = res;
    res.writeHead(200, sseHeaders(this.sessionId));
    res.flushHeaders();
    res.on('close', () => {
      if (this.#eventStream === res) this.#eventStream = undefined;
      this.transcript.event('GET stream closed');
    });
    req.resume();
    for (const message of this.#parked.splice(0)) this.#writeSse(res, message, { kind: 'http', method: 'GET', status: 200 });
  }

  // ----- answering -----------------------------------------------------------------------------

  #answer(post: PendingPost, message: unknown, id: JsonRpcId): void {
    const key = idKey(id);
    const left = (post.owed.get(key) ?? 0) - 1;
    if (left > 0) post.owed.set(key, left);
    else post.owed.delete(key);
    if (post.streaming) {
      this.#writeSse(post.res, message, { kind: 'http', method: 'POST', status: 200 });
    } else {
      post.answers.push(message);
    }
    if (post.owed.size > 0) return;
    post.done = true;
    this.#posts.splice(this.#posts.indexOf(post), 1);
    if (post.streaming) {
      post.res.end();
      return;
    }
    const answer = post.isBatch ? post.answers : post.answers[0];
    const bytes = new TextEncoder().encode(JSON.stringify(answer));
    this.transcript.record({ direction: 'sent', channel: { kind: 'http', method: 'POST', status: 200 }, bytes, decoded: answer });
    post.res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': this.sessionId });
    post.res.end(Buffer.from(bytes));
  }

  #writeEvent(post: PendingPost, message: unknown): void {
    if (!post.streaming) this.#startStream(post);
    this.#writeSse(post.res, message, { kind: 'http', method: 'POST', status: 200 });
  }

  /** Switches a POST to an event stream; answers already collected go out first. */
  #startStream(post: PendingPost): void {
    post.streaming = true;
    post.res.writeHead(200, sseHeaders(this.sessionId));
    post.res.flushHeaders();
    for (const answer of post.answers.splice(0)) this.#writeSse(post.res, answer, { kind: 'http', method: 'POST', status: 200 });
  }

  #writeSse(res: http.ServerResponse, message: unknown, channel: TranscriptChannel): void {
    const text = encodeSseEvent({ event: 'message', data: JSON.stringify(message) });
    const bytes = new TextEncoder().encode(text);
    this.transcript.record({ direction: 'sent', channel, bytes, decoded: message });
    res.write(Buffer.from(bytes));
  }

  #assertOpen(): void {
    if (this.#isClosed) throw new ConnectionClosedError(`session ${this.sessionId} has ended`);
  }
}

function idKey(id: JsonRpcId): string {
  return JSON.stringify(id);
}

/** A message with `id` and `result`/`error` that failed JSON-RPC shape checks (still an answer). */
function hasAnswerShape(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'id' in message && ('result' in message || 'error' in message);
}

function sseHeaders(sessionId: string): Record<string, string> {
  return {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'Mcp-Session-Id': sessionId,
  };
}

function reply(res: http.ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...extra });
  res.end(JSON.stringify(body));
}

/** Whether an Accept header lists this media type (or a wildcard covering it). */
function acceptsType(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const [major] = type.split('/');
  return accept
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .some((range) => range === type || range === '*/*' || range === `${major}/*`);
}

/** Reads a request body up to `limit` bytes. */
function readRequestBody(req: http.IncomingMessage, limit: number): Promise<Uint8Array | 'too-large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (value: Uint8Array | 'too-large' | 'aborted') => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      total += chunk.byteLength;
      if (total > limit) {
        settle('too-large');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle(Buffer.concat(chunks)));
    req.on('error', () => settle('aborted'));
    req.on('close', () => settle(req.complete ? Buffer.concat(chunks) : 'aborted'));
  });
}

