// TLS material for the WebTransport binding: the user's certificate and key, or a self-signed
// ECDSA P-256 certificate short-lived enough (< 14 days) for browsers' `serverCertificateHashes`, with
// its SHA-256 hash in the two forms clients want (hex and bytes).
import { createHash, createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { TlsConfigError } from '../errors.js';
import { createSelfSignedEcdsaCertificate } from './certificate-der.js';

/** A certificate, its key and its hash, ready for a server. */
export interface TlsMaterial {
  /** PEM certificate (chain). */
  certPem: string;
  /** PEM PKCS#8 private key. */
  keyPem: string;
  /** SHA-256 of the leaf certificate's DER, lowercase hex without separators. */
  certificateHashHex: string;
  /** The same hash as bytes (`serverCertificateHashes[i].value`). */
  certificateHash: Uint8Array;
  /** True when generated here rather than loaded. */
  selfSigned: boolean;
  notBefore: Date;
  notAfter: Date;
}

/** One entry of WebTransport's `serverCertificateHashes`. */
export interface CertificateHash {
  algorithm: 'sha-256';
  value: Uint8Array;
}

/** Browsers refuse pinned certificates valid for 14 days or more. */
export const MAX_PINNED_VALIDITY_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface SelfSignedOptions {
  /** Validity in days; must be below 14. Default 13. */
  days?: number;
  /** Extra DNS names for the SAN (127.0.0.1, ::1 and localhost are always there). */
  dnsNames?: string[];
  /** Extra IP addresses for the SAN. */
  ipAddresses?: string[];
  commonName?: string;
}

/** Generates a self-signed ECDSA P-256 certificate usable with `serverCertificateHashes`. */
export async function generateSelfSignedCertificate(options: SelfSignedOptions = {}): Promise<TlsMaterial> {
  const days = options.days ?? 13;
  if (!(days > 0 && days < MAX_PINNED_VALIDITY_DAYS)) {
    throw new TlsConfigError(
      `self-signed certificate validity must be more than 0 and less than ${MAX_PINNED_VALIDITY_DAYS} days, got ${days}`,
    );
  }
  // Back-date a minute for clock skew; the total span stays under the limit.
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + days * DAY_MS);
  const serialNumber = randomBytes(16);
  serialNumber[0] = serialNumber[0]! & 0x7f; // positive
  const { der, privateKey } = createSelfSignedEcdsaCertificate({
    commonName: options.commonName ?? 'mcp-flow-conformance',
    notBefore,
    notAfter,
    serialNumber,
    dnsNames: ['localhost', ...(options.dnsNames ?? [])],
    ipAddresses: ['127.0.0.1', '::1', ...(options.ipAddresses ?? [])],
  });
  const certPem = new X509Certificate(der).toString();
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { ...hashOf(certPem), certPem, keyPem, selfSigned: true, notBefore, notAfter };
}

/** Loads a PEM certificate (chain) and key from files, checking that they parse and match. */
export async function loadCertificateFiles(certPath: string, keyPath: string): Promise<TlsMaterial> {
  const certPem = await readPem(certPath, 'certificate');
  const keyPem = await readPem(keyPath, 'private key');
  return materialFromPem(certPem, keyPem, `${certPath} / ${keyPath}`);
}

/** Checks PEM strings and computes the certificate hash. */
export function materialFromPem(certPem: string, keyPem: string, where = 'the given PEM'): TlsMaterial {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certPem);
  } catch (error) {
    throw new TlsConfigError(`${where}: the certificate is not a PEM X.509 certificate (${(error as Error).message})`, {
      cause: error,
    });
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(keyPem));
  } catch (error) {
    throw new TlsConfigError(`${where}: the private key is not a PEM private key (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (!matches) throw new TlsConfigError(`${where}: the private key does not belong to the certificate`);
  return {
    ...hashOf(certPem),
    certPem,
    keyPem,
    selfSigned: false,
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
  };
}

/** Reads a CA bundle for clients that verify the server the ordinary way. */
export async function loadCaFile(caPath: string): Promise<string> {
  const pem = await readPem(caPath, 'CA certificate');
  try {
    new X509Certificate(pem);
  } catch (error) {
    throw new TlsConfigError(`${caPath}: not a PEM X.509 certificate (${(error as Error).message})`, { cause: error });
  }
  return pem;
}

/**
 * Parses a pinned certificate hash: 64 hex digits, optionally with `:` separators (as
 * `openssl x509 -fingerprint -sha256` prints it), or 32 bytes.
 */
export function parseCertificateHash(hash: string | Uint8Array): CertificateHash {
  if (typeof hash !== 'string') {
    if (hash.byteLength !== 32) throw new TlsConfigError(`a SHA-256 certificate hash is 32 bytes, got ${hash.byteLength}`);
    return { algorithm: 'sha-256', value: Uint8Array.from(hash) };
  }
  const hex = hash.replace(/:/g, '').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new TlsConfigError(`certificate hash ${JSON.stringify(hash)} is not 64 hex digits (SHA-256)`);
  }
  return { algorithm: 'sha-256', value: Uint8Array.from(Buffer.from(hex, 'hex')) };
}

function hashOf(certPem: string): { certificateHashHex: string; certificateHash: Uint8Array } {
  const der = new X509Certificate(certPem).raw;
  const digest = createHash('sha256').update(der).digest();
  return { certificateHashHex: digest.toString('hex'), certificateHash: Uint8Array.from(digest) };
}

async function readPem(path: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TlsConfigError(`cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      cause: error,
    });
  }
  if (!text.includes('-----BEGIN ')) throw new TlsConfigError(`${path} holds no PEM block (expected a ${what})`);
  return text;
}
