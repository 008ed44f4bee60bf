// Reading an HTTP response body: whole, up to a limit (BodyTooLargeError past it), or as SSE events
// (an event over the limit skipped); whatever the peer does to the body rejects with a
// ConnectionError, and a flood cannot keep timers from firing (pacing.ts).
import type { IncomingMessage } from 'node:http';
import { pacedReading } from '../pacing.js';
import { ConnectionClosedError, ConnectionError } from '../errors.js';
import { SseParser, type SseEvent } from './sse.js';

/** The transcript note of an SSE event that carries no message (empty data). */
export function sseEventWithoutMessage(event: SseEvent): string {
  const fields = [event.id !== undefined ? `id ${JSON.stringify(event.id)}` : undefined, event.retry !== undefined ? `retry ${event.retry} ms` : undefined].filter(Boolean);
  return `SSE event with empty data${fields.length > 0 ? ` (${fields.join(', ')})` : ''}: not a message`;
}

/** A response body larger than the limit. */
export class BodyTooLargeError extends ConnectionError {
  constructor(limit: number, announced?: number) {
    super('BODY_TOO_LARGE', announced === undefined ? `response body exceeds ${limit} bytes` : `response body of ${announced} bytes (Content-Length) exceeds ${limit} bytes`);
  }
}

export function bodyErrorCode(error: unknown): string {
  return error instanceof ConnectionError ? error.code : 'HTTP_EXCHANGE_FAILED';
}

/**
 * Reads a whole body, at most `limit` bytes (BodyTooLargeError past it, at once when the
 * Content-Length says so). A body whose length is announced is read into one buffer of that size;
 * otherwise chunks also land in `sink`, so a caller keeps what arrived before a failure.
 */
export async function readBody(response: IncomingMessage, signal: AbortSignal, limit: number, what: string, sink: Uint8Array[] = []): Promise<Uint8Array> {
  const announced = Number(response.headers['content-length']);
  if (Number.isSafeInteger(announced) && announced > limit) {
    response.destroy();
    throw new BodyTooLargeError(limit, announced);
  }
  if (Number.isSafeInteger(announced) && announced > 0 && sink.length === 0) {
    const body = Buffer.allocUnsafe(announced);
    let filled = 0;
    try {
      await forEachChunk(response, signal, what, (chunk) => {
        // HTTP/1.1 framing never delivers more than announced; the check only guards the copy.
        if (filled + chunk.byteLength > announced) throw new BodyTooLargeError(announced);
        body.set(chunk, filled);
        filled += chunk.byteLength;
      });
    } catch (error) {
      sink.push(body.subarray(0, filled));
      throw error;
    }
    return body.subarray(0, filled);
  }
  let total = 0;
  await forEachChunk(response, signal, what, (chunk) => {
    total += chunk.byteLength;
    if (total > limit) throw new BodyTooLargeError(limit);
    sink.push(chunk);
  });
  return Buffer.concat(sink);
}

/** Reads an event stream; an event over `limit` characters is skipped and passed to `options.onOverflow`. */
export async function readSse(
  response: IncomingMessage,
  signal: AbortSignal,
  limit: number,
  onEvent: (event: SseEvent) => void,
  options: { onChunk?: (chunk: Uint8Array) => void; onOverflow?: (chars: number) => void } = {},
): Promise<void> {
  const parser = new SseParser({ maxEventChars: limit, ...(options.onOverflow ? { onOverflow: options.onOverflow } : {}) });
  await forEachChunk(response, signal, 'SSE stream', (chunk) => {
    options.onChunk?.(chunk);
    for (const event of parser.push(chunk)) onEvent(event);
  });
  for (const event of parser.end()) onEvent(event);
}

/**
 * Calls `onChunk` for each body chunk; rejects with the signal's reason when it aborts. Whatever
 * the peer does to the body (a reset, a close before its end: Node's bare "aborted") rejects with
 * a ConnectionError naming `what`, never a bare Error.
 */
function forEachChunk(response: IncomingMessage, signal: AbortSignal, what: string, onChunk: (chunk: Uint8Array) => void): Promise<void> {
  let received = 0;
  const broken = (cause?: Error) =>
    new ConnectionClosedError(
      `${what}: the response ended before its body was complete (after ${received} bytes${cause ? `: ${(cause as NodeJS.ErrnoException).code ?? cause.message}` : ''})`,
      cause ? { cause } : undefined,
    );
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      cleanup();
      response.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    // A server that floods cannot keep timers (the deadlines that end a case) from firing.
    const paced = pacedReading(response);
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength;
      try {
        onChunk(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } catch (error) {
        fail(error);
        return;
      }
      paced();
    };
    const onEnd = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => fail(signal.aborted ? signal.reason : error instanceof ConnectionError ? error : broken(error));
    const onClose = () => {
      if (!response.complete) fail(signal.aborted ? signal.reason : broken());
    };
    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
      response.off('data', onData);
      response.off('end', onEnd);
      response.off('error', onError);
      response.off('close', onClose);
    };
    if (signal.aborted) {
      fail(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    response.on('data', onData);
    response.on('end', onEnd);
    response.on('error', onError);
    response.on('close', onClose);
  });
}
