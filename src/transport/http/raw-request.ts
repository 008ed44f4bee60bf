// Raw requests (`connection.http.request()`): a case's own HTTP request to the endpoint (any method,
// headers and body), outside the session's message flow, answered with the whole response (status,
// headers, text, the JSON-RPC messages and SSE events in it), read until it ends, its deadline, or
// what a raw answer keeps, and recorded in the connection's transcript.
import type http from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { NextOptions, RawHttpRequest, RawHttpResponse } from '../connection.js';
import { ConnectionError, ConnectionTimeoutError } from '../errors.js';
import type { Transcript, TranscriptChannel } from '../transcript.js';
import { readBody, readSse, sseEventWithoutMessage } from './body.js';
import { flattenHeaders, mediaType, startExchange } from './exchange.js';
import { decodeJsonBody } from './json-body.js';

/** Events a raw `request()` keeps of an event stream before it stops reading (as the queue keeps messages). */
const RAW_EVENTS_KEPT = 10_000;

/** What a raw request needs of the connection it goes out on. */
export interface RawRequestLink {
  url: URL;
  agent: http.Agent;
  transcript: Transcript;
  /** Aborts when the connection closes. */
  lifetime: AbortSignal;
  /** The deadline when the caller names none. */
  timeoutMs: number;
  maxEventBytes: number;
  maxBodyBytes: number;
  /** An SSE event over maxEventBytes was skipped. */
  onSseOverflow(chars: number, channel: TranscriptChannel): void;
}

/**
 * Sends one raw request (`headers` are all it carries beyond what HTTP/1.1 needs) and reads its
 * whole answer, within `options.timeoutMs` (default `link.timeoutMs`); the connection's end or the
 * caller's signal aborts it.
 */
export async function rawRequest(link: RawRequestLink, request: RawHttpRequest, headers: Record<string, string>, options: NextOptions = {}): Promise<RawHttpResponse> {
  const method = request.method ?? 'POST';
  const url = request.path === undefined ? link.url : new URL(request.path, link.url);
  const body = typeof request.body === 'string' ? new TextEncoder().encode(request.body) : request.body;
  const decodedBody = body ? decodeJsonBody(body) : undefined;
  link.transcript.record({
    direction: 'sent',
    channel: { kind: 'http', method, url: url.href, headers },
    ...(body ? { bytes: body } : {}),
    ...(decodedBody?.ok ? { decoded: decodedBody.value } : {}),
  });
  const timeoutMs = options.timeoutMs ?? link.timeoutMs;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new ConnectionTimeoutError(`the response to ${method} ${url.href}`, timeoutMs)), timeoutMs);
  const onAbort = (reason: unknown) => abort.abort(reason);
  const onLifetime = () => onAbort(link.lifetime.reason);
  const onCaller = () => onAbort(options.signal!.reason);
  link.lifetime.addEventListener('abort', onLifetime, { once: true });
  options.signal?.addEventListener('abort', onCaller, { once: true });
  try {
    const exchange = startExchange({ url, method, headers, ...(body ? { body } : {}), agent: link.agent, signal: abort.signal });
    const response = await exchange.response;
    return await collect(link, response, method, url, abort.signal);
  } finally {
    clearTimeout(timer);
    link.lifetime.removeEventListener('abort', onLifetime);
    options.signal?.removeEventListener('abort', onCaller);
  }
}

/** Reads a raw response until it ends or the deadline cuts it short. */
async function collect(link: RawRequestLink, response: IncomingMessage, method: string, url: URL, signal: AbortSignal): Promise<RawHttpResponse> {
  const status = response.statusCode ?? 0;
  const headers = flattenHeaders(response.headers);
  const channel: TranscriptChannel = { kind: 'http', method, url: url.href, status, headers };
  const result: RawHttpResponse = { status, headers, bodyKind: 'empty', text: '', messages: [], events: [] };
  const cutByDeadline = () => signal.aborted && signal.reason instanceof ConnectionTimeoutError;
  const what = `${method} ${url.href}`;
  if (mediaType(headers['content-type']) === 'text/event-stream') {
    result.bodyKind = 'sse';
    link.transcript.record({ direction: 'received', channel, note: `${method} answered ${status} with an SSE stream` });
    const decoder = new TextDecoder();
    // The stream is read until it ends, the deadline, or what a raw answer keeps (its text, its
    // events), whichever comes first.
    let received = 0;
    let cutAt: string | undefined;
    const cut = (why: string) => {
      cutAt = why;
      throw new ConnectionError('SSE_STREAM_CUT', `the SSE stream of ${what} was cut at ${why}`);
    };
    try {
      await readSse(
        response,
        signal,
        link.maxEventBytes,
        (event) => {
          if (result.events.length >= RAW_EVENTS_KEPT) cut(`${RAW_EVENTS_KEPT} events`);
          const entry: RawHttpResponse['events'][number] = { data: event.data };
          if (event.event !== undefined) entry.event = event.event;
          if (event.id !== undefined) entry.id = event.id;
          result.events.push(entry);
          const bytes = new TextEncoder().encode(event.raw);
          if (event.data === '') {
            link.transcript.record({ direction: 'received', channel, bytes, note: sseEventWithoutMessage(event) });
            return;
          }
          let decoded: unknown;
          try {
            decoded = JSON.parse(event.data);
            result.messages.push(decoded);
          } catch {
            decoded = undefined;
          }
          link.transcript.record({ direction: 'received', channel, bytes, decoded });
        },
        {
          onChunk: (chunk) => {
            received += chunk.byteLength;
            if (received > link.maxEventBytes) cut(`${link.maxEventBytes} bytes`);
            result.text += decoder.decode(chunk, { stream: true });
          },
          onOverflow: (chars) => link.onSseOverflow(chars, channel),
        },
      );
    } catch (error) {
      if (!cutByDeadline() && cutAt === undefined) throw error;
      result.incomplete = true;
      if (cutAt !== undefined) link.transcript.record({ direction: 'received', channel, note: `SSE stream cut at ${cutAt}: a raw answer keeps no more` });
    }
    result.text += decoder.decode();
    return result;
  }
  let body: Uint8Array;
  const chunks: Uint8Array[] = [];
  try {
    body = await readBody(response, signal, link.maxBodyBytes, what, chunks);
  } catch (error) {
    if (!cutByDeadline()) throw error;
    result.incomplete = true;
    body = Buffer.concat(chunks);
  }
  result.text = new TextDecoder().decode(body);
  const kind = mediaType(headers['content-type']);
  result.bodyKind = kind === 'application/json' || kind.endsWith('+json') ? 'json' : body.byteLength === 0 ? 'empty' : 'other';
  const decoded = body.byteLength > 0 ? decodeJsonBody(body) : undefined;
  if (decoded?.ok) result.messages = Array.isArray(decoded.value) ? decoded.value : [decoded.value];
  link.transcript.record({
    direction: 'received',
    channel,
    bytes: body,
    // The body of an HTTP error is free: one that does not decode is noted, not an error.
    ...(decoded?.ok ? { decoded: decoded.value } : decoded && status < 400 ? { error: decoded.failure } : {}),
    ...(result.incomplete ? { note: 'cut short by the deadline' } : decoded && !decoded.ok && status >= 400 ? { note: `HTTP ${status} with a ${kind || 'untyped'} body` } : {}),
  });
  return result;
}
