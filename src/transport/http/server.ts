// Streamable HTTP server endpoint for the mock server: hosts one MCP endpoint (default
// http://127.0.0.1:<port>/mcp), checks each request (path, Origin, method, MCP-Protocol-Version,
// session id, Accept, Content-Type, body size and JSON), caps the sessions open at once, and hands
// each MCP session to a handler as a server-side Connection (server-session.ts).
// Written on node:http rather than the SDK transport so that every byte is recorded and malformed
// input is answered with the JSON-RPC error it deserves instead of being dropped.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ConnectFailedError } from '../errors.js';
import { Transcript, type TranscriptChannel, type TranscriptOptions } from '../transcript.js';
import { flattenHeaders, mediaType } from './exchange.js';
import { classifyMessage, decodeJsonBody, jsonRpcError } from './json-body.js';
import { originAllowed, type OriginPolicy } from './origin.js';
import { HttpServerConnection, reply } from './server-session.js';

export { HttpServerConnection } from './server-session.js';

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
    // Requests refused before they reach a session keep nothing but their note, size and hash.
    this.transcript = new Transcript({ ...options.transcript, maxMessageBytes: 0, maxHexBytes: 0 });
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

