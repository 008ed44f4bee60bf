// WebTransport-binding errors beyond the shared transport errors: each has a stable `code`
// and, where a peer is told about it, the JSON-RPC code of 001 §4.2.
import { ConnectionError } from '../errors.js';

/** 001 §4.2 error codes. */
export const WT_ERROR = {
  STREAM_LIMIT_EXCEEDED: -32000,
  INVALID_STREAM_REFERENCE: -32001,
  STREAM_INJECTION: -32002,
  ENCODING_MISMATCH: -32003,
  DATAGRAM_NOT_SUPPORTED: -32004,
  /** 001 §6 answers a request cancelled with `$/cancel` with -32000 "Cancelled" (the same number as Stream Limit Exceeded, C-01). */
  CANCELLED: -32000,
  INVALID_REQUEST: -32600,
  /** JSON-RPC codes the binding also answers with (WT-FRAME-2/4/5, WT-ENC-5/7, WT-CONN-4). */
  PARSE_ERROR: -32700,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
} as const;

/** Datagrams were sent although the session does not support them (`datagramsSupported: false`). */
export class DatagramsNotSupportedError extends ConnectionError {
  readonly jsonRpcCode = WT_ERROR.DATAGRAM_NOT_SUPPORTED;
  constructor() {
    super('DATAGRAMS_NOT_SUPPORTED', 'datagrams are not supported on this session (datagramsSupported: false)');
  }
}

/** The peer reset an execution stream before it finished (observe it to send `$/streamError`). */
export class StreamResetError extends ConnectionError {
  readonly requestId: number;
  readonly streamTag: number;
  constructor(requestId: number, streamTag: number, detail: string) {
    super('STREAM_RESET', `execution stream (request ${requestId}, tag ${streamTag}) was reset: ${detail}`);
    this.requestId = requestId;
    this.streamTag = streamTag;
  }
}

/** The library could not open a new stream (e.g. the peer's stream credit is used up). */
export class StreamOpenError extends ConnectionError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super('STREAM_OPEN_FAILED', `cannot open a WebTransport stream: ${detail}`, options);
  }
}

/** The URL given to the client is not an https URL. */
export class InvalidUrlError extends ConnectionError {
  constructor(url: string, why: string) {
    super('INVALID_URL', `WebTransport URL ${JSON.stringify(url)} is not usable: ${why}`);
  }
}

/** The server refused the WebTransport session with an HTTP status. */
export class SessionRefusedError extends ConnectionError {
  readonly status: number | undefined;
  constructor(status: number | undefined, message: string, options?: { cause?: unknown }) {
    super('SESSION_REFUSED', message, options);
    this.status = status;
  }
}
