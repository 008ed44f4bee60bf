// A minimal CBOR well-formedness scanner (RFC 8949 appendix C). It finds where the first data item
// of a body ends (so trailing bytes can be reported with their offset) and rewrites indefinite-length
// strings as definite ones (cbor-x cannot decode those). It never builds values.

const MAX_DEPTH = 10_000;

/** Offset just past the data item starting at `start`, or undefined if it is not well-formed. */
export function cborItemEnd(bytes: Uint8Array, start = 0): number | undefined {
  try {
    const end = skipItem(bytes, start, 0);
    return end === BREAK ? undefined : end;
  } catch {
    return undefined;
  }
}

/** An indefinite-length byte or text string: its bytes span [start, end), its chunks' contents joined. */
interface IndefiniteString {
  start: number;
  end: number;
  major: 2 | 3;
  content: Uint8Array;
}

/**
 * The body with every indefinite-length byte/text string (RFC 8949 section 3.2.3) of its first data
 * item replaced by the equivalent definite-length string, and any bytes after that item kept as
 * they are (so trailing bytes stay trailing bytes); undefined if the first item is not well-formed.
 */
export function definiteStrings(bytes: Uint8Array): Uint8Array | undefined {
  const found: IndefiniteString[] = [];
  try {
    if (skipItem(bytes, 0, 0, found) === BREAK) return undefined;
  } catch {
    return undefined;
  }
  if (found.length === 0) return bytes;
  const parts: Uint8Array[] = [];
  let copied = 0;
  for (const string of found) {
    parts.push(bytes.subarray(copied, string.start), definiteHeader(string.major, string.content.length), string.content);
    copied = string.end;
  }
  parts.push(bytes.subarray(copied));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function definiteHeader(major: number, length: number): Uint8Array {
  const type = major << 5;
  if (length < 24) return Uint8Array.of(type | length);
  if (length < 0x100) return Uint8Array.of(type | 24, length);
  if (length < 0x10000) return Uint8Array.of(type | 25, length >> 8, length & 0xff);
  const header = new Uint8Array(5);
  header[0] = type | 26;
  new DataView(header.buffer).setUint32(1, length);
  return header;
}

const BREAK = -1;

class Malformed {}

function skipItem(bytes: Uint8Array, pos: number, depth: number, found?: IndefiniteString[]): number {
  if (depth > MAX_DEPTH) throw new Malformed();
  if (pos >= bytes.length) throw new Malformed();
  const start = pos;
  const initial = bytes[pos]!;
  const major = initial >> 5;
  const info = initial & 0x1f;
  pos += 1;
  if (info === 31) {
    switch (major) {
      case 2:
      case 3:
        // Indefinite string: definite chunks of the same major type until break.
        {
          const chunks: Uint8Array[] = [];
          for (;;) {
            if (pos >= bytes.length) throw new Malformed();
            if (bytes[pos] === 0xff) break;
            if (bytes[pos]! >> 5 !== major || (bytes[pos]! & 0x1f) === 31) throw new Malformed();
            const chunkStart = pos;
            pos = skipItem(bytes, pos, depth + 1);
            chunks.push(bytes.subarray(chunkStart + headerLength(bytes[chunkStart]!), pos));
          }
          if (found) {
            const content = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
            let offset = 0;
            for (const chunk of chunks) {
              content.set(chunk, offset);
              offset += chunk.length;
            }
            found.push({ start, end: pos + 1, major, content });
          }
          return pos + 1;
        }
      case 4:
      case 5:
        for (let count = 0; ; count++) {
          if (pos >= bytes.length) throw new Malformed();
          if (bytes[pos] === 0xff) {
            if (major === 5 && count % 2 === 1) throw new Malformed();
            return pos + 1;
          }
          pos = skipItem(bytes, pos, depth + 1, found);
        }
      case 7:
        // A lone "break" byte is not a data item.
        if (depth === 0) return BREAK;
        throw new Malformed();
      default:
        throw new Malformed();
    }
  }
  let argument: number;
  if (info < 24) argument = info;
  else if (info === 24) {
    need(bytes, pos, 1);
    argument = bytes[pos]!;
    pos += 1;
    if (major === 7 && argument < 32) throw new Malformed();
  } else if (info === 25) {
    need(bytes, pos, 2);
    argument = (bytes[pos]! << 8) | bytes[pos + 1]!;
    pos += 2;
  } else if (info === 26) {
    need(bytes, pos, 4);
    argument = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getUint32(0);
    pos += 4;
  } else if (info === 27) {
    need(bytes, pos, 8);
    const view = new DataView(bytes.buffer, bytes.byteOffset + pos, 8);
    argument = view.getUint32(0) * 0x1_0000_0000 + view.getUint32(4);
    pos += 8;
  } else throw new Malformed();
  switch (major) {
    case 0:
    case 1:
    case 7:
      return pos;
    case 2:
    case 3:
      need(bytes, pos, argument);
      return pos + argument;
    case 4:
      for (let i = 0; i < argument; i++) pos = skipItem(bytes, pos, depth + 1, found);
      return pos;
    case 5:
      for (let i = 0; i < argument * 2; i++) pos = skipItem(bytes, pos, depth + 1, found);
      return pos;
    case 6:
      return skipItem(bytes, pos, depth + 1, found);
    default:
      throw new Malformed();
  }
}

/** Bytes taken by the initial byte and argument of a definite-length head. */
function headerLength(initial: number): number {
  const info = initial & 0x1f;
  return info < 24 ? 1 : 1 + (1 << (info - 24));
}

function need(bytes: Uint8Array, pos: number, count: number): void {
  if (pos + count > bytes.length) throw new Malformed();
}
