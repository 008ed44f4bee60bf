// Errors the mock server's session raises to its own handlers (not sent on the wire as such).
import { MockServerError } from '../extension.js';

/** The client did not answer a server-to-client request in time. */
export class ServerRequestTimeoutError extends MockServerError {
  readonly method: string;
  readonly requestId: number;
  readonly timeoutMs: number;
  constructor(method: string, requestId: number, timeoutMs: number) {
    super('SERVER_REQUEST_TIMEOUT', `the client did not answer ${method} (id ${requestId}) within ${timeoutMs} ms`);
    this.method = method;
    this.requestId = requestId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A server-to-client request the session refuses to send: the client did not declare the feature
 * (CORE-CAP-2) or the negotiated protocol version does not define the method (CORE-LIFE-11).
 */
export class ClientFeatureUnavailableError extends MockServerError {
  readonly method: string;
  constructor(method: string, why: string) {
    super('CLIENT_FEATURE_UNAVAILABLE', `cannot send ${method}: ${why}`);
    this.method = method;
  }
}
