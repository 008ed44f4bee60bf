// Verifying a server against a private CA. The library's HTTP/2 client takes no per-connection CA,
// so the chain is checked here with a plain TLS handshake (ALPN h2) against the CA file, and the
// verified leaf is then pinned by hash for the WebTransport connection itself (possible when it is
// valid for less than 14 days; otherwise the CA must be in Node's store via NODE_EXTRA_CA_CERTS).
import { connect, type PeerCertificate } from 'node:tls';
import { ConnectFailedError, TlsConfigError } from '../errors.js';
import { MAX_PINNED_VALIDITY_DAYS } from './tls.js';

export interface CaVerification {
  /** SHA-256 of the verified leaf certificate. */
  leafHash: Uint8Array;
  /** Whether the leaf may be pinned (validity under 14 days). */
  pinnable: boolean;
  validFrom: Date;
  validTo: Date;
}

export function verifyServerWithCa(target: URL, caPem: string, timeoutMs: number): Promise<CaVerification> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const port = Number(target.port || 443);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ca: caPem, servername: isIp(host) ? undefined : host, ALPNProtocols: ['h2'], rejectUnauthorized: false });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ConnectFailedError(`no TLS handshake with ${target.host} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(new ConnectFailedError(`cannot reach ${target.host} to verify its certificate: ${error.message}`, { cause: error }));
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const certificate: PeerCertificate = socket.getPeerCertificate();
      const authorized = socket.authorized;
      const why = socket.authorizationError;
      socket.end();
      if (!authorized) {
        reject(new TlsConfigError(`the certificate of ${target.host} does not verify against the given CA: ${String(why)}`));
        return;
      }
      const validFrom = new Date(certificate.valid_from);
      const validTo = new Date(certificate.valid_to);
      resolve({
        leafHash: Uint8Array.from(Buffer.from(certificate.fingerprint256.replace(/:/g, ''), 'hex')),
        pinnable: validTo.getTime() - validFrom.getTime() < MAX_PINNED_VALIDITY_DAYS * 24 * 60 * 60 * 1000,
        validFrom,
        validTo,
      });
    });
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
