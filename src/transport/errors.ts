// Transport errors: one class per failure, each with a stable `code` (undici style).

export class ConnectionError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The connection ended while something waited on it. */
export class ConnectionClosedError extends ConnectionError {
  constructor(message = 'connection closed', options?: { cause?: unknown }) {
    super('CONNECTION_CLOSED', message, options);
  }
}

/** A wait ran past its deadline. */
export class ConnectionTimeoutError extends ConnectionError {
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number) {
    super('CONNECTION_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}`);
    this.timeoutMs = timeoutMs;
  }
}

/** The peer could not be reached or refused the connection. */
export class ConnectFailedError extends ConnectionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONNECT_FAILED', message, options);
  }
}

/** The server refused a session because of its Origin. */
export class OriginRefusedError extends ConnectionError {
  readonly origin: string | undefined;
  constructor(origin: string | undefined) {
    super('ORIGIN_REFUSED', `origin ${origin === undefined ? '(none)' : JSON.stringify(origin)} is not allowed`);
    this.origin = origin;
  }
}

/** HTTP/3 was asked for but the native transport is not installed. */
export class Http3UnavailableError extends ConnectionError {
  constructor(detail?: string) {
    super(
      'HTTP3_UNAVAILABLE',
      'HTTP/3 needs the optional package @fails-components/webtransport-transport-http3-quiche, which is not ' +
        'installed (its install step downloads a prebuilt binary). Run `npm install ' +
        '@fails-components/webtransport-transport-http3-quiche` on a machine with network access, or use --http 2.' +
        (detail ? ` (${detail})` : ''),
    );
  }
}

/** A local limit (streams, message size, sessions) would be exceeded. */
export class LimitExceededError extends ConnectionError {
  readonly limit: string;
  constructor(limit: string, message: string) {
    super('LIMIT_EXCEEDED', message);
    this.limit = limit;
  }
}

/** The operation is not allowed in the connection's current state. */
export class InvalidStateError extends ConnectionError {
  constructor(message: string) {
    super('INVALID_STATE', message);
  }
}

/** TLS material (certificate, key, CA, pinned hash) was missing or wrong. */
export class TlsConfigError extends ConnectionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TLS_CONFIG', message, options);
  }
}
