// Lazy, quiet loading of @fails-components/webtransport. Importing it without the optional
// HTTP/3 addon makes the library print "http3 loader: Error ..." with a stack trace; that
// specific output is captured here (kept in `loadNotes`) instead of reaching users' consoles.
import http2 from 'node:http2';
import { Socket } from 'node:net';
import { Http3UnavailableError } from '../errors.js';

type Library = typeof import('@fails-components/webtransport');

const HTTP3_PACKAGE = '@fails-components/webtransport-transport-http3-quiche';
const LOADER_NOISE = [/^http3 loader:/, /^Problem loading http3-quiche/, /^Did you install @fails-components/];

let loading: Promise<Library> | undefined;
/** What the library printed while loading (the missing-addon messages), for diagnostics. */
export const loadNotes: string[] = [];

function isLoaderNoise(args: unknown[]): boolean {
  const first = args[0];
  return typeof first === 'string' && LOADER_NOISE.some((pattern) => pattern.test(first));
}

/** Imports the library once, keeping its HTTP/3 loader messages out of the console. */
export function loadWebTransportLibrary(): Promise<Library> {
  loading ??= (async () => {
    const originalLog = console.log;
    const originalError = console.error;
    const filter =
      (original: (...args: unknown[]) => void) =>
      (...args: unknown[]) => {
        if (isLoaderNoise(args)) loadNotes.push(args.map(String).join(' '));
        else original(...args);
      };
    console.log = filter(originalLog);
    console.error = filter(originalError);
    try {
      guardHttp2PingAfterDestroy();
      guardHttp2CloseBeforeFinish();
      const library = await import('@fails-components/webtransport');
      // The loader's messages are printed when its attempt to import the addon settles.
      await library.quicheLoaded;
      await http3Probe();
      await new Promise((resolve) => setImmediate(resolve));
      return library;
    } finally {
      console.log = originalLog;
      console.error = originalError;
    }
  })();
  return loading;
}

let probe: Promise<{ available: boolean; detail?: string }> | undefined;
function http3Probe(): Promise<{ available: boolean; detail?: string }> {
  probe ??= import(HTTP3_PACKAGE).then(
    () => ({ available: true }),
    (error: Error) => ({ available: false, detail: error.message.split('\n')[0] }),
  );
  return probe;
}

/** True when the native HTTP/3 addon can be loaded. */
export async function isHttp3Available(): Promise<boolean> {
  return (await http3Probe()).available;
}

/** Throws Http3UnavailableError (with how to get the addon) unless HTTP/3 can be used. */
export async function requireHttp3(): Promise<void> {
  const { available, detail } = await http3Probe();
  if (!available) throw new Http3UnavailableError(detail);
}

let prototypes: { session: object; stream: object } | undefined;

/**
 * The prototypes of Node's Http2Session and Http2Stream, which node:http2 does not export: reached
 * once, through a request on a throw-away client session that never connects.
 */
function http2Prototypes(): { session: object; stream: object } {
  if (prototypes !== undefined) return prototypes;
  const session = http2.connect('http://localhost', { createConnection: () => new Socket() });
  session.on('error', () => undefined);
  const request = session.request({ ':path': '/' });
  request.on('error', () => undefined);
  prototypes = { session: Object.getPrototypeOf(Object.getPrototypeOf(session)) as object, stream: Object.getPrototypeOf(Object.getPrototypeOf(request)) as object };
  session.destroy();
  return prototypes;
}

let pingGuarded = false;

/**
 * The library measures RTT with `session.ping()` from a 1 s interval that checks `session.closed`
 * but not `session.destroyed`. Between a session's destruction and its 'close' event, that ping
 * throws ERR_HTTP2_INVALID_SESSION from a timer, an uncaught exception that ends the process.
 * Here `ping` on a destroyed session (Http2Session's prototype, for every session) reports the
 * error to its callback (returning false) instead of throwing. Pings on live sessions are untouched.
 */
export function guardHttp2PingAfterDestroy(): void {
  if (pingGuarded) return;
  pingGuarded = true;
  const proto = http2Prototypes().session as { ping: (this: http2.Http2Session, ...args: unknown[]) => boolean };
  const ping = proto.ping;
  proto.ping = function guardedPing(this: http2.Http2Session, ...args: unknown[]): boolean {
    if (this.destroyed) {
      const callback = args.find((arg): arg is (error: Error) => void => typeof arg === 'function');
      if (callback) queueMicrotask(() => callback(new Error('HTTP/2 session already destroyed')));
      return false;
    }
    return ping.apply(this, args);
  };
}

let closeGuarded = false;
let closesReset = 0;

/** How many closes this process's guard turned into a reset with CANCEL (for tests). */
export function closesResetWithCancel(): number {
  return closesReset;
}

/**
 * A defect of Node's HTTP/2 core (Node 20 and 22): a stream whose writable side was ended but not
 * yet finished, then closed with NO_ERROR and destroyed at once, can send its session into a loop
 * that queues frames without end while the peer still sends (full CPU, gigabytes of memory, no
 * other stream served; test/fixtures/http2/close-before-finish.mjs shows it). Node defers such a
 * close's RST_STREAM to the stream's 'finish', and the destroy removes the stream under it. The
 * WebTransport library closes a session so when its CLOSE_WEBTRANSPORT_SESSION capsule is still
 * queued (behind a transfer the peer is not reading, or a second close): the capsule goes with the
 * stream's end, then close(code) and destroy(), code 0 for a normal close. Here such a close resets
 * the stream with CANCEL at once instead (Node sends that reset without waiting): the peer learns
 * that the session's stream ended, though what is still queued on it, the capsule included, may be
 * dropped (the destroy that follows drops it in any case). Holding the close and the destroy until
 * the end was sent was tried: it left peers' connections open. Every other close is Node's (the
 * patch is on Http2Stream's prototype, for every stream).
 */
export function guardHttp2CloseBeforeFinish(): void {
  if (closeGuarded) return;
  closeGuarded = true;
  type Close = (this: http2.Http2Stream, code?: number, callback?: () => void) => void;
  const proto = http2Prototypes().stream as { close: Close };
  const { NGHTTP2_NO_ERROR, NGHTTP2_CANCEL } = http2.constants;
  const close = proto.close;
  proto.close = function guardedClose(this: http2.Http2Stream, code: number = NGHTTP2_NO_ERROR, callback?: () => void): void {
    const endNotSent = this.writableEnded && !this.writableFinished && !this.closed && !this.destroyed;
    if (code === NGHTTP2_NO_ERROR && endNotSent) {
      closesReset += 1;
      code = NGHTTP2_CANCEL;
    }
    close.call(this, code, callback);
  };
}
