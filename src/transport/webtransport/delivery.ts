// Control messages on their way to next(): in-flight bookkeeping as each is taken, then delivery in
// arrival order, a message that references execution streams (`ref/stream`) waiting (bounded) for
// them first (WT-EXEC-3: a reference naming no stream is answered with -32001). Untaken messages
// are bounded by maxPendingBytes (the control stream is not read above it).
import { ArrivalQueue } from '../arrival-queue.js';
import type { NextOptions, ReceivedMessage, ServerTransportCapabilities } from '../connection.js';
import type { DecodedFrame } from '../../wire/index.js';
import { WT_ERROR } from './errors.js';
import type { WtSessionView } from './hooks.js';
import { streamTagsReferenced } from './in-flight.js';
import { asError, CONTROL, record, type SessionCore } from './session-core.js';

/** The part of the execution streams delivery waits on. */
export interface StreamsSeen {
  /** Whether a peer stream for (request id, tag) has arrived. */
  seen(id: string | number, tag: number): boolean;
}

export class Delivery {
  readonly #core: SessionCore;
  readonly #streams: StreamsSeen;
  readonly #view: () => WtSessionView;
  readonly #onShutdown: () => void;
  readonly #messages = new ArrivalQueue<ReceivedMessage>('message');
  #chain: Promise<void> = Promise.resolve();
  #pendingBytes = 0;

  constructor(core: SessionCore, streams: StreamsSeen, view: () => WtSessionView, onShutdown: () => void) {
    this.#core = core;
    this.#streams = streams;
    this.#view = view;
    this.#onShutdown = onShutdown;
  }

  /** Resolves once untaken messages are below maxPendingBytes (or the session closed). */
  belowLimit(): Promise<boolean> {
    return this.#core.until(() => this.#pendingBytes < this.#core.limits.maxPendingBytes || this.#core.isClosed);
  }

  async next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage> {
    const received = await this.#messages.next(predicate, options);
    this.#pendingBytes -= received.body?.byteLength ?? 0;
    this.#core.changed();
    return received;
  }

  pending(): readonly ReceivedMessage[] {
    return this.#messages.pending();
  }

  /** Queues a message that did not come from the peer. */
  pushLocal(message: unknown, note: string): void {
    this.#core.transcript.record({ direction: 'local', channel: CONTROL, decoded: message, note });
    this.#messages.push({ message, channel: CONTROL, at: Date.now() });
  }

  /** A control message taken: in-flight bookkeeping, then delivery (after the streams it references). */
  take(message: unknown, frame: DecodedFrame): void {
    const core = this.#core;
    if (core.role === 'client') this.#noteClientReceived(message);
    core.inFlight.observe(message, 'received');
    core.changed();
    const received: ReceivedMessage = { message, channel: CONTROL, at: Date.now(), encoding: frame.encoding, body: frame.body };
    this.#pendingBytes += frame.body.byteLength;
    const m = record(message);
    // Reading requestStreamReferences 'ignore' (WT-EXEC-3): a request's ref/stream items are not looked up (no stream input is taken).
    const ignoreReferences = core.role === 'server' && core.readings.requestStreamReferences === 'ignore' && typeof m?.['method'] === 'string';
    const tags = ignoreReferences ? [] : streamTagsReferenced(m?.['result'] ?? m?.['params']);
    this.#chain = this.#chain
      .then(() => core.hooks.beforeDelivery?.(this.#view()))
      .then(() => this.#deliver(received, tags))
      .catch((error: unknown) => void core.transcript.event(`delivery failed: ${asError(error).message}`));
    if (m?.['method'] === '$/shutdown') this.#onShutdown();
  }

  /** Ends delivery: messages already on their way are queued first, so a wait sees them. */
  close(error: Error): void {
    void this.#chain.then(() => this.#messages.close(error));
  }

  /** Client role: the initialize result (READY, with the server's capabilities) or error. */
  #noteClientReceived(message: unknown): void {
    const core = this.#core;
    if (core.machine.state !== 'INITIALIZING') return;
    const id = record(message)?.['id'];
    if (id === undefined || id !== core.encoding.initializeRequestId || 'method' in (record(message) ?? {})) return;
    const result = record(record(message)?.['result']);
    if (!result) {
      core.machine.transition('CONTROL_STREAM_OPENED', 'initialize answered with an error');
      return;
    }
    core.serverCapabilities = record(result['transport']) as ServerTransportCapabilities | undefined;
    core.machine.transition('READY', `initialize result received; encoding ${core.encoding.current}`);
  }

  /** Delivers a message, first waiting (bounded) for the streams it references. */
  async #deliver(received: ReceivedMessage, tags: number[]): Promise<void> {
    const core = this.#core;
    const message = record(received.message);
    const id = message?.['id'];
    if (tags.length > 0 && (typeof id === 'number' || typeof id === 'string')) {
      const missing: number[] = [];
      for (const tag of tags) {
        if (!(await this.#waitForStream(id, tag, core.limits.streamReferenceGraceMs))) missing.push(tag);
      }
      const isRequest = typeof message?.['method'] === 'string';
      if (missing.length > 0 && isRequest && core.hooks.danglingStreamReference?.(id) === 'leave-unanswered') {
        core.transcript.event(`request ${String(id)} names stream tag ${missing.join(', ')}, which never came: left unanswered`);
        this.#pendingBytes -= received.body?.byteLength ?? 0;
        return;
      }
      if (missing.length > 0) {
        const text = `ref/stream names stream tag ${missing.join(', ')} for request ${String(id)}, but no such execution stream was opened`;
        core.fault('INVALID_STREAM_REFERENCE', text, CONTROL, WT_ERROR.INVALID_STREAM_REFERENCE);
        if (core.answers.streamReferences) {
          void core.sendError(isRequest ? id : null, WT_ERROR.INVALID_STREAM_REFERENCE, `Invalid Stream Reference: ${text}`, {
            streamTags: missing,
          });
          if (isRequest) {
            this.#pendingBytes -= received.body?.byteLength ?? 0;
            core.inFlight.observe({ id, error: {} }, 'sent');
            return;
          }
        }
      }
    }
    this.#messages.push(received);
  }

  async #waitForStream(id: string | number, tag: number, graceMs: number): Promise<boolean> {
    if (this.#streams.seen(id, tag)) return true;
    return this.#core.until(() => this.#streams.seen(id, tag) || this.#core.isClosed, graceMs).then(() => this.#streams.seen(id, tag));
  }
}
