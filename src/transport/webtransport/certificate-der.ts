// A minimal DER writer for one thing: a self-signed ECDSA P-256 X.509 v3 server certificate.
// (@peculiar/x509 needs a global `Reflect.getMetadata` polyfill that is not installed, so the
// certificate is built here from Node's own key generation and signing.)
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const octetString = (bytes: Buffer) => tlv(0x04, bytes);
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.from([0]), bytes);
const booleanTrue = () => tlv(0x01, Buffer.from([0xff]));

function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1]! < 0x80) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [parts[0]! * 40 + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const year = date.getUTCFullYear();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  // UTCTime for 1950..2049, GeneralizedTime after (RFC 5280 4.1.2.5).
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2) + 'Z')) : tlv(0x18, Buffer.from(digits + 'Z'));
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  if (!isIPv6(ip)) throw new TypeError(`not an IP address: ${ip}`);
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return Buffer.from(groups.flatMap((group: string) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  }));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), booleanTrue(), octetString(value)) : sequence(oid(id), octetString(value));
}

export interface CertificateRequest {
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  serialNumber: Buffer;
  dnsNames: string[];
  ipAddresses: string[];
}

/** Builds and self-signs the certificate; returns the DER and the key pair. */
export function createSelfSignedEcdsaCertificate(request: CertificateRequest): {
  der: Buffer;
  privateKey: KeyObject;
} {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(request.commonName, 'utf8')))));
  const san = sequence(
    ...request.dnsNames.map((dns) => tlv(0x82, Buffer.from(dns, 'ascii'))),
    ...request.ipAddresses.map((ip) => tlv(0x87, ipBytes(ip))),
  );
  const extensions = tlv(
    0xa3,
    sequence(
      extension('2.5.29.19', true, sequence()), // basicConstraints: not a CA
      extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
      extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
      extension('2.5.29.17', false, san), // subjectAltName
    ),
  );
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(request.serialNumber),
    ecdsaWithSha256,
    name,
    sequence(time(request.notBefore), time(request.notAfter)),
    name,
    spki,
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  return { der: sequence(tbs, ecdsaWithSha256, bitString(signature)), privateKey };
}
