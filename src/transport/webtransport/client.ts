// The MCP Flow WebTransport client: opens a session and the control stream, and otherwise sends
// exactly what it is told (the harness breaks rules on purpose; the server must catch them).
import { ConnectFailedError, ConnectionTimeoutError, TlsConfigError } from '../errors.js';
import { Transcript, type TranscriptOptions } from '../transcript.js';
import type { ServerTransportCapabilities } from '../connection.js';
import { InvalidUrlError, SessionRefusedError } from './errors.js';
import { loadWebTransportLibrary, requireHttp3 } from './library.js';
import { probeWebTransportSession } from './probe.js';
import { sessionLimits, type WtSessionLimits } from './limits.js';
import type { WtSessionHooks, WtSessionView } from './hooks.js';
import type { LibrarySession } from './library-session.js';
import type { ClientErrorAnswers } from './session-core.js';
import { WebTransportSessionConnection } from './session.js';
import { loadCaFile, parseCertificateHash, type CertificateHash } from './tls.js';
import { verifyServerWithCa } from './ca-verify.js';

export interface WebTransportClientOptions {
  /** 2 (default) or 3 (needs the optional native addon). */
  http?: 2 | 3;
  /**
   * Pinned server certificate hash(es) (SHA-256, hex or bytes), as browsers' serverCertificateHashes.
   * Without one (and without `caFile`) the certificate must verify against Node's CA store.
   */
  certificateHash?: string | Uint8Array | ReadonlyArray<string | Uint8Array>;
  /**
   * PEM CA file to verify the server against (checked with a TLS handshake first; the verified
   * leaf is then pinned, or Node's store is used for leaves valid 14 days or more).
   */
  caFile?: string;
  /** Deadline for the session to be established. Default 10000 ms. */
  timeoutMs?: number;
  /** Open the control stream right away (001 §8 client checklist). Default true. */
  openControlStream?: boolean;
  /** Enforce nothing locally (datagrams when unsupported, streams during shutdown). Default false. */
  raw?: boolean;
  /** Local limits: maxMessageSize caps frames read and written; maxPendingBytes bounds buffering. */
  limits?: Partial<WtSessionLimits>;
  transcript?: Transcript | TranscriptOptions;
  /**
   * Answer binding errors as a server does (frames that do not decode, injected streams, dangling
   * `ref/stream`): what a real client does. Default false: the harness only records them.
   */
  answerErrors?: boolean | ClientErrorAnswers;
  /** The session's hooks (hooks.ts), e.g. the mock client's faults. */
  hooks?: (view: WtSessionView) => WtSessionHooks;
  /** Gets the library session once it is established (the mock client opens a stray bidirectional stream with it, a fault). */
  onSession?: (session: LibrarySession) => void;
}

/** Opens a WebTransport session to an MCP Flow server. */
export async function connectWebTransport(
  url: string,
  options: WebTransportClientOptions = {},
): Promise<WebTransportSessionConnection> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidUrlError(url, 'it does not parse as a URL');
  }
  if (parsed.protocol !== 'https:') throw new InvalidUrlError(url, 'WebTransport needs an https: URL');
  const httpVersion = options.http ?? 2;
  if (httpVersion === 3) await requireHttp3();
  let hashes = pinnedHashes(options.certificateHash);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (options.caFile !== undefined && hashes === undefined) {
    const verified = await verifyServerWithCa(parsed, await loadCaFile(options.caFile), timeoutMs);
    if (verified.pinnable) hashes = [{ algorithm: 'sha-256', value: verified.leafHash }];
  }
  const transcript = options.transcript instanceof Transcript ? options.transcript : new Transcript(options.transcript);
  const library = await loadWebTransportLibrary();
  let session: LibrarySession;
  try {
    session = new library.WebTransport(url, {
      ...(hashes ? { serverCertificateHashes: hashes } : {}),
      ...(httpVersion === 2 ? { forceReliable: true } : { requireUnreliable: true }),
      // The library gives the CONNECT exchange only 2 s of its own (8 s for the QUIC handshake): on
      // a loaded machine that ended sessions with "Opening handshake failed." Our deadline rules.
      quicConnectTimeout: timeoutMs,
      webTransportConnectTimeout: timeoutMs,
    } as never) as unknown as LibrarySession;
    // A refused handshake rejects `closed` as well as `ready`; the failure is reported through `ready`.
    session.closed.catch(() => undefined);
  } catch (error) {
    throw new ConnectFailedError(`cannot start a WebTransport session to ${url}: ${(error as Error).message}`, { cause: error });
  }
  transcript.event(`connecting to ${url} over HTTP/${httpVersion}`);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      session.ready,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new ConnectionTimeoutError(`the WebTransport session to ${url}`, timeoutMs)), timeoutMs);
      }),
    ]);
  } catch (error) {
    try {
      session.close({ closeCode: 0, reason: 'connect failed' });
    } catch {
      // nothing to close
    }
    if (error instanceof ConnectionTimeoutError) throw error;
    throw await describeConnectFailure(url, parsed, error, options.certificateHash, httpVersion, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
  options.onSession?.(session);
  const connection = new WebTransportSessionConnection({
    role: 'client',
    session,
    httpVersion,
    limits: sessionLimits(options.limits),
    transcript,
    raw: options.raw ?? false,
    ...(options.answerErrors !== undefined ? { answerErrors: options.answerErrors } : {}),
    ...(options.hooks !== undefined ? { hooks: options.hooks } : {}),
  });
  if (options.openControlStream ?? true) await connection.openControlStream();
  return connection;
}

export interface InitializeOptions {
  /** Encodings offered, in preference order. Default ["cbor", "json"]. Empty: omit the field. */
  encodings?: string[];
  protocolVersion?: string;
  clientInfo?: { name: string; version: string };
  capabilities?: Record<string, unknown>;
  /** Request id of the initialize request. Default 0. */
  id?: number | string;
  timeoutMs?: number;
  /** Also send notifications/initialized after the result. Default true. */
  sendInitialized?: boolean;
}

/** The initialize exchange of 001 §3 on a client connection; returns the server's transport capabilities. */
export async function initializeSession(
  connection: WebTransportSessionConnection,
  options: InitializeOptions = {},
): Promise<{ result: Record<string, unknown>; transport: ServerTransportCapabilities | undefined }> {
  const id = options.id ?? 0;
  const encodings = options.encodings ?? ['cbor', 'json'];
  await connection.send({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: options.protocolVersion ?? '2025-06-18',
      capabilities: options.capabilities ?? {},
      clientInfo: options.clientInfo ?? { name: 'mcp-flow-conformance', version: '0.1.0' },
      transport: { type: 'mcp-flow', version: '0.1', ...(encodings.length > 0 ? { encodings } : {}) },
    },
  });
  const answer = await connection.next((received) => (received.message as { id?: unknown })?.id === id, {
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  const message = answer.message as { result?: Record<string, unknown>; error?: { code?: number; message?: string } };
  if (!message.result) {
    throw new ConnectFailedError(
      `the server answered initialize with an error: ${message.error?.code ?? '?'} ${message.error?.message ?? ''}`.trim(),
    );
  }
  if (options.sendInitialized ?? true) await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { result: message.result, transport: connection.webtransport.serverCapabilities };
}

function pinnedHashes(hash: WebTransportClientOptions['certificateHash']): CertificateHash[] | undefined {
  if (hash === undefined) return undefined;
  const list = typeof hash === 'string' || hash instanceof Uint8Array ? [hash] : hash;
  if (list.length === 0) throw new TlsConfigError('certificateHash was given as an empty list');
  return list.map((item) => parseCertificateHash(item));
}

async function describeConnectFailure(
  url: string,
  target: URL,
  error: unknown,
  certificateHash: WebTransportClientOptions['certificateHash'],
  httpVersion: 2 | 3,
  timeoutMs: number,
): Promise<Error> {
  const detail = error instanceof Error ? error.message : String(error);
  const pinned = certificateHash !== undefined;
  if (/certificate|hash|authoriz/i.test(detail)) {
    return new TlsConfigError(
      pinned
        ? `the server certificate at ${url} does not match the pinned hash (or is valid for 14 days or more): ${detail}`
        : `the server certificate at ${url} is not trusted (pin its hash, or give its CA with caFile / NODE_EXTRA_CA_CERTS): ${detail}`,
      { cause: error },
    );
  }
  // The library drops the HTTP status of a refused CONNECT; over HTTP/2 ask again with the same
  // headers it sends (its Origin is the host name) to learn it.
  if (httpVersion === 2 && /handshake/i.test(detail)) {
    const first = typeof certificateHash === 'string' || certificateHash instanceof Uint8Array ? certificateHash : certificateHash?.[0];
    let probe: Awaited<ReturnType<typeof probeWebTransportSession>> | undefined;
    try {
      probe = await probeWebTransportSession(url, { origin: target.hostname, certificateHash: first, timeoutMs });
    } catch (probeError) {
      if (probeError instanceof TlsConfigError) {
        return new TlsConfigError(`${probeError.message} (pinned certificateHash)`, { cause: error });
      }
    }
    if (probe && probe.status !== 200) {
      return new SessionRefusedError(probe.status, `the server refused the WebTransport session to ${url} (HTTP ${probe.status})`, { cause: error });
    }
  }
  return new ConnectFailedError(`cannot establish a WebTransport session to ${url}: ${detail}`, { cause: error });
}
