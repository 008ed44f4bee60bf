// Wire errors: one class per failure, each with a stable `code`, the JSON-RPC error code a receiver
// answers with, and the profile requirement it enforces (table in docs/architecture.md).

export type WireErrorCode =
  | 'FRAME_TRUNCATED_LENGTH'
  | 'FRAME_TRUNCATED_BODY'
  | 'FRAME_TOO_LARGE'
  | 'FRAME_EMPTY'
  | 'INVALID_UTF8'
  | 'INVALID_JSON'
  | 'INVALID_CBOR'
  | 'CBOR_TRAILING_BYTES'
  | 'ENCODING_MISMATCH'
  | 'EXEC_HEADER_TRUNCATED'
  | 'DATAGRAM_TOO_SHORT'
  | 'DATAGRAM_RESERVED_CHANNEL'
  | 'DATAGRAM_RESERVED_FLAGS'
  | 'DATAGRAM_UNKNOWN_CHANNEL'
  | 'ID_OUT_OF_RANGE'
  // Beyond the architecture table: failures of the local side rather than of received bytes.
  | 'UNKNOWN_ENCODING'
  | 'UNENCODABLE_VALUE'
  | 'ENCODING_ALREADY_NEGOTIATED';

/** JSON-RPC error codes used by the wire layer (seed 001 section 4). */
export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  encodingMismatch: -32003,
} as const;

/** The `error` member of a JSON-RPC response answering a wire failure. */
export interface WireJsonRpcError {
  code: number;
  message: string;
  data: { wireCode: WireErrorCode; requirement: string; offset?: number };
}

export class WireError extends Error {
  readonly code: WireErrorCode;
  readonly jsonRpcCode: number;
  readonly requirement: string;
  /** Byte offset in the input (stream offset for decoders), where it helps. */
  readonly offset?: number;

  constructor(
    code: WireErrorCode,
    message: string,
    details: { jsonRpcCode: number; requirement: string; offset?: number | undefined; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.jsonRpcCode = details.jsonRpcCode;
    this.requirement = details.requirement;
    if (details.offset !== undefined) this.offset = details.offset;
  }

  /** The `error` object a receiver puts in its JSON-RPC error response. */
  toJsonRpcError(): WireJsonRpcError {
    const data: WireJsonRpcError['data'] = { wireCode: this.code, requirement: this.requirement };
    if (this.offset !== undefined) data.offset = this.offset;
    return { code: this.jsonRpcCode, message: this.message, data };
  }

  toJSON(): { name: string; code: WireErrorCode; jsonRpcCode: number; requirement: string; message: string; offset?: number } {
    const out: ReturnType<WireError['toJSON']> = {
      name: this.name,
      code: this.code,
      jsonRpcCode: this.jsonRpcCode,
      requirement: this.requirement,
      message: this.message,
    };
    if (this.offset !== undefined) out.offset = this.offset;
    return out;
  }
}

export function isWireError(value: unknown): value is WireError {
  return value instanceof WireError;
}

// ---- Framing (WT-FRAME) ----

/** Input ended inside a frame's 4-byte length prefix. */
export class FrameTruncatedLengthError extends WireError {
  readonly receivedPrefixBytes: number;
  constructor(receivedPrefixBytes: number, offset?: number) {
    super('FRAME_TRUNCATED_LENGTH', `input ended after ${receivedPrefixBytes} of the 4 length-prefix bytes`, {
      jsonRpcCode: JsonRpcCode.parseError,
      requirement: 'WT-FRAME-5',
      offset,
    });
    this.receivedPrefixBytes = receivedPrefixBytes;
  }
}

/** Input ended before the body's declared length. */
export class FrameTruncatedBodyError extends WireError {
  readonly declaredLength: number;
  readonly receivedBodyBytes: number;
  constructor(declaredLength: number, receivedBodyBytes: number, offset?: number) {
    super(
      'FRAME_TRUNCATED_BODY',
      `input ended after ${receivedBodyBytes} of the ${declaredLength} body bytes the length prefix declared`,
      { jsonRpcCode: JsonRpcCode.parseError, requirement: 'WT-FRAME-5', offset },
    );
    this.declaredLength = declaredLength;
    this.receivedBodyBytes = receivedBodyBytes;
  }
}

/** A length prefix (or a body to send) above the maximum message size; rejected before buffering. */
export class FrameTooLargeError extends WireError {
  readonly declaredLength: number;
  readonly maxMessageSize: number;
  constructor(declaredLength: number, maxMessageSize: number, offset?: number) {
    super(
      'FRAME_TOO_LARGE',
      `frame length ${declaredLength} exceeds the maximum message size ${maxMessageSize}`,
      { jsonRpcCode: JsonRpcCode.invalidRequest, requirement: 'WT-FRAME-3', offset },
    );
    this.declaredLength = declaredLength;
    this.maxMessageSize = maxMessageSize;
  }
}

/** A length prefix of 0 (or an empty body to send). */
export class FrameEmptyError extends WireError {
  constructor(offset?: number) {
    super('FRAME_EMPTY', 'frame length prefix is 0: a frame carries exactly one non-empty message', {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-FRAME-2',
      offset,
    });
  }
}

// ---- Bodies (WT-FRAME-4) ----

/** A JSON body that is not valid UTF-8. */
export class InvalidUtf8Error extends WireError {
  constructor(offset: number | undefined) {
    super(
      'INVALID_UTF8',
      `JSON body is not valid UTF-8${offset === undefined ? '' : ` (first bad byte at body offset ${offset})`}`,
      { jsonRpcCode: JsonRpcCode.parseError, requirement: 'WT-FRAME-4', offset },
    );
  }
}

/** A JSON body that does not parse. */
export class InvalidJsonError extends WireError {
  constructor(detail: string, offset?: number, cause?: unknown) {
    super('INVALID_JSON', `JSON body does not parse: ${detail}`, {
      jsonRpcCode: JsonRpcCode.parseError,
      requirement: 'WT-FRAME-4',
      offset,
      cause,
    });
  }
}

/** A CBOR body that does not decode. */
export class InvalidCborError extends WireError {
  constructor(detail: string, offset?: number, cause?: unknown) {
    super('INVALID_CBOR', `CBOR body does not decode: ${detail}`, {
      jsonRpcCode: JsonRpcCode.parseError,
      requirement: 'WT-FRAME-4',
      offset,
      cause,
    });
  }
}

/** Bytes left after the first CBOR data item of a body. */
export class CborTrailingBytesError extends WireError {
  readonly trailingBytes: number | undefined;
  constructor(offset: number | undefined, trailingBytes: number | undefined) {
    super(
      'CBOR_TRAILING_BYTES',
      trailingBytes === undefined
        ? 'CBOR body has bytes after its first data item'
        : `CBOR body has ${trailingBytes} byte(s) after its first data item (ending at body offset ${offset})`,
      { jsonRpcCode: JsonRpcCode.parseError, requirement: 'WT-FRAME-4', offset },
    );
    this.trailingBytes = trailingBytes;
  }
}

/** A body in the other encoding than the one in force. */
export class EncodingMismatchError extends WireError {
  readonly expected: 'json' | 'cbor';
  readonly actual: 'json' | 'cbor';
  /** The id the message carries when read in the other encoding (a string or number), if any. */
  readonly messageId: string | number | undefined;
  constructor(expected: 'json' | 'cbor', actual: 'json' | 'cbor', why: string, offset?: number, messageId?: string | number) {
    super('ENCODING_MISMATCH', `expected a ${expected} body but got ${actual} (${why})`, {
      jsonRpcCode: JsonRpcCode.encodingMismatch,
      requirement: 'WT-ENC-5',
      offset,
    });
    this.expected = expected;
    this.actual = actual;
    this.messageId = messageId;
  }
}

// ---- Execution streams, datagrams, ids ----

/** An execution stream ended before its 8 header bytes. */
export class ExecHeaderTruncatedError extends WireError {
  readonly receivedBytes: number;
  constructor(receivedBytes: number) {
    super('EXEC_HEADER_TRUNCATED', `execution stream ended after ${receivedBytes} of the 8 header bytes`, {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-EXEC-1',
      offset: 0,
    });
    this.receivedBytes = receivedBytes;
  }
}

/** A datagram shorter than its 6-byte header. */
export class DatagramTooShortError extends WireError {
  readonly length: number;
  constructor(length: number) {
    super('DATAGRAM_TOO_SHORT', `datagram of ${length} byte(s) is shorter than its 6-byte header`, {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-DGRAM-1',
      offset: 0,
    });
    this.length = length;
  }
}

/** A datagram on the reserved channel 0x00. */
export class DatagramReservedChannelError extends WireError {
  constructor() {
    super('DATAGRAM_RESERVED_CHANNEL', 'datagram uses the reserved channel 0x00', {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-DGRAM-2',
      offset: 0,
    });
  }
}

/** A datagram whose flags byte is not 0x00. */
export class DatagramReservedFlagsError extends WireError {
  readonly flags: number;
  constructor(flags: number) {
    super('DATAGRAM_RESERVED_FLAGS', `datagram flags byte is 0x${hexByte(flags)}; it is reserved and must be 0x00`, {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-DGRAM-3',
      offset: 1,
    });
    this.flags = flags;
  }
}

/** A datagram on a channel the binding does not define (0x04..0xFF). */
export class DatagramUnknownChannelError extends WireError {
  readonly channel: number;
  constructor(channel: number) {
    super('DATAGRAM_UNKNOWN_CHANNEL', `datagram channel 0x${hexByte(channel)} is not defined (0x01..0x03 are)`, {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-DGRAM-4',
      offset: 0,
    });
    this.channel = channel;
  }
}

/** A header id (request id, stream tag, datagram field) that is not an integer in 0..2^32-1. */
export class IdOutOfRangeError extends WireError {
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, range = '0..4294967295') {
    super('ID_OUT_OF_RANGE', `${field} ${describeValue(value)} is not an integer in ${range}`, {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-ID-1',
    });
    this.field = field;
    this.value = value;
  }
}

// ---- Local-side failures (not in the architecture table) ----

/** An encoding name other than `json` or `cbor`. */
export class UnknownEncodingError extends WireError {
  readonly encoding: unknown;
  constructor(encoding: unknown) {
    super('UNKNOWN_ENCODING', `unknown encoding ${describeValue(encoding)} (known: "json", "cbor")`, {
      jsonRpcCode: JsonRpcCode.invalidRequest,
      requirement: 'WT-ENC-9',
    });
    this.encoding = encoding;
  }
}

/** A message value the encoding cannot carry as JSON-RPC (undefined, function, BigInt in JSON, cycle...). */
export class UnencodableValueError extends WireError {
  /** JSON Pointer to the offending value inside the message ('' is the message itself). */
  readonly path: string;
  readonly encoding: 'json' | 'cbor';
  constructor(encoding: 'json' | 'cbor', path: string, reason: string) {
    super('UNENCODABLE_VALUE', `cannot encode message as ${encoding}: ${reason} at ${path === '' ? '(message root)' : path}`, {
      jsonRpcCode: JsonRpcCode.internalError,
      requirement: 'WT-FRAME-4',
    });
    this.path = path;
    this.encoding = encoding;
  }
}

/** switchTo() a second time with a different encoding: negotiation happens once per control stream. */
export class EncodingAlreadyNegotiatedError extends WireError {
  constructor(current: 'json' | 'cbor', requested: 'json' | 'cbor') {
    super(
      'ENCODING_ALREADY_NEGOTIATED',
      `encoding was already negotiated as ${current}; cannot switch to ${requested}`,
      { jsonRpcCode: JsonRpcCode.invalidRequest, requirement: 'WT-ENC-3' },
    );
  }
}

/** A bad option value given to the wire layer (e.g. a maximum message size that is not a positive integer). */
export class WireOptionError extends Error {
  readonly code = 'INVALID_OPTION';
  readonly option: string;
  constructor(option: string, value: unknown, expected: string) {
    super(`option ${option} is ${describeValue(value)}; expected ${expected}`);
    this.name = 'WireOptionError';
    this.option = option;
  }
}

function hexByte(value: number): string {
  return value.toString(16).padStart(2, '0').toUpperCase();
}

function describeValue(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  if (value === null || value === undefined) return String(value);
  return typeof value;
}
