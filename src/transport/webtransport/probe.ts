// A bare HTTP/2 extended CONNECT (RFC 8441 + WebTransport over HTTP/2) with headers of our
// choosing, to see whether a server accepts a session before any WebTransport framing: used to
// check the Origin rule (001 §9), which the library's client cannot exercise (it always sends its
// own host name as Origin).
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { ConnectFailedError, ConnectionTimeoutError, TlsConfigError } from '../errors.js';
import { InvalidUrlError } from './errors.js';
import { parseCertificateHash } from './tls.js';

export interface ProbeOptions {
  /** The Origin header to send; omitted when undefined. */
  origin?: string;
  /** Pinned certificate hash (hex); without it the certificate must verify normally. */
  certificateHash?: string | Uint8Array;
  timeoutMs?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface ProbeResult {
  /** The HTTP status of the CONNECT response (200 = session accepted). */
  status: number;
  headers: Record<string, string>;
}

export async function probeWebTransportSession(url: string, options: ProbeOptions = {}): Promise<ProbeResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new InvalidUrlError(url, 'it does not parse as a URL');
  }
  if (target.protocol !== 'https:') throw new InvalidUrlError(url, 'WebTransport needs an https: URL');
  const pinned = options.certificateHash === undefined ? undefined : parseCertificateHash(options.certificateHash);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const session: ClientHttp2Session = connect(target.origin, {
    rejectUnauthorized: pinned === undefined,
    settings: { enableConnectProtocol: true },
  });
  const timer = setTimeout(() => session.destroy(new ConnectionTimeoutError(`a CONNECT answer from ${url}`, timeoutMs)), timeoutMs);
  try {
    return await new Promise<ProbeResult>((resolve, reject) => {
      session.once('error', (error) => reject(error instanceof ConnectionTimeoutError ? error : new ConnectFailedError(`cannot reach ${url}: ${error.message}`, { cause: error })));
      session.socket.once('secureConnect', () => {
        if (!pinned) return;
        const certificate = (session.socket as import('node:tls').TLSSocket).getPeerCertificate();
        const seen = Buffer.from(certificate.fingerprint256.replace(/:/g, ''), 'hex');
        if (!seen.equals(Buffer.from(pinned.value))) {
          reject(new TlsConfigError(`the certificate at ${url} does not match the pinned hash`));
          session.destroy();
        }
      });
      session.once('remoteSettings', (settings) => {
        if (!settings.enableConnectProtocol) {
          reject(new ConnectFailedError(`${url} does not allow extended CONNECT (SETTINGS_ENABLE_CONNECT_PROTOCOL)`));
          return;
        }
        const headers: Record<string, string> = {
          [constants.HTTP2_HEADER_METHOD]: 'CONNECT',
          ':protocol': 'webtransport',
          [constants.HTTP2_HEADER_SCHEME]: 'https',
          [constants.HTTP2_HEADER_PATH]: target.pathname + target.search,
          [constants.HTTP2_HEADER_AUTHORITY]: target.host,
          ...options.headers,
        };
        if (options.origin !== undefined) headers['origin'] = options.origin;
        const stream = session.request(headers);
        stream.once('response', (responseHeaders) => {
          const flat: Record<string, string> = {};
          for (const [name, value] of Object.entries(responseHeaders)) if (value !== undefined) flat[name] = String(value);
          resolve({ status: Number(responseHeaders[':status']), headers: flat });
          stream.close();
        });
        stream.once('error', (error) => reject(new ConnectFailedError(`CONNECT to ${url} failed: ${error.message}`, { cause: error })));
      });
    });
  } finally {
    clearTimeout(timer);
    session.close();
  }
}
