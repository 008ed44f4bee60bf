// Hex text <-> bytes for test vectors and the `decode` command.

/** Hex text that is not an even number of hex digits. Not a WireError: it is bad tool input, not bad wire bytes. */
export class InvalidHexError extends Error {
  readonly code = 'INVALID_HEX';
  /** Offset in the input text of the offending character (for an odd digit count, the end). */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.name = 'InvalidHexError';
    this.offset = offset;
  }
}

/** Lower-case hex, no separators. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

/**
 * Parses hex tolerantly: whitespace, colons, commas, dashes and `0x`/`0X` prefixes (per byte or per
 * run) are ignored; anything else, or an odd number of digits, is an InvalidHexError.
 */
export function fromHex(text: string): Uint8Array {
  const digits: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '0' && (text[i + 1] === 'x' || text[i + 1] === 'X') && !isHexDigit(text[i - 1])) {
      i += 1;
      continue;
    }
    if (/\s/.test(c) || c === ':' || c === ',' || c === '-') continue;
    const value = hexValue(c);
    if (value === undefined) {
      throw new InvalidHexError(`invalid hex: ${JSON.stringify(c)} at character ${i} is not a hex digit`, i);
    }
    digits.push(value);
  }
  if (digits.length % 2 !== 0) {
    throw new InvalidHexError(`invalid hex: odd number of hex digits (${digits.length}); each byte needs two`, text.length);
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (digits[2 * i]! << 4) | digits[2 * i + 1]!;
  return bytes;
}

function isHexDigit(c: string | undefined): boolean {
  return c !== undefined && hexValue(c) !== undefined;
}

function hexValue(c: string): number | undefined {
  const code = c.charCodeAt(0);
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x61 + 10;
  if (code >= 0x41 && code <= 0x46) return code - 0x41 + 10;
  return undefined;
}
