// Execution streams (001 §2.2, §5): unidirectional streams that start with an 8-byte header naming
// a request in flight and a stream tag. Incoming ones are correlated with the control stream's
// requests (Stream Injection, -32002), counted against maxConcurrentStreams (-32000) and handed out
// with their payload as a ReadableStream; outgoing ones write the header, then the payload.
import { ArrivalQueue } from '../arrival-queue.js';
import type { ExecutionStreamHeader, IncomingExecutionStream, NextOptions, OutgoingExecutionStream } from '../connection.js';
import { ConnectionClosedError, InvalidStateError, LimitExceededError } from '../errors.js';
import type { TranscriptChannel } from '../transcript.js';
import { encodeExecHeader, ExecHeaderDecoder, WireError } from '../../wire/index.js';
import { StreamOpenError, StreamResetError, WT_ERROR } from './errors.js';
import type { WtSessionView } from './hooks.js';
import type { LibrarySession } from './library-session.js';
import { asError, type SessionCore } from './session-core.js';

/** Bytes read ahead from an incoming execution stream (keeps the library busy; bounded memory per stream). */
const INCOMING_PREFETCH = new ByteLengthQueuingStrategy({ highWaterMark: 4 * 1024 * 1024 });

export class ExecutionStreams {
  readonly #core: SessionCore;
  readonly #session: LibrarySession;
  readonly #view: () => WtSessionView;
  readonly #arrived = new ArrivalQueue<IncomingExecutionStream>('execution stream');
  /** "requestId:tag" of every peer stream accepted. */
  readonly #seen = new Set<string>();
  #incomingOpen = 0;
  #outgoingOpen = 0;
  #nextLocalUni: number;
  #nextRemoteUni: number;

  constructor(core: SessionCore, session: LibrarySession, view: () => WtSessionView) {
    this.#core = core;
    this.#session = session;
    this.#view = view;
    // QUIC-style stream ids: uni streams opened by the client are 4n+2, by the server 4n+3.
    this.#nextLocalUni = core.role === 'client' ? 2 : 3;
    this.#nextRemoteUni = core.role === 'client' ? 3 : 2;
  }

  get incomingOpen(): number {
    return this.#incomingOpen;
  }

  get outgoingOpen(): number {
    return this.#outgoingOpen;
  }

  /** Whether a peer stream for (request id, tag) has arrived. */
  seen(id: string | number, tag: number): boolean {
    return this.#seen.has(`${String(id)}:${tag}`);
  }

  next(predicate?: (stream: IncomingExecutionStream) => boolean, options?: NextOptions): Promise<IncomingExecutionStream> {
    return this.#arrived.next(predicate, options);
  }

  close(error: Error): void {
    this.#arrived.close(error);
  }

  /** Opens an execution stream and writes its header (refused during `$/shutdown` and, server role, over maxConcurrentStreams). */
  async open(header: ExecutionStreamHeader): Promise<OutgoingExecutionStream> {
    const core = this.#core;
    if (!core.raw) {
      if (core.shuttingDown && core.hooks.streamWhileShuttingDown?.() !== 'open') throw new InvalidStateError('$/shutdown is in progress: no new execution streams (001 §7)');
      if (core.role === 'server' && this.#outgoingOpen >= core.limits.maxConcurrentStreams) {
        throw new LimitExceededError(
          'maxConcurrentStreams',
          `already ${this.#outgoingOpen} execution streams open (maxConcurrentStreams ${core.limits.maxConcurrentStreams})`,
        );
      }
    }
    const encoded = encodeExecHeader(header);
    const headerBytes = core.hooks.executionHeader?.(encoded, header) ?? encoded;
    const stream = await this.openUni(headerBytes, header);
    await core.hooks.streamOpened?.(header, headerBytes, this.#view());
    return stream;
  }

  /** The peer's unidirectional streams: each an execution stream once its header is read. */
  async accept(): Promise<void> {
    const reader = this.#session.incomingUnidirectionalStreams.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const streamId = this.#nextRemoteUni;
        this.#nextRemoteUni += 4;
        void this.#onIncoming(value, streamId);
      }
    } catch {
      // the session ended
    }
  }

  async #onIncoming(readable: ReadableStream<Uint8Array>, streamId: number): Promise<void> {
    const core = this.#core;
    const reader = readable.getReader();
    const decoder = new ExecHeaderDecoder();
    let decoded: { header: ExecutionStreamHeader; rest: Uint8Array } | undefined;
    const channel: TranscriptChannel = { kind: 'stream', streamId };
    try {
      while (!decoded) {
        const { value, done } = await reader.read();
        if (done) {
          decoder.end();
          return;
        }
        decoded = decoder.push(value);
      }
    } catch (error) {
      if (error instanceof WireError) {
        core.transcript.record({ direction: 'received', channel, error: { code: error.code, message: error.message } });
        core.fault(error.code, error.message, channel, error.jsonRpcCode);
        if (core.hooks.truncatedStreamHeader?.(error) === 'close-session') {
          void core.ops.close(`${error.code}: ${error.message}`);
          return;
        }
        // Reading truncatedStreamHeader 'drop' (WT-EXEC-1): a stream is no request, nothing is owed.
        const silent = core.role === 'server' && core.readings.truncatedStreamHeader === 'drop';
        if (core.answers.parseErrors && !silent) void core.sendError(null, error.jsonRpcCode, error.message, error.toJsonRpcError().data);
      }
      void reader.cancel().catch(() => undefined);
      return;
    }
    const { header, rest } = decoded;
    const withHeader: TranscriptChannel = { kind: 'stream', streamId, header };
    core.transcript.record({ direction: 'received', channel: withHeader, bytes: encodeExecHeader(header), note: 'execution stream header' });
    const data = { requestId: header.requestId, streamTag: header.streamTag };
    if (core.role === 'server' && this.#incomingOpen >= core.limits.maxConcurrentStreams) {
      const text = `Stream Limit Exceeded: more than maxConcurrentStreams (${core.limits.maxConcurrentStreams}) execution streams open`;
      const decision = core.hooks.streamOverLimit?.(WT_ERROR.STREAM_LIMIT_EXCEEDED, text) ?? { refuse: WT_ERROR.STREAM_LIMIT_EXCEEDED };
      if (decision !== 'accept') {
        this.#reject(reader, withHeader, 'STREAM_LIMIT_EXCEEDED', decision.message ?? text, decision.refuse, data);
        return;
      }
    }
    this.#incomingOpen++;
    const correlated = await core.inFlight.waitFor(header.requestId, core.clientRequests, core.limits.streamCorrelationGraceMs);
    const injection = correlated ? 'accept' : (core.hooks.injectedStream?.(header) ?? 'refuse');
    if (injection !== 'accept') {
      this.#incomingOpen--;
      core.changed();
      const text = `Stream Injection: stream header names request ${header.requestId}, which is not in flight`;
      // Reading injectedStream 'discard' (WT-EXEC-2): reported, its payload read and thrown away instead of stopped.
      const discard = core.role === 'server' && core.readings.injectedStream === 'discard';
      this.#reject(reader, withHeader, 'STREAM_INJECTION', text, WT_ERROR.STREAM_INJECTION, data, { discard, report: injection === 'refuse' });
      return;
    }
    this.#seen.add(`${header.requestId}:${header.streamTag}`);
    core.inFlight.streamSeen(header.requestId, header.streamTag);
    core.changed();
    this.#arrived.push(this.#incoming(reader, streamId, header, rest, withHeader));
  }

  #reject(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    channel: TranscriptChannel,
    code: string,
    text: string,
    jsonRpcCode: number,
    data: unknown,
    { discard = false, report = true }: { discard?: boolean; report?: boolean } = {},
  ): void {
    const core = this.#core;
    if (discard) {
      void this.#discard(reader);
      core.transcript.record({ direction: 'local', channel, note: `refused, payload read and discarded: ${text}` });
    } else {
      void reader.cancel(text).catch(() => undefined);
      core.transcript.record({ direction: 'local', channel, note: `stopped reading: ${text}` });
    }
    core.fault(code, text, channel, jsonRpcCode);
    if (core.answers.streamInjection && report) void core.sendError(null, jsonRpcCode, text, data);
  }

  /** Reads a refused stream to its end and throws the bytes away (bounded by the session's life). */
  async #discard(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        const { done } = await reader.read();
        if (done || this.#core.isClosed) break;
      }
    } catch {
      // reset by the peer or the session ended
    }
    if (this.#core.isClosed) void reader.cancel().catch(() => undefined);
  }

  #incoming(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    streamId: number,
    header: ExecutionStreamHeader,
    rest: Uint8Array,
    channel: TranscriptChannel,
  ): IncomingExecutionStream {
    const core = this.#core;
    let payloadBytes = 0;
    let finished = false;
    const finish = (how: string) => {
      if (finished) return;
      finished = true;
      this.#incomingOpen--;
      core.transcript.record({ direction: 'received', channel, byteLength: payloadBytes, note: `payload, ${how}` });
      core.changed();
    };
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        if (rest.byteLength > 0) {
          payloadBytes += rest.byteLength;
          controller.enqueue(rest);
        }
      },
      pull: async (controller) => {
        try {
          const { value, done } = await reader.read();
          if (done) {
            finish('ended (FIN)');
            controller.close();
            return;
          }
          payloadBytes += value.byteLength;
          controller.enqueue(value);
        } catch (error) {
          finish(`reset by the peer (${asError(error).message})`);
          controller.error(new StreamResetError(header.requestId, header.streamTag, asError(error).message));
        }
      },
      cancel: async (reason) => {
        finish(`cancelled locally (${String(reason ?? 'no reason')})`);
        await reader.cancel(reason).catch(() => undefined);
      },
    }, INCOMING_PREFETCH);
    return {
      streamId,
      header,
      readable,
      cancel: async (reason?: string) => {
        await readable.cancel(reason).catch(() => undefined);
      },
    };
  }

  /** Opens a unidirectional stream writing `firstBytes` first (an execution-stream header, or raw bytes when `header` is undefined). */
  async openUni(firstBytes: Uint8Array, header: ExecutionStreamHeader | undefined): Promise<OutgoingExecutionStream> {
    const core = this.#core;
    core.assertOpen();
    let writable: WritableStream<Uint8Array>;
    try {
      writable = await this.#session.createUnidirectionalStream();
    } catch (error) {
      if (core.isClosed) throw new ConnectionClosedError('connection closed while opening a stream', { cause: error });
      throw new StreamOpenError(asError(error).message, { cause: error });
    }
    const writer = writable.getWriter();
    const streamId = this.#nextLocalUni;
    this.#nextLocalUni += 4;
    const channel: TranscriptChannel = header ? { kind: 'stream', streamId, header } : { kind: 'stream', streamId };
    this.#outgoingOpen++;
    let payloadBytes = 0;
    let finished = false;
    const finish = (how: string) => {
      if (finished) return;
      finished = true;
      this.#outgoingOpen--;
      core.transcript.record({ direction: 'sent', channel, byteLength: payloadBytes, note: `payload, ${how}` });
      core.changed();
    };
    try {
      await writer.write(firstBytes);
    } catch (error) {
      finish(`failed: ${asError(error).message}`);
      if (core.isClosed) throw new ConnectionClosedError('connection closed while opening a stream', { cause: error });
      throw new StreamOpenError(`the first bytes could not be written: ${asError(error).message}`, { cause: error });
    }
    core.transcript.record({ direction: 'sent', channel, bytes: firstBytes, note: header ? 'execution stream header' : 'raw stream start' });
    const fallbackHeader = header ?? { requestId: -1, streamTag: -1 };
    return {
      streamId,
      header: fallbackHeader,
      write: async (chunk) => {
        try {
          await writer.ready;
          await writer.write(header && core.hooks.streamChunk ? core.hooks.streamChunk(chunk, header) : chunk);
        } catch (error) {
          finish(`failed: ${asError(error).message}`);
          throw this.#failure(fallbackHeader, error);
        }
        payloadBytes += chunk.byteLength;
      },
      close: async () => {
        try {
          await writer.close();
        } catch (error) {
          finish(`failed: ${asError(error).message}`);
          throw this.#failure(fallbackHeader, error);
        }
        finish('ended (FIN)');
      },
      abort: async (reason) => {
        await writer.abort(reason ?? 'aborted').catch(() => undefined);
        finish(`reset locally (${reason ?? 'no reason'})`);
      },
    };
  }

  /** A write on an outgoing stream failed: the session closed, or the peer stopped or reset it. */
  #failure(header: ExecutionStreamHeader, error: unknown): Error {
    if (this.#core.isClosed) return new ConnectionClosedError('connection closed while writing a stream', { cause: error });
    return new StreamResetError(header.requestId, header.streamTag, `stopped by the peer: ${asError(error).message}`);
  }
}
