// The subset of the WebTransport library's session (a W3C WebTransport object) this binding uses,
// how its end is read, and the one way to end it that the W3C API does not offer (a reset).
import http2 from 'node:http2';

export interface BidiStream {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

export interface LibrarySession {
  readonly ready: Promise<unknown>;
  readonly closed: Promise<{ closeCode?: number; reason?: string } | undefined>;
  readonly incomingBidirectionalStreams: ReadableStream<BidiStream>;
  readonly incomingUnidirectionalStreams: ReadableStream<ReadableStream<Uint8Array>>;
  createBidirectionalStream(): Promise<BidiStream>;
  createUnidirectionalStream(): Promise<WritableStream<Uint8Array>>;
  readonly datagrams: {
    readonly readable: ReadableStream<Uint8Array>;
    createWritable(): WritableStream<Uint8Array>;
  };
  close(info?: { closeCode?: number; reason?: string }): void;
}

/** What the library's `closed` resolves with. */
export type LibraryCloseInfo = { closeCode?: number; reason?: string } | undefined;

/**
 * Whether a session the library reports closed ended by its HTTP/2 stream failing (a reset with an
 * error code: a transport error) instead of a session close. The library resolves `closed` for both,
 * and gives the stream's error as the reason only for the first.
 */
export function endedByStreamError(info: LibraryCloseInfo): boolean {
  return typeof info?.reason === 'string' && info.reason.startsWith('Error [ERR_HTTP2_STREAM_ERROR]');
}

/** Where the library keeps the HTTP/2 stream (CONNECT) that carries a session over HTTP/2. */
interface Http2Carried {
  sessionint?: { objint?: { stream?: { close?(code: number): void } } };
}

/**
 * Ends a session by a transport error instead of a session close: its HTTP/2 stream is reset with
 * INTERNAL_ERROR, so no CLOSE_WEBTRANSPORT_SESSION capsule goes out. The W3C API the library offers
 * has no such operation, so this reaches its HTTP/2 stream; an error names what is missing.
 */
export function resetSessionStream(session: LibrarySession): void {
  const stream = (session as unknown as Http2Carried).sessionint?.objint?.stream;
  if (typeof stream?.close !== 'function') throw new TypeError('this WebTransport session has no HTTP/2 stream to reset (HTTP/3, or a library without sessionint.objint.stream)');
  stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
}

/** Where the library keeps a client session's HTTP/2 connection (one per session: no pooling). */
interface Http2Connected {
  sessionint?: { parentobj?: { transportInt?: { clientInt?: http2.ClientHttp2Session } } };
}

/** How long a client's HTTP/2 connection may stay open once its session ended. */
const CONNECTION_RELEASE_MS = 1000;

/**
 * Ends the HTTP/2 connection that carried a client session if it is still open a while after the
 * session ended. The library closes it when it sees the session close; a session ended otherwise
 * (a peer that never acknowledged the close, a stream it left open) kept its socket, and with it
 * the process that opened it, alive after a run. Left alone meanwhile: closing it at once raced
 * the session's own close (the peer saw a cancelled stream instead). Nothing to do for HTTP/3 or
 * another library layout.
 */
export function releaseConnection(session: LibrarySession): void {
  const connection = (session as unknown as Http2Connected).sessionint?.parentobj?.transportInt?.clientInt;
  if (connection === undefined || typeof connection.destroy !== 'function' || connection.destroyed) return;
  const timer = setTimeout(() => {
    if (!connection.destroyed) connection.destroy();
  }, CONNECTION_RELEASE_MS);
  // Not a reason to stay alive: an open connection is one already.
  timer.unref();
  connection.once('close', () => clearTimeout(timer));
}
