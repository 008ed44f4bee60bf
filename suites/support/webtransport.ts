// Support for the WebTransport binding cases (framing, injection, stream-limits): raw control-stream
// frames in the encoding in force, waits for binding errors, and what a case needs beyond its own
// connection: the target's certificate (learnt from a TLS handshake, to reach it again), a second
// session, a bare library session whose control stream the case can end or reset, and the TLS
// version the target negotiates.
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { TargetPreconditionError, type CaseContext } from '../../src/harness/index.js';
import type { ReceivedMessage, ServerTransportCapabilities, WebTransportFacet } from '../../src/transport/connection.js';
import { ConnectFailedError, ConnectionError } from '../../src/transport/errors.js';
import { connectWebTransport, type WebTransportSessionConnection } from '../../src/transport/webtransport/index.js';
import { loadWebTransportLibrary } from '../../src/transport/webtransport/library.js';
import type { BidiStream, LibrarySession } from '../../src/transport/webtransport/session.js';
import { LATEST_PROTOCOL_VERSION } from '../../src/protocol/methods.js';
import { codecFor, isRecord } from '../../src/wire/index.js';
import { errorOf, request, type Message } from './session.js';

/** The WebTransport facet of the case's connection (cases here run on WebTransport only). */
export function wt(ctx: CaseContext): WebTransportFacet {
  const facet = ctx.connection.webtransport;
  if (!facet) throw new TargetPreconditionError('the case needs a WebTransport connection');
  return facet;
}

/** A 4-byte big-endian length prefix (any value, including 0 and lengths above the limit). */
export function lengthPrefix(length: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, length);
  return bytes;
}

/** Prefix + body, with the prefix taken from the body's length (0 allowed). */
export function frame(body: Uint8Array): Uint8Array {
  return concat([lengthPrefix(body.byteLength), body]);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** The body of `message` in the encoding in force on the case's control stream. */
export function bodyOf(ctx: CaseContext, message: unknown): Uint8Array {
  return codecFor(wt(ctx).encoding).encode(message);
}

/** A whole frame for `message` in the encoding in force. */
export function frameOf(ctx: CaseContext, message: unknown): Uint8Array {
  return frame(bodyOf(ctx, message));
}

export function pingRequest(id: number): Message {
  return request(id, 'ping');
}

/** True for an error response with id null (and, when given, one of `codes`). */
export function isNullIdError(message: unknown, codes?: readonly number[]): boolean {
  if (!isRecord(message) || 'method' in message || message.id !== null) return false;
  const error = errorOf(message);
  return error !== undefined && (codes === undefined || codes.includes(error.code as number));
}

/** True for any error response (with any id) carrying one of `codes`. */
export function isErrorWithCode(message: unknown, codes: readonly number[]): boolean {
  if (!isRecord(message) || 'method' in message) return false;
  const error = errorOf(message);
  return error !== undefined && codes.includes(error.code as number);
}

/**
 * The next received message matching `predicate` within `timeoutMs` (scaled), or undefined when
 * none came in time or the connection closed first. Never throws for the target's silence.
 */
export async function maybeNext(
  ctx: CaseContext,
  predicate: (received: ReceivedMessage) => boolean,
  timeoutMs: number,
): Promise<ReceivedMessage | undefined> {
  try {
    return await ctx.next(predicate, { timeoutMs });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof ConnectionError) return undefined;
    throw error;
  }
}

/** Messages already received that match `predicate` (left queued). */
export function pendingMatching(ctx: CaseContext, predicate: (message: unknown) => boolean): unknown[] {
  return ctx.connection.pending().filter((r) => predicate(r.message)).map((r) => r.message);
}

/** Whether the connection closes within `timeoutMs` (scaled); true at once when it already is. */
export async function closesWithin(ctx: CaseContext, timeoutMs: number): Promise<boolean> {
  if (ctx.connection.isClosed) return true;
  return raceTimeout(ctx, ctx.connection.closed.then(() => true), timeoutMs, false);
}

/** `promise`, or `fallback` after `timeoutMs` (scaled); bounded by the case's signal. */
export async function raceTimeout<T>(ctx: CaseContext, promise: Promise<T>, timeoutMs: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((resolve) => {
        timer = setTimeout(() => resolve(fallback), ctx.scaled(timeoutMs));
      }),
      new Promise<T>((_, reject) => {
        onAbort = () => reject(ctx.signal.reason);
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** Sends raw control-stream bytes; false when the connection closed before they went out. */
export async function sendRawQuietly(ctx: CaseContext, bytes: Uint8Array): Promise<boolean> {
  try {
    await ctx.connection.sendRaw(bytes);
    return true;
  } catch (error) {
    if (error instanceof ConnectionError) return false;
    throw error;
  }
}

/** `result.transport` of an initialize result, when it is an object. */
export function transportOf(initializeResult: Message): Partial<ServerTransportCapabilities> | undefined {
  return isRecord(initializeResult.transport) ? (initializeResult.transport as Partial<ServerTransportCapabilities>) : undefined;
}

/** A positive integer limit the server advertised, or undefined. */
export function advertisedLimit(initializeResult: Message, name: 'maxMessageSize' | 'maxConcurrentStreams'): number | undefined {
  const value = transportOf(initializeResult)?.[name];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Sends a ping and waits for its answer; returns whether a result came (no check recorded). */
export async function pingAnswered(ctx: CaseContext, id: number, timeoutMs = 5_000): Promise<boolean> {
  if (ctx.connection.isClosed) return false;
  try {
    await ctx.connection.send(pingRequest(id));
  } catch (error) {
    if (error instanceof ConnectionError) return false;
    throw error;
  }
  const answer = await maybeNext(ctx, (r) => isRecord(r.message) && !('method' in r.message) && r.message.id === id, timeoutMs);
  return answer !== undefined && isRecord(answer.message) && 'result' in answer.message;
}

// ---- reaching the target again ----------------------------------------------------------------

/** What a TLS handshake with the target's host and port showed. */
export interface TlsProbe {
  /** `TLSv1.3`, `TLSv1.2`... */
  protocol: string | null;
  /** SHA-256 of the leaf certificate, hex. */
  certificateHash: string;
  /** Days the leaf certificate is valid for in all. */
  validityDays: number;
}

/**
 * One TLS handshake (ALPN h2) with the target's host and port, without verifying the certificate:
 * the cases use it to learn the protocol version and the certificate they are talking to.
 * Rejects with ConnectFailedError when the handshake fails (e.g. a version the server refuses).
 */
export function probeTls(url: string, options: Pick<ConnectionOptions, 'minVersion' | 'maxVersion'> = {}, timeoutMs = 5_000): Promise<TlsProbe> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = tlsConnect({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 443),
      servername: /^[\d.]+$|:/.test(target.hostname) ? undefined : target.hostname,
      ALPNProtocols: ['h2'],
      rejectUnauthorized: false,
      ...options,
    } as ConnectionOptions);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ConnectFailedError(`no TLS handshake with ${target.host} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const certificate = socket.getPeerCertificate();
      const from = Date.parse(certificate.valid_from);
      const to = Date.parse(certificate.valid_to);
      resolve({
        protocol: socket.getProtocol(),
        certificateHash: (certificate.fingerprint256 ?? '').replace(/:/g, '').toLowerCase(),
        validityDays: (to - from) / 86_400_000,
      });
      socket.end();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(new ConnectFailedError(`TLS handshake with ${target.host} failed: ${error.message}`, { cause: error }));
    });
  });
}

/** The certificate hash to pin for another session to the target (undefined: rely on the CA store). */
async function pinFor(url: string): Promise<string | undefined> {
  const probe = await probeTls(url);
  // serverCertificateHashes only accepts short-lived certificates (14 days); others must verify normally.
  return probe.validityDays < 14 ? probe.certificateHash : undefined;
}

/** The target's WebTransport URL (the case's target description). */
export function targetUrl(ctx: CaseContext): string {
  return ctx.target.description;
}

/**
 * A second WebTransport session to the target, with its control stream open (not initialized).
 * The caller closes it. A target that refuses it is a precondition failure.
 */
export async function secondConnection(ctx: CaseContext): Promise<WebTransportSessionConnection> {
  const url = targetUrl(ctx);
  let lastError: ConnectionError | undefined;
  // Two attempts: a handshake that fails once under load is not yet the target's fault.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const certificateHash = await pinFor(url);
      return await connectWebTransport(url, {
        http: wt(ctx).httpVersion,
        timeoutMs: ctx.scaled(5_000),
        ...(certificateHash !== undefined ? { certificateHash } : {}),
      });
    } catch (error) {
      if (!(error instanceof ConnectionError) || ctx.signal.aborted) throw error;
      lastError = error;
      ctx.note(`second session attempt ${attempt + 1} failed: ${error.message}`);
    }
  }
  throw new TargetPreconditionError(`a second WebTransport session could not be opened: ${lastError?.message ?? 'unknown failure'}`);
}

/** A bare library session with its control stream: the case writes, ends and resets it itself. */
export interface BareSession {
  session: LibrarySession;
  control: BidiStream;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Everything read from the control stream so far. */
  received(): Uint8Array;
  /** Resolves true once the session closed. */
  readonly closed: Promise<true>;
  close(): void;
}

/** Opens a bare library session to the target (for rules the Connection API keeps the case from breaking). */
export async function bareSession(ctx: CaseContext): Promise<BareSession> {
  const url = targetUrl(ctx);
  const library = await loadWebTransportLibrary();
  const certificateHash = await pinFor(url).catch((error: Error) => {
    throw new TargetPreconditionError(`no TLS handshake with the target for a second session: ${error.message}`);
  });
  let session: LibrarySession | undefined;
  let lastError: Error | undefined;
  // Two attempts: a handshake that fails once under load is not yet the target's fault.
  for (let attempt = 0; attempt < 2 && session === undefined; attempt++) {
    try {
      const candidate = new library.WebTransport(url, {
        ...(certificateHash !== undefined ? { serverCertificateHashes: [{ algorithm: 'sha-256', value: Buffer.from(certificateHash, 'hex') }] } : {}),
        ...(wt(ctx).httpVersion === 2 ? { forceReliable: true } : { requireUnreliable: true }),
      } as never) as unknown as LibrarySession;
      candidate.closed.catch(() => undefined);
      const ready = await raceTimeout(ctx, candidate.ready.then(() => true), 5_000, false);
      if (!ready) throw new ConnectFailedError('the session was not established in time');
      session = candidate;
    } catch (error) {
      // The library rejects with plain errors for a refused or failed handshake; a bug here stays a bug.
      if (!(error instanceof Error) || error instanceof TypeError || error instanceof ReferenceError || ctx.signal.aborted) throw error;
      lastError = error;
      ctx.note(`second session attempt ${attempt + 1} failed: ${error.message}`);
    }
  }
  if (session === undefined) throw new TargetPreconditionError(`a second WebTransport session could not be opened: ${lastError?.message ?? 'unknown failure'}`);
  const control = await session.createBidirectionalStream();
  const writer = control.writable.getWriter();
  writer.closed.catch(() => undefined);
  const chunks: Uint8Array[] = [];
  void (async () => {
    const reader = control.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        chunks.push(value);
      }
    } catch {
      // reset or session closed
    }
  })();
  const closed = session.closed.then(
    () => true as const,
    () => true as const,
  );
  return {
    session,
    control,
    writer,
    received: () => concat(chunks),
    closed,
    close: () => {
      try {
        session.close({ closeCode: 0, reason: 'case finished' });
      } catch {
        // already closed
      }
    },
  };
}

/** The complete JSON frames in `bytes` (a JSON-encoded exchange), decoded; stops at the first partial one. */
export function jsonFramesIn(bytes: Uint8Array): unknown[] {
  const out: unknown[] = [];
  let offset = 0;
  while (offset + 4 <= bytes.byteLength) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
    if (offset + 4 + length > bytes.byteLength) break;
    try {
      out.push(codecFor('json').decode(bytes.subarray(offset + 4, offset + 4 + length)));
    } catch {
      out.push(undefined);
    }
    offset += 4 + length;
  }
  return out;
}

/** The initialize request the binding cases send on a bare session (JSON only: encodings ["json"]). */
export function jsonOnlyInitialize(ctx: CaseContext, id: number): Message {
  return request(id, 'initialize', {
    protocolVersion: ctx.discovery.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcp-flow-conformance', version: '0.1.0' },
    transport: { type: 'mcp-flow', version: '0.1', encodings: ['json'] },
  });
}
