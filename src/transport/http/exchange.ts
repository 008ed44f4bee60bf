// One HTTP exchange on node:http(s), with nothing added beyond what HTTP/1.1 itself needs (Host,
// Content-Length, Connection): fetch() would add Accept, User-Agent and others, which would hide
// exactly the header mistakes a conformance test sends on purpose.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { ConnectFailedError, ConnectionClosedError, ConnectionError } from '../errors.js';

export interface ExchangeRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  agent: http.Agent;
  signal: AbortSignal;
}

export interface Exchange {
  /** Resolves once the request has been written out (rejects if that failed). */
  written: Promise<void>;
  /** Resolves with the response head; the body is read from `response`. */
  response: Promise<IncomingMessage>;
}

/** The request could not be completed after it was sent (reset, hang-up, bad response). */
export class HttpExchangeError extends ConnectionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('HTTP_EXCHANGE_FAILED', message, options);
  }
}

/** Errors of a request written on a kept-alive socket the server had just closed. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Sends one request. One written on a kept-alive socket that turns out closed by the server
 * (reset before any answer) goes once more on a new socket, as Node's http documentation advises.
 */
export function startExchange(request: ExchangeRequest): Exchange {
  const transport = request.url.protocol === 'https:' ? https : http;
  let onWritten!: () => void;
  let onWriteFailed!: (error: Error) => void;
  const written = new Promise<void>((resolve, reject) => {
    onWritten = resolve;
    onWriteFailed = reject;
  });
  let isWritten = false;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body && !hasHeader(headers, 'content-length')) headers['Content-Length'] = String(request.body.byteLength);
    const send = (mayRetry: boolean): void => {
      let req: http.ClientRequest;
      try {
        req = transport.request(request.url, {
          method: request.method,
          headers,
          agent: request.agent,
          signal: request.signal,
        });
      } catch (error) {
        // Invalid header names or values are the caller's input, reported as such.
        const failure = new ConnectFailedError(`cannot send ${request.method} ${request.url.href}: ${(error as Error).message}`, {
          cause: error,
        });
        onWriteFailed(failure);
        reject(failure);
        return;
      }
      let answered = false;
      req.on('response', (response) => {
        answered = true;
        resolve(response);
      });
      req.on('finish', () => {
        if (isWritten) return;
        isWritten = true;
        onWritten();
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as idle while this request went out on it: the
        // server never read the request (Node's documented case for one retry on a new socket).
        if (mayRetry && !answered && req.reusedSocket && STALE_SOCKET_CODES.has(error.code ?? '') && !request.signal.aborted) {
          send(false);
          return;
        }
        const failure = describeFailure(request, error, isWritten);
        if (!isWritten) onWriteFailed(failure);
        reject(failure);
      });
      req.end(request.body ? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength) : undefined);
    };
    send(true);
  });
  // Callers that only await one of the two must not see an unhandled rejection from the other.
  written.catch(() => {});
  response.catch(() => {});
  return { written, response };
}

function describeFailure(request: ExchangeRequest, error: NodeJS.ErrnoException, afterWrite: boolean): ConnectionError {
  const target = `${request.method} ${request.url.href}`;
  if (request.signal.aborted) {
    const reason = request.signal.reason;
    return reason instanceof ConnectionError ? reason : new ConnectionClosedError(`${target} aborted: connection closed`, { cause: error });
  }
  if (!afterWrite) return new ConnectFailedError(`cannot reach ${target}: ${error.code ?? error.message}`, { cause: error });
  return new HttpExchangeError(`${target} failed after the request was sent: ${error.code ?? error.message}`, {
    cause: error,
  });
}

export function hasHeader(headers: Record<string, string>, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.keys(headers).some((key) => key.toLowerCase() === lower);
}

/** Response headers as one string per name (repeated headers joined with ", "). */
export function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The media type of a Content-Type value, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
