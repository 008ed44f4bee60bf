// One Streamable HTTP session on the server side, as a Connection: the client's messages arrive from
// the POSTs the endpoint (server.ts) hands it; each answer goes to the POST that carried its
// request (one JSON body, or an event stream once other messages went with it), anything else to
// an open POST that streams or to the GET stream. A session that stays idle expires.
import type http from 'node:http';
import { ArrivalQueue } from '../arrival-queue.js';
import type { CloseInfo, Connection, ConnectionFault, NextOptions, ReceivedMessage } from '../connection.js';
import { ConnectionClosedError, InvalidStateError } from '../errors.js';
import { isReadableId } from '../../wire/index.js';
import { Transcript, type TranscriptChannel, type TranscriptOptions } from '../transcript.js';
import { classifyMessage, jsonRpcError, type JsonRpcId } from './json-body.js';
import { encodeSseEvent } from './sse.js';

/** What a session takes of the listener's options. */
export interface HttpSessionOptions {
  /** How answers to a POST are sent (HttpServerOptions.responseMode). */
  responseMode?: 'auto' | 'json' | 'sse';
  transcript?: TranscriptOptions;
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

  readonly #options: HttpSessionOptions;
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

  constructor(sessionId: string, options: HttpSessionOptions) {
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

export function reply(res: http.ServerResponse, status: number, body: unknown, extra?: Record<string, string>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...extra });
  res.end(JSON.stringify(body));
}
