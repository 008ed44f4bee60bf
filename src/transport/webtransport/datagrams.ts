// Datagrams (001 §2.3): a 6-byte header (channel, flags, request id) and a payload in the
// negotiated encoding. Received ones are dropped when malformed (WT-DGRAM-1..4) or naming no
// request in flight (WT-DGRAM-10), refused with -32004 when this server does not support them
// (WT-DGRAM-5), else kept (a bounded number) for nextDatagram(). Sent ones go through a bounded,
// paced queue.
import { ArrivalQueue } from '../arrival-queue.js';
import type { NextOptions, ReceivedDatagram } from '../connection.js';
import { ConnectionClosedError } from '../errors.js';
import type { TranscriptChannel } from '../transcript.js';
import { codecFor, decodeDatagram, encodeDatagram, WireError } from '../../wire/index.js';
import { DatagramsNotSupportedError, WT_ERROR } from './errors.js';
import type { WtSessionView } from './hooks.js';
import type { LibrarySession } from './library-session.js';
import { asError, record, type SessionCore } from './session-core.js';

export class Datagrams {
  readonly #core: SessionCore;
  readonly #session: LibrarySession;
  readonly #view: () => WtSessionView;
  readonly #arrived = new ArrivalQueue<ReceivedDatagram>('datagram');
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #queued = 0;
  /** Server role: requests the binding itself answered (WT-DGRAM-5 reading); a later answer from above is dropped. */
  readonly #answered = new Set<string | number>();

  constructor(core: SessionCore, session: LibrarySession, view: () => WtSessionView) {
    this.#core = core;
    this.#session = session;
    this.#view = view;
  }

  next(predicate?: (datagram: ReceivedDatagram) => boolean, options?: NextOptions): Promise<ReceivedDatagram> {
    return this.#arrived.next(predicate, options);
  }

  close(error: Error): void {
    this.#arrived.close(error);
  }

  /** Server role: the id of a response to a request this side already answered with -32004, or undefined. */
  answeredAlready(message: unknown): string | number | undefined {
    const m = record(message);
    const id = m?.['id'];
    if (m === undefined || 'method' in m || (typeof id !== 'string' && typeof id !== 'number') || !this.#answered.has(id)) return undefined;
    return id;
  }

  /** Sends one datagram: its payload (in the readings taken) behind a 6-byte header. */
  async send(datagram: { channel: number; flags?: number; requestId: number; payload: Uint8Array }): Promise<void> {
    const core = this.#core;
    const supported = core.role === 'server' ? core.datagramsSupported : core.serverCapabilities?.datagramsSupported !== false;
    if (!supported && !core.raw) throw new DatagramsNotSupportedError();
    let payload = datagram.payload;
    const notification = datagram.channel === 0x01 || datagram.channel === 0x03;
    // Reading datagramPayload 'notification' (WT-DGRAM-6): the whole notification rather than its params.
    if (core.role === 'server' && core.readings.datagramPayload === 'notification' && notification) {
      payload = wholeNotificationPayload(payload, datagram.channel, codecFor(core.encoding.current));
    }
    if (notification && core.hooks.datagramPayload) payload = core.hooks.datagramPayload(payload, datagram.channel, core.encoding.current);
    const bytes = encodeDatagram({ channel: datagram.channel, flags: datagram.flags ?? 0, requestId: datagram.requestId, payload });
    const sent = core.hooks.datagramBytes?.(bytes, { channel: datagram.channel, requestId: datagram.requestId }) ?? bytes;
    await this.sendBytes(sent, { kind: 'datagram', channel: datagram.channel, requestId: datagram.requestId });
  }

  /** Sends a datagram of exactly these bytes. */
  async sendBytes(bytes: Uint8Array, channel: TranscriptChannel = { kind: 'datagram', channel: bytes[0] ?? -1 }): Promise<void> {
    const core = this.#core;
    core.assertOpen();
    // Bounded, paced queue: the library silently drops datagrams once ~256 are queued.
    await core.until(() => this.#queued < core.limits.maxQueuedDatagrams || core.isClosed);
    core.assertOpen();
    this.#writer ??= this.#session.datagrams.createWritable().getWriter();
    const writer = this.#writer;
    this.#queued++;
    try {
      await writer.ready;
      await writer.write(bytes);
      core.transcript.record({ direction: 'sent', channel, bytes });
    } catch (error) {
      throw core.isClosed ? new ConnectionClosedError('connection closed while sending a datagram', { cause: error }) : error;
    } finally {
      this.#queued--;
      core.changed();
    }
  }

  /** Reads the peer's datagrams until the session ends. */
  async accept(): Promise<void> {
    const reader = this.#session.datagrams.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.#onDatagram(value);
      }
    } catch {
      // the session ended
    }
  }

  #onDatagram(bytes: Uint8Array): void {
    const core = this.#core;
    core.touch();
    const datagram = this.#read(bytes);
    if (datagram === undefined) return;
    const channel: TranscriptChannel = { kind: 'datagram', channel: datagram.channel, requestId: datagram.requestId };
    if (core.role === 'server' && !core.datagramsSupported) {
      if (core.hooks.datagramWhileUnsupported?.(datagram) === 'drop') {
        core.transcript.record({ direction: 'received', channel, bytes, note: 'dropped silently: datagrams not supported' });
        return;
      }
      core.transcript.record({ direction: 'received', channel, bytes, note: 'refused: datagrams not supported' });
      const text = 'Datagram Not Supported: this server advertised datagramsSupported: false';
      core.fault('DATAGRAM_NOT_SUPPORTED', text, channel, WT_ERROR.DATAGRAM_NOT_SUPPORTED);
      // Reading datagramNotSupported 'answer-request' (WT-DGRAM-5): the in-flight request the header names gets the error.
      const answersRequest = core.readings.datagramNotSupported === 'answer-request' && core.inFlight.has(datagram.requestId, 'received');
      void core.sendError(answersRequest ? datagram.requestId : null, WT_ERROR.DATAGRAM_NOT_SUPPORTED, text, { channel: datagram.channel, requestId: datagram.requestId });
      // (send() has checked its id synchronously: the request's own answer, when it comes, is dropped.)
      if (answersRequest) this.#answered.add(datagram.requestId);
      return;
    }
    if (!core.inFlight.has(datagram.requestId, core.clientRequests)) {
      // WT-DGRAM-10: dropped without affecting any request.
      const text = `datagram names request ${datagram.requestId}, which is not in flight`;
      core.transcript.record({ direction: 'received', channel, bytes, note: `dropped: ${text}` });
      core.fault('DATAGRAM_NOT_IN_FLIGHT', text, channel);
      core.hooks.datagramNotInFlight?.(datagram, this.#view());
      return;
    }
    let decoded: unknown;
    let decodeError: { code: string; message: string } | undefined;
    if (datagram.channel === 0x01 || datagram.channel === 0x03) {
      try {
        decoded = codecFor(core.encoding.current).decode(datagram.payload);
      } catch (error) {
        decodeError = { code: error instanceof WireError ? error.code : 'DATAGRAM_PAYLOAD', message: asError(error).message };
      }
    }
    core.transcript.record({ direction: 'received', channel, bytes, decoded, ...(decodeError ? { error: decodeError } : {}) });
    if (this.#arrived.pending().length >= core.limits.maxReceivedDatagrams) {
      core.transcript.record({ direction: 'local', channel, note: 'dropped: too many datagrams not yet taken' });
      return;
    }
    if (decoded !== undefined) datagram.decoded = decoded;
    this.#arrived.push(datagram);
  }

  /**
   * The datagram's header and payload, or undefined when it is dropped: too short, on channel 0x00
   * or an unknown channel, or (unless reading reservedFlags 'ignore') with non-zero flags
   * (WT-DGRAM-1..4). A dropped datagram is reported only with reading droppedDatagram 'report'.
   */
  #read(bytes: Uint8Array): ReceivedDatagram | undefined {
    const core = this.#core;
    try {
      const { channel, flags, requestId, payload } = decodeDatagram(bytes);
      return { channel, flags, requestId, payload, at: Date.now() };
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      if (core.role === 'server' && error.code === 'DATAGRAM_RESERVED_FLAGS' && core.readings.reservedFlags === 'ignore') {
        const cleared = bytes.slice();
        cleared[1] = 0;
        core.transcript.event(`datagram flags 0x${(bytes[1] ?? 0).toString(16)} are reserved: ignored`);
        const datagram = this.#read(cleared);
        return datagram === undefined ? undefined : { ...datagram, flags: bytes[1] ?? 0 };
      }
      const channel: TranscriptChannel = { kind: 'datagram', channel: bytes[0] ?? -1 };
      core.transcript.record({ direction: 'received', channel, bytes, error: { code: error.code, message: error.message }, note: 'dropped' });
      core.fault(error.code, error.message, channel, error.jsonRpcCode);
      if (core.role !== 'server') return undefined;
      if (core.hooks.datagramMalformed?.(error, bytes) === 'close-session') {
        void core.ops.close(`${error.code}: ${error.message}`);
        return undefined;
      }
      if (core.readings.droppedDatagram === 'report') void core.sendError(null, WT_ERROR.INVALID_REQUEST, `Invalid Request: datagram dropped: ${error.message}`, { channel: bytes[0] ?? null });
      return undefined;
    }
  }
}

/** A progress (0x01) or log (0x03) payload holding the notification's params, re-encoded as the whole notification. */
function wholeNotificationPayload(payload: Uint8Array, channel: number, codec: { encode(value: unknown): Uint8Array; decode(bytes: Uint8Array): unknown }): Uint8Array {
  let params: unknown;
  try {
    params = codec.decode(payload);
  } catch {
    return payload;
  }
  const method = channel === 0x01 ? 'notifications/progress' : 'notifications/message';
  return codec.encode({ jsonrpc: '2.0', method, params });
}
