// The binding faults (binding-faults.ts) that break what the session does with bytes, frames,
// streams and datagrams, attached as session hooks (src/transport/webtransport/hooks.ts): each hook
// below names the faults it honours. The faults of admission and negotiation live with those rules
// in binding.ts; the Origin and TLS ones are listener options (bindingListenerOptions).
import type { WebTransportServerOptions } from '../../transport/webtransport/server.js';
import type { WtSessionHooks, WtSessionView } from '../../transport/webtransport/hooks.js';
import { codecFor, encodeDatagram, EncodingMismatchError, isRecord, isU32, MAX_FRAME_LENGTH, type WireError } from '../../wire/index.js';
import { WEBTRANSPORT_FAULT as F, WEBTRANSPORT_FAULTS } from './binding-faults.js';
import { cborBodyWithFloatId } from '../cbor-float-id.js';
import { cborPayloadAsJson, lengthPrefixed, shiftRefStreamTags, withTrailingByte } from './binding-rewrites.js';

/** The id of the ping `request-after-shutdown` sends (outside the ids the server core gives its own requests). */
const REQUEST_AFTER_SHUTDOWN_ID = 4_000_000_000;

export interface FaultSwitches {
  has(name: string): boolean;
}

/** What the fault hooks need to know of the binding's own state for a session. */
export interface BindingFaultState {
  /** The protocolVersion the client's initialize asked for (`initialize-version-echoed`). */
  readonly requestedVersion: unknown;
}

/** The listener options the switched-on faults change. */
export function bindingListenerOptions(faults: FaultSwitches): Pick<WebTransportServerOptions, 'origins' | 'minTlsVersion'> {
  return {
    // FAULT skip-origin-check: no Origin is checked.
    ...(faults.has(F.skipOriginCheck) ? { origins: 'any' as const } : {}),
    // FAULT tls12-accepted: the HTTP/2 TLS minimum stays at 1.2.
    ...(faults.has(F.tls12Accepted) ? { minTlsVersion: 'TLSv1.2' as const } : {}),
  };
}

/** Inbound control messages changed by faults before admission: the message to admit, or undefined when dropped. */
export function faultyInbound(faults: FaultSwitches, message: unknown, view: WtSessionView): unknown {
  if (!isRecord(message)) return message;
  const id = message['id'];
  // FAULT string-ids-for-server-requests: the client answers "s-<n>"; the server core knows <n>.
  if (faults.has(F.stringIdsForServerRequests) && typeof id === 'string' && /^s-\d+$/.test(id) && !('method' in message)) {
    return { ...message, id: Number(id.slice(2)) };
  }
  // FAULT dollar-cancel-ignored.
  if (message['method'] === '$/cancel' && faults.has(F.cancelIgnored)) {
    view.transcript.event('$/cancel ignored (fault)');
    return undefined;
  }
  return message;
}

/** The session hooks of the switched-on faults (none switched on: no hook). */
export function bindingFaultHooks(faults: FaultSwitches, state: BindingFaultState, view: WtSessionView): WtSessionHooks {
  const on = (name: string) => faults.has(name);
  if (!WEBTRANSPORT_FAULTS.some((fault) => on(fault.name))) return {};
  /** The last datagram sent per request id (faults datagram-after-result, result-only-in-datagram). */
  const datagramsSentFor = new Map<number, Uint8Array>();
  const keepDatagrams = on(F.datagramAfterResult) || on(F.resultOnlyInDatagram);
  /** FAULT switch-encoding-late: the one late JSON message has gone out. */
  let lateSwitchDone = false;

  const hooks: WtSessionHooks = {
    readerSettings: (phase, settings) => ({
      // FAULT accept-oversized-frame: frames up to the largest length a prefix can declare are read.
      // FAULT message-size-only-before-ready: so they are once the session is READY.
      maxMessageSize: on(F.acceptOversizedFrame) || (phase === 'ready' && on(F.messageSizeOnlyBeforeReady)) ? MAX_FRAME_LENGTH : settings.maxMessageSize,
      // FAULT accept-zero-length-frame: the reader skips a zero-length frame (and frameRefused ignores it).
      afterLengthError: on(F.acceptZeroLengthFrame) ? 'skip' : settings.afterLengthError,
    }),
    frameRefused: (error: WireError, atEnd) => {
      // FAULT truncated-frame-at-end-served: the body bytes that did arrive are served if they decode.
      if (atEnd) return on(F.truncatedFrameAtEndServed) ? 'serve-partial-body' : 'answer';
      // FAULT accept-cbor-initialize (before negotiation) / accept-encoding-mismatch (after): served in the other encoding.
      if (error instanceof EncodingMismatchError && on(view.encodingNegotiated ? F.acceptEncodingMismatch : F.acceptCborInitialize)) return 'serve-in-its-encoding';
      if (error.code === 'FRAME_EMPTY' && on(F.acceptZeroLengthFrame)) return 'skip';
      // FAULT frame-parse-error-unanswered: a body that does not decode (-32700) gets no answer.
      if (error.jsonRpcCode === -32700 && on(F.frameParseErrorUnanswered)) return 'unanswered';
      // FAULT parse-error-ends-reading: the -32700 is the last thing the control stream is read for.
      if (error.jsonRpcCode === -32700 && on(F.parseErrorEndsReading)) return 'answer-then-close';
      // FAULT oversized-body-read-as-frames: a fresh reader takes the refused frame's body as frames.
      if (error.code === 'FRAME_TOO_LARGE' && on(F.oversizedBodyReadAsFrames)) return 'read-body-as-frames';
      return 'answer';
    },
    // FAULT split-frame-dropped: a frame begun in an earlier read is thrown away.
    chunkArrived: () => (on(F.splitFrameDropped) ? 'drop-buffered' : 'keep'),
    // FAULT control-blocked-by-streams: nothing is served while an execution stream is open.
    beforeDelivery: () => (on(F.controlBlockedByStreams) ? view.until(() => view.outgoingStreams === 0 || view.isClosed) : undefined),
    // FAULT control-stream-end-ignored: the session stays open.
    controlStreamEnded: () => (on(F.controlStreamEndIgnored) ? 'keep-open' : 'close'),
    outgoing: (message) => faultyOutgoing(message),
    // FAULT result-only-in-datagram: the response of a request that got datagrams goes out as one.
    responseAsDatagram: (message) =>
      on(F.resultOnlyInDatagram) && isRecord(message) && typeof message['id'] === 'number' && datagramsSentFor.has(message['id']) && !('method' in message),
    frame: (message, frame, context) => {
      // FAULT initialize-result-in-cbor.
      if (context.initializeResult && on(F.initializeResultInCbor)) return context.encodeAs('cbor');
      // FAULT reply-json-after-cbor.
      if (context.cbor && on(F.replyJsonAfterCbor)) return context.encodeAs('json');
      // FAULT switch-encoding-late: the first message after the initialize result is still JSON.
      if (context.cbor && on(F.switchEncodingLate) && !lateSwitchDone) {
        lateSwitchDone = true;
        return context.encodeAs('json');
      }
      const id = isRecord(message) ? message['id'] : undefined;
      // FAULT cbor-id-as-float: integral response ids become CBOR float64.
      if (context.cbor && on(F.cborIdAsFloat) && typeof id === 'number' && Number.isInteger(id)) {
        return lengthPrefixed(cborBodyWithFloatId(message as Record<string, unknown> & { id: number }));
      }
      // FAULT cbor-trailing-byte: one byte more after the CBOR data item.
      if (context.cbor && on(F.cborTrailingByte)) return withTrailingByte(frame);
      // FAULT wrong-frame-length: the prefix says one byte less than the body has.
      if (on(F.wrongFrameLength)) new DataView(frame.buffer, frame.byteOffset).setUint32(0, frame.byteLength - 5);
      return frame;
    },
    afterSend: (message) => afterSent(message),
    // FAULT binding-error-id-zero: a binding error about no request carries id 0.
    bindingErrorId: (id) => (on(F.bindingErrorIdZero) ? 0 : id),
    executionHeader: (bytes) => {
      // FAULT wrong-execution-header: the request id goes out little-endian.
      if (on(F.wrongExecutionHeader)) bytes.subarray(0, 4).reverse();
      return bytes;
    },
    streamOpened: async (header, headerBytes) => {
      // FAULT duplicate-stream-tag: an empty second stream with the same request id and tag.
      if (!on(F.duplicateStreamTag)) return;
      const twin = await view.openStream(headerBytes.slice(), header);
      await twin.close().catch(() => undefined);
    },
    // FAULT length-prefixed-stream-chunks.
    streamChunk: (chunk) => (on(F.lengthPrefixedStreamChunks) ? lengthPrefixed(chunk) : chunk),
    // FAULT stream-after-shutdown.
    streamWhileShuttingDown: () => (on(F.streamAfterShutdown) ? 'open' : 'refuse'),
    streamOverLimit: (code, message) => {
      // FAULT no-stream-limit.
      if (on(F.noStreamLimit)) return 'accept';
      // FAULT wrong-stream-limit-code: -32600 instead of -32000.
      // FAULT stream-limit-message-without-limit: the message leaves the limit out.
      return { refuse: on(F.wrongStreamLimitCode) ? -32600 : code, message: on(F.streamLimitMessageWithoutLimit) ? 'Stream Limit Exceeded' : message };
    },
    // FAULT accept-injected-stream-header / injected-stream-unreported (stopped, no -32002 report).
    injectedStream: () => (on(F.acceptInjectedStreamHeader) ? 'accept' : on(F.injectedStreamUnreported) ? 'refuse-unreported' : 'refuse'),
    // FAULT truncated-stream-header-closes-session.
    truncatedStreamHeader: () => (on(F.truncatedStreamHeaderClosesSession) ? 'close-session' : 'default'),
    // FAULT dangling-stream-ref-unanswered: the request waits for its stream forever (never answered).
    danglingStreamReference: () => (on(F.danglingStreamRefUnanswered) ? 'leave-unanswered' : 'answer'),
    // FAULT datagram-payload-json-after-cbor.
    datagramPayload: (payload, _channel, encoding) => (on(F.datagramPayloadJsonAfterCbor) && encoding === 'cbor' ? cborPayloadAsJson(payload) : payload),
    datagramBytes: (bytes, datagram) => {
      if (keepDatagrams) datagramsSentFor.set(datagram.requestId, bytes);
      // FAULT send-reserved-datagram-channel / nonzero-datagram-flags.
      if (on(F.sendReservedDatagramChannel)) bytes[0] = 0x00;
      if (on(F.nonzeroDatagramFlags)) bytes[1] = 0x01;
      // FAULT truncated-datagram-sent: shorter than the 6-byte header.
      return on(F.truncatedDatagramSent) ? bytes.subarray(0, 5) : bytes;
    },
    // FAULT datagram-when-unsupported-ignored: dropped without -32004.
    datagramWhileUnsupported: () => (on(F.datagramWhenUnsupportedIgnored) ? 'drop' : 'refuse'),
    // FAULT short-datagram-closes-session.
    datagramMalformed: (_error, bytes) => (bytes.byteLength < 6 && on(F.shortDatagramClosesSession) ? 'close-session' : 'drop'),
    datagramNotInFlight: () => {
      // FAULT unknown-datagram-cancels-requests: every in-flight request gets a $/cancel it never had.
      if (!on(F.unknownDatagramCancelsRequests)) return;
      for (const requestId of view.receivedRequestIds()) {
        view.deliverLocal({ jsonrpc: '2.0', method: '$/cancel', params: { requestId, reason: 'datagram for an unknown request (fault)' } }, 'synthetic $/cancel (fault)');
      }
    },
    shutdownReceived: () => {
      // FAULT shutdown-ignored: the session stays open and streams may still be opened.
      if (on(F.shutdownIgnored)) return 'ignore';
      // FAULT never-drain-on-shutdown: close at once, cutting in-flight streams.
      return on(F.neverDrainOnShutdown) ? 'close-now' : 'drain';
    },
    drained: async () => {
      // FAULT request-after-shutdown: a new request once drained, seen by the peer before the close.
      if (!on(F.requestAfterShutdown) || view.isClosed) return;
      await view.send({ jsonrpc: '2.0', id: REQUEST_AFTER_SHUTDOWN_ID, method: 'ping' }).catch(() => undefined);
      await view.closeAfterWrites('peer sent $/shutdown');
    },
  };

  /** What some faults change in an outgoing message before it is encoded. */
  function faultyOutgoing(message: unknown): unknown {
    if (!isRecord(message)) return message;
    const m = message;
    let out: unknown = message;
    const isRequest = typeof m['method'] === 'string' && 'id' in m;
    // FAULT initialize-version-echoed: the result names whatever version the client asked for.
    if (on(F.initializeVersionEchoed) && view.state === 'INITIALIZING' && m['id'] === view.initializeRequestId) {
      const result = m['result'];
      if (isRecord(result) && typeof state.requestedVersion === 'string') out = { ...m, result: { ...result, protocolVersion: state.requestedVersion } };
    }
    // FAULT ref-stream-tag-mismatch.
    if (on(F.refStreamTagMismatch) && 'result' in m) out = shiftRefStreamTags(out);
    // FAULT string-ids-for-server-requests.
    if (on(F.stringIdsForServerRequests) && isRequest && typeof m['id'] === 'number') out = { ...(out as Record<string, unknown>), id: `s-${m['id']}` };
    // FAULT binding-code-for-unknown-method: -32601 goes out as -32001.
    const error = m['error'];
    if (on(F.bindingCodeForUnknownMethod) && isRecord(error) && error['code'] === -32601) out = { ...(out as Record<string, unknown>), error: { ...error, code: -32001 } };
    // FAULT shutdown-sent-with-id: our $/shutdown goes out as a request.
    if (on(F.shutdownSentWithId) && m['method'] === '$/shutdown' && !('id' in m)) out = { jsonrpc: m['jsonrpc'], id: 0, method: '$/shutdown' };
    return out;
  }

  /** What some faults send after a message went out. */
  async function afterSent(message: unknown): Promise<void> {
    const id = isRecord(message) ? message['id'] : undefined;
    if (typeof id !== 'number' || !isU32(id) || view.isClosed) return;
    const isRequest = isRecord(message) && typeof message['method'] === 'string';
    // FAULT datagram-for-server-request: a progress datagram names the server's own request.
    if (isRequest && on(F.datagramForServerRequest) && view.datagramsSupported) {
      const payload = codecFor(view.encoding).encode({ progress: 0 });
      await view.sendDatagramBytes(encodeDatagram({ channel: 0x01, flags: 0, requestId: id, payload }), id).catch(() => undefined);
    }
    // FAULT datagram-after-result: the last datagram of a request goes out once more after its response.
    const last = datagramsSentFor.get(id);
    if (!isRequest && last && on(F.datagramAfterResult)) {
      datagramsSentFor.delete(id);
      await view.sendDatagramBytes(last, id).catch(() => undefined);
    }
  }

  return hooks;
}
