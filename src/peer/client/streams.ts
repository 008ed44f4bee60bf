// Execution streams on the client side of the WebTransport binding (001 §2.2, §5): every stream the
// server opens is read at once, whatever the arrival order relative to the result naming it
// (WT-EXEC-7), keyed by (request id, stream tag). A result's `ref/stream` items are then resolved
// against what arrived: a stream that never came, was reset, or was named by `$/streamError` is a
// failure, never a complete payload (WT-EXEC-3, WT-STREAMERR-3).
import type { IncomingExecutionStream, WebTransportFacet } from '../../transport/connection.js';
import { ConnectionClosedError } from '../../transport/errors.js';

export interface StreamInfo {
  requestId: number;
  streamTag: number;
}

/** What became of one execution stream. */
export interface StreamOutcome extends StreamInfo {
  /** Payload bytes received (after the 8-byte header). */
  bytes: number;
  /** Ended with FIN, was not reset, and no `$/streamError` named it. */
  complete: boolean;
  /** Why it is not complete, or why its length is wrong. */
  failure?: string;
  /** The payload, when no sink took it and it fit the in-memory limit. */
  data?: Uint8Array;
  /** The length the result announced for it, when it announced one. */
  expectedBytes?: number;
  mimeType?: string;
}

/** Where a request's stream payloads go (e.g. a file); undefined keeps them in memory. */
export type StreamSink = (stream: StreamInfo) => WritableStream<Uint8Array> | undefined;

export interface ExecutionStreamsOptions {
  /** Whether a request id is one this client sent (anything else is an injected stream). */
  isOwnRequest(requestId: number): boolean;
  /** FAULT accept-injected-stream: read injected streams instead of stopping them. */
  acceptInjected: boolean;
  /**
   * FAULT stream-before-result-dropped: whether a stream of `requestId` is stopped because the
   * result naming it has not come yet (a correct client reads it whatever the order, WT-EXEC-7).
   */
  refuseEarly?(requestId: number): boolean;
  /** A line for the client's log. */
  note(text: string): void;
  /** Payload bytes kept in memory per stream when no sink takes it. Default 64 MiB. */
  keepBytes?: number;
}

const key = (requestId: number, streamTag: number) => `${requestId}:${streamTag}`;

export class ExecutionStreams {
  readonly #facet: WebTransportFacet;
  readonly #options: ExecutionStreamsOptions;
  readonly #outcomes = new Map<string, Promise<StreamOutcome>>();
  readonly #arrivals = new Map<string, Set<() => void>>();
  readonly #sinks = new Map<number, StreamSink>();
  readonly #streamErrors = new Map<string, string>();
  /** Injected streams read because of the accept-injected-stream fault. */
  readonly injectedRead: StreamOutcome[] = [];
  /** Streams being read now, and who waits for there to be none (whenIdle). */
  #reading = 0;
  readonly #idleWaiters = new Set<() => void>();

  constructor(facet: WebTransportFacet, options: ExecutionStreamsOptions) {
    this.#facet = facet;
    this.#options = options;
    void this.#accept();
  }

  /** Routes the streams of request `requestId` to `sink` (until `clearSink`). */
  setSink(requestId: number, sink: StreamSink): void {
    this.#sinks.set(requestId, sink);
  }

  clearSink(requestId: number): void {
    this.#sinks.delete(requestId);
  }

  /**
   * `$/streamError` from the server. Returns whether it names a request this client sent; one that
   * does not is to be ignored (WT-STREAMERR-4).
   */
  onStreamError(params: unknown): boolean {
    const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    const requestId = p['requestId'];
    const streamTag = p['streamTag'];
    if (typeof requestId !== 'number' || typeof streamTag !== 'number' || !this.#options.isOwnRequest(requestId)) return false;
    this.#streamErrors.set(key(requestId, streamTag), typeof p['error'] === 'string' ? p['error'] : JSON.stringify(p['error'] ?? 'unspecified'));
    return true;
  }

  /**
   * The outcome of stream (requestId, streamTag): waits up to `graceMs` for it to arrive (the
   * session already held the result for the binding's grace), then for it to be read to its end.
   * Undefined when it never came.
   */
  async take(requestId: number, streamTag: number, graceMs: number): Promise<StreamOutcome | undefined> {
    const k = key(requestId, streamTag);
    if (!this.#outcomes.has(k)) await this.#arrival(k, graceMs);
    const pending = this.#outcomes.get(k);
    if (pending === undefined) return undefined;
    const outcome = { ...(await pending) };
    const streamError = this.#streamErrors.get(k);
    if (streamError !== undefined && outcome.complete) {
      // The server reported the stream failed: its content is not delivered as complete (WT-STREAMERR-3).
      outcome.complete = false;
      outcome.failure = `the server reported the stream failed ($/streamError): ${streamError}`;
    } else if (streamError !== undefined && outcome.failure !== undefined) {
      outcome.failure = `${outcome.failure}; $/streamError: ${streamError}`;
    }
    return outcome;
  }

  /** Resolves once no execution stream is being read (at once when none is). */
  whenIdle(): Promise<void> {
    if (this.#reading === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.add(resolve));
  }

  #arrival(k: string, graceMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.#arrivals.get(k) ?? new Set();
      this.#arrivals.set(k, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, graceMs);
      waiters.add(done);
    });
  }

  async #accept(): Promise<void> {
    for (;;) {
      let stream: IncomingExecutionStream;
      try {
        stream = await this.#facet.nextExecutionStream();
      } catch (error) {
        if (error instanceof ConnectionClosedError) return;
        throw error;
      }
      const { requestId, streamTag } = stream.header;
      if (!this.#options.isOwnRequest(requestId)) {
        if (!this.#options.acceptInjected) {
          this.#options.note(`execution stream for request ${requestId} (tag ${streamTag}), which this client never sent: stopped`);
          void stream.cancel('stream injection');
          continue;
        }
        // FAULT accept-injected-stream: the payload is read as if it belonged here.
        this.#options.note(`execution stream for request ${requestId} (tag ${streamTag}), which this client never sent: read anyway (fault)`);
        void this.#read(stream, undefined).then((outcome) => void this.injectedRead.push(outcome));
        continue;
      }
      if (this.#options.refuseEarly?.(requestId)) {
        // FAULT stream-before-result-dropped.
        this.#options.note(`execution stream for request ${requestId} (tag ${streamTag}) before its result: stopped (fault)`);
        void stream.cancel('stream before its result');
        continue;
      }
      const k = key(requestId, streamTag);
      if (this.#outcomes.has(k)) {
        this.#options.note(`a second execution stream for request ${requestId} tag ${streamTag}: stopped`);
        void stream.cancel('duplicate stream tag');
        continue;
      }
      this.#outcomes.set(k, this.#read(stream, this.#sinks.get(requestId)?.({ requestId, streamTag })));
      for (const wake of [...(this.#arrivals.get(k) ?? [])]) wake();
      this.#arrivals.delete(k);
    }
  }

  async #read(stream: IncomingExecutionStream, sink: WritableStream<Uint8Array> | undefined): Promise<StreamOutcome> {
    this.#reading++;
    try {
      return await this.#readAll(stream, sink);
    } finally {
      this.#reading--;
      if (this.#reading === 0) {
        const waiters = [...this.#idleWaiters];
        this.#idleWaiters.clear();
        for (const wake of waiters) wake();
      }
    }
  }

  async #readAll(stream: IncomingExecutionStream, sink: WritableStream<Uint8Array> | undefined): Promise<StreamOutcome> {
    const { requestId, streamTag } = stream.header;
    const keepBytes = this.#options.keepBytes ?? 64 * 1024 * 1024;
    const writer = sink?.getWriter();
    const kept: Uint8Array[] = [];
    let bytes = 0;
    let keeping = writer === undefined;
    const reader = stream.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (writer) await writer.write(value);
        else if (keeping && bytes <= keepBytes) kept.push(value);
        else keeping = false;
      }
      await writer?.close();
    } catch (error) {
      await writer?.abort(error).catch(() => undefined);
      return { requestId, streamTag, bytes, complete: false, failure: `the stream failed after ${bytes} bytes: ${(error as Error).message}` };
    }
    const outcome: StreamOutcome = { requestId, streamTag, bytes, complete: true };
    if (keeping) outcome.data = Buffer.concat(kept);
    return outcome;
  }
}

/** `ref/stream` content items of a result (or any value), with what they say about their stream. */
export function refStreamItems(value: unknown, depth = 0): { streamTag: number; mimeType?: string; size?: number }[] {
  if (depth > 16 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => refStreamItems(item, depth + 1));
  const record = value as Record<string, unknown>;
  if (record['type'] === 'ref/stream' && typeof record['streamTag'] === 'number') {
    const item: { streamTag: number; mimeType?: string; size?: number } = { streamTag: record['streamTag'] };
    if (typeof record['mimeType'] === 'string') item.mimeType = record['mimeType'];
    if (typeof record['size'] === 'number') item.size = record['size'];
    return [item];
  }
  return Object.values(record).flatMap((item) => refStreamItems(item, depth + 1));
}

/** Checks a stream against the length its result announced (the outcome fails when they differ). */
export function checkLength(outcome: StreamOutcome, expected: number): void {
  outcome.expectedBytes = expected;
  if (outcome.complete && outcome.bytes !== expected) {
    outcome.complete = false;
    outcome.failure = `stream tag ${outcome.streamTag} of request ${outcome.requestId} carried ${outcome.bytes} bytes, but ${expected} were announced`;
  }
}
