// TLS material: the self-signed certificate browsers accept for serverCertificateHashes, loading
// PEM files with typed errors, and pinned-hash parsing.
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  generateSelfSignedCertificate,
  loadCaFile,
  loadCertificateFiles,
  MAX_PINNED_VALIDITY_DAYS,
  parseCertificateHash,
} from '../../../src/transport/webtransport/tls.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const tempDirs: string[] = [];
/** A fresh temporary directory, removed after the file's tests. */
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wt-tls-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('generateSelfSignedCertificate', () => {
  it('makes an ECDSA P-256 certificate for 127.0.0.1 and localhost, valid for less than 14 days', async () => {
    const tls = await generateSelfSignedCertificate();
    const cert = new X509Certificate(tls.certPem);
    expect(cert.publicKey.asymmetricKeyType).toBe('ec');
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkHost('localhost')).toBe('localhost');
    const span = new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime();
    expect(span).toBeLessThan(MAX_PINNED_VALIDITY_DAYS * DAY_MS);
    expect(cert.verify(cert.publicKey)).toBe(true); // self-signed with its own key
    expect(cert.ca).toBe(false);
  });

  it('exposes the SHA-256 of the DER as hex and as bytes', async () => {
    const tls = await generateSelfSignedCertificate({ days: 2 });
    const der = new X509Certificate(tls.certPem).raw;
    const digest = createHash('sha256').update(der).digest();
    expect(tls.certificateHashHex).toBe(digest.toString('hex'));
    expect(Buffer.from(tls.certificateHash).equals(digest)).toBe(true);
    expect(new X509Certificate(tls.certPem).fingerprint256.replace(/:/g, '').toLowerCase()).toBe(tls.certificateHashHex);
  });

  it('refuses a validity browsers would reject', async () => {
    await expect(generateSelfSignedCertificate({ days: 14 })).rejects.toMatchObject({ code: 'TLS_CONFIG' });
    await expect(generateSelfSignedCertificate({ days: 0 })).rejects.toMatchObject({ code: 'TLS_CONFIG' });
  });
});

describe('loadCertificateFiles', () => {
  it('loads a matching pair and computes the same hash', async () => {
    const dir = await tempDir();
    const tls = await generateSelfSignedCertificate();
    await writeFile(join(dir, 'cert.pem'), tls.certPem);
    await writeFile(join(dir, 'key.pem'), tls.keyPem);
    const loaded = await loadCertificateFiles(join(dir, 'cert.pem'), join(dir, 'key.pem'));
    expect(loaded.certificateHashHex).toBe(tls.certificateHashHex);
    expect(loaded.selfSigned).toBe(false);
    expect(await loadCaFile(join(dir, 'cert.pem'))).toContain('BEGIN CERTIFICATE');
  });

  it('names what is wrong: missing file, no PEM, key of another certificate', async () => {
    const dir = await tempDir();
    const a = await generateSelfSignedCertificate();
    const b = await generateSelfSignedCertificate();
    await writeFile(join(dir, 'cert.pem'), a.certPem);
    await writeFile(join(dir, 'other-key.pem'), b.keyPem);
    await writeFile(join(dir, 'junk.pem'), 'not a certificate');
    await expect(loadCertificateFiles(join(dir, 'absent.pem'), join(dir, 'other-key.pem'))).rejects.toMatchObject({
      name: 'TlsConfigError',
      message: expect.stringContaining('ENOENT'),
    });
    await expect(loadCertificateFiles(join(dir, 'junk.pem'), join(dir, 'other-key.pem'))).rejects.toMatchObject({
      message: expect.stringContaining('no PEM block'),
    });
    await expect(loadCertificateFiles(join(dir, 'cert.pem'), join(dir, 'other-key.pem'))).rejects.toMatchObject({
      message: expect.stringContaining('does not belong to the certificate'),
    });
  });
});

describe('parseCertificateHash', () => {
  it('accepts hex with or without colons, and 32 bytes', () => {
    const hex = 'ab'.repeat(32);
    expect(parseCertificateHash(hex).value).toEqual(new Uint8Array(32).fill(0xab));
    expect(parseCertificateHash(hex.match(/../g)!.join(':').toUpperCase()).value).toEqual(new Uint8Array(32).fill(0xab));
    expect(parseCertificateHash(new Uint8Array(32)).algorithm).toBe('sha-256');
  });

  it('refuses anything that is not a SHA-256', () => {
    expect(() => parseCertificateHash('abcd')).toThrow(/64 hex digits/);
    expect(() => parseCertificateHash(new Uint8Array(20))).toThrow(/32 bytes/);
  });
});
