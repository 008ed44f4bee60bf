// The MCP Flow WebTransport server: accepts sessions on one path (HTTP/2 always, HTTP/3 with the
// optional addon), checks Origin and the session limit before accepting, and hands out each session
// as a Connection (session.ts) with the hooks of the layer above (what it admits before READY and
// answers initialize with: the mock server's binding, src/peer/server/binding.ts).
import { ArrivalQueue } from '../arrival-queue.js';
import type { NextOptions } from '../connection.js';
import { ConnectionClosedError, ConnectionError } from '../errors.js';
import { Transcript, type TranscriptOptions } from '../transcript.js';
import type { EncodingName } from '../../wire/index.js';
import { loadWebTransportLibrary, requireHttp3 } from './library.js';
import { sessionLimits, type WtSessionLimits } from './limits.js';
import { isOriginAllowed, type OriginPolicy } from './origin.js';
import { RECOMMENDED_BINDING_READINGS, type WtBindingReadings } from './readings.js';
import type { WtSessionHooks, WtSessionView } from './hooks.js';
import type { LibrarySession } from './library-session.js';
import { WebTransportSessionConnection } from './session.js';
import { generateSelfSignedCertificate, loadCertificateFiles, type TlsMaterial } from './tls.js';

export interface WebTransportServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** The session path. Default "/mcp". */
  path?: string;
  /** 2 (default; pure JavaScript) or 3 (needs the optional native addon). */
  http?: 2 | 3;
  /** Certificate and key: material, PEM file paths, or omitted for a fresh self-signed certificate. */
  tls?: TlsMaterial | { certFile: string; keyFile: string };
  /** Which Origin headers may open a session (default: loopback origins, or none sent); 'any' checks none. */
  origins?: OriginPolicy | 'any';
  /** Sessions open at once across the server; more are refused with 429. Default 64. */
  maxSessions?: number;
  /** Per-session limits (maxMessageSize and maxConcurrentStreams are also what is advertised; handshake deadline, idle expiry). */
  limits?: Partial<WtSessionLimits>;
  /** Encodings this server speaks. Default ["cbor", "json"]. */
  encodings?: EncodingName[];
  /** Advertised as datagramsSupported; when false, received datagrams are answered with -32004. */
  datagramsSupported?: boolean;
  /** Called with each accepted session; when given, `connections` yields nothing. */
  onConnection?: (connection: WebTransportSessionConnection) => void;
  transcript?: TranscriptOptions;
  /** The hooks of each session (hooks.ts): what the server admits before READY and answers initialize with. Default: none. */
  hooks?: (view: WtSessionView) => WtSessionHooks;
  /** Oldest TLS version accepted over HTTP/2 (WT-SEC-2 asks for 1.3; QUIC has nothing older). Default 'TLSv1.3'. */
  minTlsVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** Which accepted reading to take where the profile accepts several (readings.ts). Default: the recommended ones. */
  readings?: WtBindingReadings;
}

/** A session request the server refused before accepting it. */
export interface SessionRefusal {
  status: number;
  reason: 'origin' | 'path' | 'session-limit';
  origin: string | undefined;
  path: string | undefined;
  at: number;
}

export interface WebTransportServer {
  /** https://host:port/path */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly httpVersion: 2 | 3;
  readonly tls: TlsMaterial;
  /** SHA-256 of the certificate, hex (for `serverCertificateHashes`). */
  readonly certificateHash: string;
  /** Accepted sessions, in order (ends when the server closes). */
  readonly connections: AsyncIterable<WebTransportSessionConnection>;
  /** The next accepted session. */
  nextConnection(options?: NextOptions): Promise<WebTransportSessionConnection>;
  /** Session requests refused so far (Origin, path, session limit). */
  refusals(): readonly SessionRefusal[];
  /** Sessions currently open. */
  readonly activeSessions: number;
  /** Closes every session and stops listening. */
  close(): Promise<void>;
}

/** The server could not start listening (port in use, bad address...). */
export class ServerListenError extends ConnectionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERVER_LISTEN_FAILED', message, options);
  }
}

interface LibraryServer {
  startServer(): void;
  stopServer(): void;
  ready: Promise<void>;
  closed: Promise<void>;
  address(): { port: number; host: string } | null;
  setRequestCallback(callback: (request: { header: Record<string, unknown> }) => Promise<unknown>): void;
  sessionStream(path: string): ReadableStream<LibrarySession>;
  transportInt?: { serverInt?: import('node:http2').Http2SecureServer };
}

export async function listenWebTransport(options: WebTransportServerOptions = {}): Promise<WebTransportServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const httpVersion = options.http ?? 2;
  const maxSessions = options.maxSessions ?? 64;
  const limits = sessionLimits(options.limits);
  const readings = options.readings ?? RECOMMENDED_BINDING_READINGS;
  if (!path.startsWith('/')) throw new ServerListenError(`path must start with "/", got ${JSON.stringify(path)}`);
  if (httpVersion === 3) await requireHttp3();
  const tls = await resolveTls(options.tls);
  const library = await loadWebTransportLibrary();
  const ServerClass = httpVersion === 3 ? library.Http3Server : library.Http2Server;
  const server = new ServerClass({
    port: options.port ?? 0,
    host,
    secret: randomSecret(),
    cert: tls.certPem,
    privKey: tls.keyPem,
  } as never) as unknown as LibraryServer;

  const refusals: SessionRefusal[] = [];
  const queue = new ArrivalQueue<WebTransportSessionConnection>('WebTransport session');
  const active = new Set<WebTransportSessionConnection>();
  let pendingAccepts = 0;
  let closing = false;

  server.setRequestCallback(async ({ header }) => {
    const origin = typeof header['origin'] === 'string' ? header['origin'] : undefined;
    const requestPath = typeof header[':path'] === 'string' ? header[':path'].split('?')[0] : undefined;
    const refuse = (status: number, reason: SessionRefusal['reason']) => {
      refusals.push({ status, reason, origin, path: requestPath, at: Date.now() });
      return { status, path: requestPath ?? path };
    };
    if (requestPath !== path) return refuse(404, 'path');
    // Readings foreignOriginStatus (WT-SEC-1) and missingOrigin (WT-SEC-5).
    if (options.origins !== 'any') {
      const policy: OriginPolicy = readings.missingOrigin === 'refuse' ? { ...options.origins, allowMissing: false } : (options.origins ?? {});
      if (!isOriginAllowed(origin, policy)) return refuse(readings.foreignOriginStatus, 'origin');
    }
    if (closing || active.size + pendingAccepts >= maxSessions) return refuse(429, 'session-limit');
    pendingAccepts++;
    return { status: 200, path };
  });

  const sessions = server.sessionStream(path);
  server.startServer();
  try {
    await server.ready;
  } catch (error) {
    throw new ServerListenError(`cannot listen on ${host}:${options.port ?? 0}: ${(error as Error).message}`, { cause: error });
  }
  // WT-SEC-2: TLS 1.3 or newer. QUIC (HTTP/3) has nothing older; HTTP/2's TLS server defaults to 1.2.
  if (httpVersion === 2 && (options.minTlsVersion ?? 'TLSv1.3') === 'TLSv1.3') {
    server.transportInt?.serverInt?.setSecureContext({ cert: tls.certPem, key: tls.keyPem, minVersion: 'TLSv1.3' });
  }
  const address = server.address();
  if (!address) throw new ServerListenError('the server reported no address after listening');
  const port = address.port;

  // HTTP/2 sessions, so close() can end connections clients keep open, and the TCP connections
  // under them: destroying a session does not always destroy its socket (a half-closed TLS socket
  // can outlive it), and an open one keeps the process running.
  const sockets = new Set<import('node:http2').ServerHttp2Session>();
  const connections = new Set<import('node:net').Socket>();
  server.transportInt?.serverInt?.on('session', (session) => {
    sockets.add(session);
    session.once('close', () => sockets.delete(session));
  });
  server.transportInt?.serverInt?.on('connection', (socket: import('node:net').Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  void (async () => {
    const reader = sessions.getReader();
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch {
        return;
      }
      if (next.done) return;
      void accept(next.value);
    }
  })();

  /** Wraps one accepted session (each on its own, so a slow handshake holds up no other). */
  async function accept(session: LibrarySession): Promise<void> {
    try {
      await session.ready;
    } catch {
      pendingAccepts = Math.max(0, pendingAccepts - 1);
      return;
    }
    pendingAccepts = Math.max(0, pendingAccepts - 1);
    const connection = new WebTransportSessionConnection({
      role: 'server',
      session,
      httpVersion,
      limits,
      transcript: new Transcript(options.transcript),
      encodings: options.encodings ?? ['cbor', 'json'],
      datagramsSupported: options.datagramsSupported ?? true,
      ...(options.hooks ? { hooks: options.hooks } : {}),
      readings,
    });
    active.add(connection);
    void connection.closed.then(() => active.delete(connection));
    if (closing) {
      void connection.close('server closing');
      return;
    }
    if (options.onConnection) options.onConnection(connection);
    else queue.push(connection);
  }


  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  return {
    url,
    host,
    port,
    path,
    httpVersion,
    tls,
    certificateHash: tls.certificateHashHex,
    connections: {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          queue.next().then(
            (value) => ({ value, done: false as const }),
            (error: unknown) => {
              if (error instanceof ConnectionClosedError) return { value: undefined, done: true as const };
              throw error;
            },
          ),
      }),
    },
    nextConnection: (nextOptions) => queue.next(undefined, nextOptions),
    refusals: () => refusals,
    get activeSessions() {
      return active.size;
    },
    close: async () => {
      if (closing) return;
      closing = true;
      queue.close(new ConnectionClosedError('the WebTransport server closed'));
      await Promise.all([...active].map((connection) => connection.close('server closing')));
      server.stopServer();
      for (const socket of sockets) socket.destroy();
      for (const socket of connections) socket.destroy();
      await Promise.race([server.closed, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    },
  };
}

async function resolveTls(tls: WebTransportServerOptions['tls']): Promise<TlsMaterial> {
  if (tls === undefined) return generateSelfSignedCertificate();
  if ('certFile' in tls) return loadCertificateFiles(tls.certFile, tls.keyFile);
  return tls;
}

function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex');
}
