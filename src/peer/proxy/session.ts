// One proxied session: the forwarding loop between the client connected to the proxy (downstream,
// where the proxy is the server) and the connection the proxy opened to the real server (upstream,
// where it is the client). Every message is recorded and judged by the session's validator on the
// way through; WebTransport datagrams and execution streams are forwarded when both legs are
// WebTransport (with an HTTP or stdio client, progress and log datagrams become the notifications
// they carry and execution streams are read and dropped).
import { notification } from '../../protocol/jsonrpc.js';
import type { Connection, IncomingExecutionStream, ReceivedDatagram, ReceivedMessage } from '../../transport/connection.js';
import { ConnectionClosedError } from '../../transport/errors.js';
import { WebTransportSessionConnection } from '../../transport/webtransport/index.js';
import { isRecord } from '../../wire/index.js';
import type { ProxyRecord } from './record.js';
import { SessionValidator } from './validator.js';
import type { Flow, Violation } from './violation.js';

/** What the binding's client adds to initialize when the real client is not on WebTransport. */
const DEFAULT_TRANSPORT_OFFER = { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] };
/** Datagram channels whose payloads are notifications: progress (0x01) and log (0x03). */
const DATAGRAM_NOTIFICATIONS = new Map<number, string>([
  [0x01, 'notifications/progress'],
  [0x03, 'notifications/message'],
]);
/** How long a result naming ref/stream items waits for those streams to be opened downstream. */
const STREAM_WAIT_MS = 2000;
/** How often connection faults (frames that did not decode...) are looked at between messages. */
const FAULT_POLL_MS = 50;

export interface ProxySessionOptions {
  session: number;
  downstream: Connection;
  upstream: Connection;
  validator: SessionValidator;
  record: ProxyRecord;
  onViolation: (violation: Violation) => void;
  /** A line about what the proxy did (adaptations, forwarding failures). */
  onNote: (line: string) => void;
}

export class ProxySession {
  readonly number: number;
  readonly downstream: Connection;
  readonly upstream: Connection;
  readonly validator: SessionValidator;
  /** Resolves when both legs are closed and the end-of-session rules were judged. */
  readonly ended: Promise<void>;
  readonly #options: ProxySessionOptions;
  /** Execution streams opened downstream, by `<requestId>:<streamTag>`. */
  readonly #forwardedStreams = new Map<string, Promise<void>>();
  #lastSeq = 0;

  constructor(options: ProxySessionOptions) {
    this.#options = options;
    this.number = options.session;
    this.downstream = options.downstream;
    this.upstream = options.upstream;
    this.validator = options.validator;
    this.ended = this.#run();
  }

  /** Closes both legs (idempotent); `ended` resolves once the session is judged. */
  async close(reason: string): Promise<void> {
    await Promise.allSettled([this.downstream.close(reason), this.upstream.close(reason)]);
    await this.ended;
  }

  async #run(): Promise<void> {
    const { downstream, upstream, record } = this.#options;
    record.event(this.number, `started: client on ${downstream.kind}, server on ${upstream.kind}`);
    const poll = setInterval(() => this.#pollFaults(), FAULT_POLL_MS);
    poll.unref();
    const pumps = [this.#pump('client-to-server'), this.#pump('server-to-client')];
    const down = downstream.webtransport;
    const up = upstream.webtransport;
    if (up) {
      pumps.push(this.#datagrams('server-to-client'), this.#streams('server-to-client'));
      if (down) pumps.push(this.#datagrams('client-to-server'), this.#streams('client-to-server'));
    }
    // Either leg ending ends the session: the other is closed too.
    const first = await Promise.race([downstream.closed.then((info) => ({ side: 'client', info })), upstream.closed.then((info) => ({ side: 'server', info }))]);
    record.event(this.number, `the ${first.side} side ended (${first.info.reason ?? first.info.initiator})`);
    await Promise.allSettled([downstream.close(`the ${first.side} side ended`), upstream.close(`the ${first.side} side ended`)]);
    await Promise.allSettled(pumps);
    clearInterval(poll);
    this.#pollFaults();
    for (const violation of this.validator.finish()) this.#report(violation);
    record.event(this.number, 'ended');
  }

  #pollFaults(): void {
    for (const violation of this.validator.observeFaults('downstream', this.downstream.faults(), this.#lastSeq)) this.#report(violation);
    for (const violation of this.validator.observeFaults('upstream', this.upstream.faults(), this.#lastSeq)) this.#report(violation);
  }

  #report(violation: Violation): void {
    this.#options.record.violation(violation);
    this.#options.onViolation(violation);
  }

  /** Forwards control messages one way, in order. */
  async #pump(direction: Flow): Promise<void> {
    const from = direction === 'client-to-server' ? this.downstream : this.upstream;
    const to = direction === 'client-to-server' ? this.upstream : this.downstream;
    for (;;) {
      let received: ReceivedMessage;
      try {
        received = await from.next();
      } catch (error) {
        if (error instanceof ConnectionClosedError) return;
        this.#options.onNote(`session ${this.number}: reading from the ${direction === 'client-to-server' ? 'client' : 'server'} failed: ${(error as Error).message}`);
        return;
      }
      const seq = this.#options.record.message(this.number, direction, received);
      this.#lastSeq = seq;
      this.#pollFaults();
      const wire = { ...(received.encoding ? { encoding: received.encoding } : {}), ...(received.body ? { body: received.body } : {}) };
      for (const violation of this.validator.observe(direction, received.message, seq, received.at, wire)) this.#report(violation);
      const outgoing = await this.#adapt(direction, received.message);
      try {
        await to.send(outgoing);
      } catch (error) {
        if (to.isClosed) return;
        this.#options.onNote(`session ${this.number}: forwarding to the ${direction === 'client-to-server' ? 'server' : 'client'} failed: ${(error as Error).message}`);
      }
    }
  }

  /**
   * What the binding needs when only one leg is WebTransport: the client's initialize gets the
   * transport offer a binding client sends, the server's initialize result the transport
   * capabilities the proxy's own WebTransport session negotiated. A result naming execution streams
   * waits until those streams are open towards the client.
   */
  async #adapt(direction: Flow, message: unknown): Promise<unknown> {
    if (!isRecord(message)) return message;
    if (direction === 'client-to-server') {
      if (message['method'] !== 'initialize' || !('id' in message)) return message;
      const params = isRecord(message['params']) ? message['params'] : {};
      let outgoing = message;
      if (this.upstream.kind === 'webtransport' && params['transport'] === undefined) {
        outgoing = { ...message, params: { ...params, transport: DEFAULT_TRANSPORT_OFFER } };
        this.#options.onNote(`session ${this.number}: the client's initialize has no transport offer; the proxy added ${JSON.stringify(DEFAULT_TRANSPORT_OFFER)}`);
      }
      if (this.upstream.kind === 'webtransport') {
        const transport = (outgoing['params'] as Record<string, unknown>)['transport'];
        const encodings = isRecord(transport) && Array.isArray(transport['encodings']) ? transport['encodings'].filter((e): e is string => typeof e === 'string') : undefined;
        this.validator.noteOfferedEncodings(encodings);
      }
      return outgoing;
    }
    const result = message['result'];
    if (
      this.downstream instanceof WebTransportSessionConnection &&
      this.upstream.kind !== 'webtransport' &&
      isRecord(result) &&
      typeof result['protocolVersion'] === 'string' &&
      result['transport'] === undefined &&
      this.downstream.webtransport.state === 'INITIALIZING'
    ) {
      const transport = this.downstream.negotiate();
      this.#options.onNote(`session ${this.number}: the server is not on WebTransport; the proxy answered the binding's transport negotiation with ${JSON.stringify(transport)}`);
      return { ...message, result: { ...result, transport } };
    }
    if (isRecord(result) && Array.isArray(result['content']) && this.downstream.webtransport && typeof message['id'] === 'number') {
      const tags = (result['content'] as unknown[]).flatMap((item) => (isRecord(item) && item['type'] === 'ref/stream' && typeof item['streamTag'] === 'number' ? [item['streamTag']] : []));
      for (const tag of tags) await this.#streamForwarded(`${message['id']}:${tag}`);
    }
    return message;
  }

  async #streamForwarded(key: string): Promise<void> {
    const deadline = Date.now() + STREAM_WAIT_MS;
    while (!this.#forwardedStreams.has(key) && Date.now() < deadline && !this.downstream.isClosed) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await this.#forwardedStreams.get(key)?.catch(() => undefined);
  }

  /** Forwards datagrams one way (WebTransport), judging each header. */
  async #datagrams(direction: Flow): Promise<void> {
    const from = (direction === 'client-to-server' ? this.downstream : this.upstream).webtransport!;
    const to = direction === 'client-to-server' ? this.upstream : this.downstream;
    for (;;) {
      let datagram: ReceivedDatagram;
      try {
        datagram = await from.nextDatagram();
      } catch {
        return;
      }
      this.#options.record.passthrough(
        this.number,
        direction,
        { kind: 'datagram', channel: datagram.channel, requestId: datagram.requestId },
        datagram.payload,
        datagram.payload.byteLength + 6,
        'datagram',
      );
      try {
        if (to.webtransport) {
          await to.webtransport.sendDatagram({ channel: datagram.channel, flags: datagram.flags, requestId: datagram.requestId, payload: datagram.payload });
        } else if (DATAGRAM_NOTIFICATIONS.has(datagram.channel) && isRecord(datagram.decoded)) {
          const payload = datagram.decoded;
          const message = typeof payload['method'] === 'string' ? payload : notification(DATAGRAM_NOTIFICATIONS.get(datagram.channel)!, payload);
          await to.send(message);
        }
      } catch (error) {
        if (to.isClosed) return;
        this.#options.onNote(`session ${this.number}: a datagram for request ${datagram.requestId} could not be forwarded: ${(error as Error).message}`);
      }
    }
  }

  /** Forwards execution streams one way (WebTransport), payload bytes as they come. */
  async #streams(direction: Flow): Promise<void> {
    const from = (direction === 'client-to-server' ? this.downstream : this.upstream).webtransport!;
    const to = (direction === 'client-to-server' ? this.upstream : this.downstream).webtransport;
    for (;;) {
      let stream: IncomingExecutionStream;
      try {
        stream = await from.nextExecutionStream();
      } catch {
        return;
      }
      const key = `${stream.header.requestId}:${stream.header.streamTag}`;
      const forwarding = this.#forwardStream(direction, stream, to);
      this.#forwardedStreams.set(key, forwarding);
      void forwarding.catch(() => undefined);
    }
  }

  async #forwardStream(direction: Flow, stream: IncomingExecutionStream, to: Connection['webtransport']): Promise<void> {
    const { header } = stream;
    const channel = { kind: 'stream' as const, streamId: stream.streamId, header };
    let outgoing: Awaited<ReturnType<NonNullable<Connection['webtransport']>['openExecutionStream']>> | undefined;
    if (to) {
      try {
        outgoing = await to.openExecutionStream(header);
      } catch (error) {
        this.#options.onNote(`session ${this.number}: execution stream ${header.requestId}/${header.streamTag} could not be opened towards the ${direction === 'client-to-server' ? 'server' : 'client'}: ${(error as Error).message}`);
      }
    } else {
      this.#options.onNote(`session ${this.number}: execution stream ${header.requestId}/${header.streamTag} read and dropped (the client is not on WebTransport)`);
    }
    let bytes = 0;
    const reader = stream.readable.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (outgoing) await outgoing.write(value);
      }
      await outgoing?.close();
      this.#options.record.passthrough(this.number, direction, channel, undefined, bytes, `execution stream ${header.requestId}/${header.streamTag} (${bytes} bytes, FIN)`);
    } catch (error) {
      await outgoing?.abort((error as Error).message).catch(() => undefined);
      this.#options.record.passthrough(this.number, direction, channel, undefined, bytes, `execution stream ${header.requestId}/${header.streamTag} reset after ${bytes} bytes`);
    }
  }
}
