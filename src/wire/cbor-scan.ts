// A minimal CBOR well-formedness scanner (RFC 8949 appendix C): finds where the first data item of
// a body ends, so trailing bytes can be reported with their offset. It never builds values.

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

const BREAK = -1;

class Malformed {}

function skipItem(bytes: Uint8Array, pos: number, depth: number): number {
  if (depth > MAX_DEPTH) throw new Malformed();
  if (pos >= bytes.length) throw new Malformed();
  const initial = bytes[pos]!;
  const major = initial >> 5;
  const info = initial & 0x1f;
  pos += 1;
  if (info === 31) {
    switch (major) {
      case 2:
      case 3:
        // Indefinite string: definite chunks of the same major type until break.
        for (;;) {
          if (pos >= bytes.length) throw new Malformed();
          if (bytes[pos] === 0xff) return pos + 1;
          if (bytes[pos]! >> 5 !== major || (bytes[pos]! & 0x1f) === 31) throw new Malformed();
          pos = skipItem(bytes, pos, depth + 1);
        }
      case 4:
      case 5:
        for (let count = 0; ; count++) {
          if (pos >= bytes.length) throw new Malformed();
          if (bytes[pos] === 0xff) {
            if (major === 5 && count % 2 === 1) throw new Malformed();
            return pos + 1;
          }
          pos = skipItem(bytes, pos, depth + 1);
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
      for (let i = 0; i < argument; i++) pos = skipItem(bytes, pos, depth + 1);
      return pos;
    case 5:
      for (let i = 0; i < argument * 2; i++) pos = skipItem(bytes, pos, depth + 1);
      return pos;
    case 6:
      return skipItem(bytes, pos, depth + 1);
    default:
      throw new Malformed();
  }
}

function need(bytes: Uint8Array, pos: number, count: number): void {
  if (pos + count > bytes.length) throw new Malformed();
}
