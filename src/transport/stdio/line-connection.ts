// What the stdio client and server share: newline-delimited JSON-RPC over a pair of byte streams.
// Lines that are not JSON are recorded as faults (never thrown); every byte goes on the transcript.
// What a peer can make grow without end is bounded: the unread messages, the faults kept.
import type { Writable } from 'node:stream';
import { ArrivalQueue, receivedMessageLimits } from '../arrival-queue.js';
import { BoundedList } from '../bounded-list.js';
import type { CloseInfo, Connection, ConnectionFault, NextOptions, ReceivedMessage } from '../connection.js';
import { ConnectionClosedError } from '../errors.js';
import { Transcript, type TranscriptChannel, type TranscriptOptions } from '../transcript.js';
import { LineDecoder, isOverflow } from './line-decoder.js';
import { decodeJsonBody, encodeJsonMessage } from '../json-message.js';

/** Faults kept: the first and the latest this many each. */
const FAULTS_KEPT = 500;

export interface LineConnectionOptions {
  /** Longest line accepted; longer ones are skipped and reported as LINE_TOO_LONG. Default 16 MiB. */
  maxLineBytes?: number;
  transcript?: Transcript | TranscriptOptions;
}


export abstract class LineConnection implements Connection {
  readonly kind = 'stdio' as const;
  readonly transcript: Transcript;
  readonly closed: Promise<CloseInfo>;

  readonly #queue = new ArrivalQueue<ReceivedMessage>(
    'message',
    receivedMessageLimits((_item, dropped) => {
      if (dropped === 1) this.transcript.event('more messages arrived unread than the queue keeps: the oldest unread ones are dropped from here on');
    }),
  );
  readonly #faults = new BoundedList<ConnectionFault>(FAULTS_KEPT, FAULTS_KEPT);
  readonly #decoder: LineDecoder;
  readonly #input: TranscriptChannel;
  readonly #output: TranscriptChannel;
  #writable: Writable | undefined;
  #resolveClosed!: (info: CloseInfo) => void;
  #isClosed = false;

  protected constructor(
    options: LineConnectionOptions,
    fds: { input: 'stdin' | 'stdout'; output: 'stdin' | 'stdout' },
  ) {
    this.transcript = options.transcript instanceof Transcript ? options.transcript : new Transcript(options.transcript);
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#decoder = new LineDecoder(options.maxLineBytes ?? 16 * 1024 * 1024);
    this.#input = { kind: 'stdio', fd: fds.input };
    this.#output = { kind: 'stdio', fd: fds.output };
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  async send(message: unknown): Promise<void> {
    const body = encodeJsonMessage(message);
    const line = new Uint8Array(body.byteLength + 1);
    line.set(body);
    line[body.byteLength] = 0x0a;
    await this.write(line, message);
  }

  /** Writes the bytes exactly as given (no newline added). */
  sendRaw(bytes: Uint8Array): Promise<void> {
    return this.write(bytes, undefined);
  }

  next(predicate?: (received: ReceivedMessage) => boolean, options?: NextOptions): Promise<ReceivedMessage> {
    return this.#queue.next(predicate, options);
  }

  pending(): readonly ReceivedMessage[] {
    return this.#queue.pending();
  }

  faults(): readonly ConnectionFault[] {
    return this.#faults.items();
  }

  abstract close(reason?: string): Promise<void>;

  // ----- for subclasses ------------------------------------------------------------------------

  protected attachOutput(writable: Writable): void {
    this.#writable = writable;
    writable.on('error', (error: NodeJS.ErrnoException) => {
      this.fault('WRITE_FAILED', `writing to ${this.#output.kind === 'stdio' ? this.#output.fd : 'output'} failed: ${error.code ?? error.message}`, this.#output);
    });
  }

  protected write(bytes: Uint8Array, decoded: unknown): Promise<void> {
    const writable = this.#writable;
    if (this.#isClosed || !writable || writable.destroyed || writable.writableEnded) {
      return Promise.reject(new ConnectionClosedError('the stdio connection is closed'));
    }
    this.transcript.record({ direction: 'sent', channel: this.#output, bytes, ...(decoded !== undefined ? { decoded } : {}) });
    return new Promise((resolve, reject) => {
      writable.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (error) => {
        if (error) reject(new ConnectionClosedError(`write failed: ${error.message}`, { cause: error }));
        else resolve();
      });
    });
  }

  /** Feeds bytes read from the peer. */
  protected receive(chunk: Uint8Array): void {
    for (const item of this.#decoder.push(chunk)) this.#onLine(item);
  }

  /** The peer's output ended: a last unterminated line still counts. */
  protected receiveEnd(): void {
    for (const item of this.#decoder.end()) this.#onLine(item);
  }

  protected fault(code: string, message: string, channel: TranscriptChannel, jsonRpcCode?: number): void {
    const fault: ConnectionFault = { code, message, channel, at: Date.now() };
    if (jsonRpcCode !== undefined) fault.jsonRpcCode = jsonRpcCode;
    this.#faults.push(fault);
  }

  /** Marks the connection ended: waits reject once nothing queued matches. */
  protected finish(info: CloseInfo): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    if (this.#queue.dropped > 0) this.transcript.event(`${this.#queue.dropped} messages were dropped unread (more than the queue keeps)`);
    this.transcript.event(`closed (${info.initiator})${info.reason ? `: ${info.reason}` : ''}${info.code !== undefined ? ` code ${info.code}` : ''}`);
    this.#queue.close(new ConnectionClosedError(`stdio connection closed (${info.reason ?? info.initiator}) while waiting for a message`));
    this.#resolveClosed(info);
  }

  #onLine(item: ReturnType<LineDecoder['push']>[number]): void {
    if (isOverflow(item)) {
      const error = { code: 'LINE_TOO_LONG', message: `line of ${item.byteLength} bytes is over the limit; skipped` };
      this.transcript.record({ direction: 'received', channel: this.#input, byteLength: item.byteLength, error });
      this.fault(error.code, error.message, this.#input, -32600);
      return;
    }
    const content = item.content.at(-1) === 0x0d ? item.content.subarray(0, -1) : item.content;
    const decoded = decodeJsonBody(content);
    if (!decoded.ok) {
      const { code, message } = decoded.failure;
      this.#rejectLine(item.wire, code === 'EMPTY_BODY' ? 'INVALID_JSON' : code, code === 'EMPTY_BODY' ? 'empty line where a JSON-RPC message was expected' : message);
      return;
    }
    const message = decoded.value;
    this.transcript.record({ direction: 'received', channel: this.#input, bytes: item.wire, decoded: message });
    this.#queue.push({ message, channel: this.#input, at: Date.now(), encoding: 'json', body: item.content });
  }

  #rejectLine(bytes: Uint8Array, code: string, message: string): void {
    this.transcript.record({ direction: 'received', channel: this.#input, bytes, error: { code, message } });
    this.fault(code, message, this.#input, -32700);
  }
}
