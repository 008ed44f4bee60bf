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
