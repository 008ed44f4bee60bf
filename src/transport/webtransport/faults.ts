// Faults of the WebTransport binding (seed 001), honoured by the server side of this transport:
// each, when switched on, makes the server break exactly one server-side MUST of the binding,
// named by its ID in suites/requirements.json. The mock server merges this catalog into its own
// (`--fault NAME`); the conformance suite uses the faults to prove its checks can fail.
//
// Binding MUSTs with no fault here: the client-only ones (WT-CONN-2/3/5, WT-ENC-1/12, WT-INIT-1,
// WT-FRAME-9, ...), and WT-ID-2/WT-DGRAM-4/WT-INIT-5/6/WT-SEC-5 (INFO, no MUST to break). The
// server core's own binding faults (WT-INIT-3 transport missing, WT-CANCEL-3, WT-STREAMERR-1/2)
// live in src/peer/server/faults.ts.

/** Which faults are switched on (structurally compatible with the mock server's ActiveFaults). */
export interface FaultSet {
  has(name: string): boolean;
}

/** Names of the binding faults, for the code paths that honour them. */
export const WEBTRANSPORT_FAULT = {
  acceptNonInitializeFirst: 'accept-non-initialize-first',
  acceptMessageWhileInitializing: 'accept-message-while-initializing',
  acceptUnknownTransportType: 'accept-unknown-transport-type',
  advertiseMissingCapabilities: 'advertise-missing-capabilities',
  acceptCborInitialize: 'accept-cbor-initialize',
  acceptEncodingMismatch: 'accept-encoding-mismatch',
  initializeResultInCbor: 'initialize-result-in-cbor',
  replyJsonAfterCbor: 'reply-json-after-cbor',
  switchEncodingLate: 'switch-encoding-late',
  ignoreEncodingPreference: 'ignore-encoding-preference',
  defaultEncodingNotJson: 'default-encoding-not-json',
  unsupportedEncodingSelected: 'unsupported-encoding-selected',
  wrongFrameLength: 'wrong-frame-length',
  frameParseErrorUnanswered: 'frame-parse-error-unanswered',
  acceptZeroLengthFrame: 'accept-zero-length-frame',
  acceptOversizedFrame: 'accept-oversized-frame',
  wrongExecutionHeader: 'wrong-execution-header',
  truncatedStreamHeaderUnanswered: 'truncated-stream-header-unanswered',
  acceptInjectedStreamHeader: 'accept-injected-stream-header',
  acceptDanglingStreamRef: 'accept-dangling-stream-ref',
  noStreamLimit: 'no-stream-limit',
  wrongStreamLimitCode: 'wrong-stream-limit-code',
  skipOriginCheck: 'skip-origin-check',
  datagramWhenUnsupportedIgnored: 'datagram-when-unsupported-ignored',
  sendReservedDatagramChannel: 'send-reserved-datagram-channel',
  nonzeroDatagramFlags: 'nonzero-datagram-flags',
  idOutOfRangeAccepted: 'id-out-of-range-accepted',
  streamAfterShutdown: 'stream-after-shutdown',
  neverDrainOnShutdown: 'never-drain-on-shutdown',
  shutdownIgnored: 'shutdown-ignored',
} as const;

export type WebTransportFaultName = (typeof WEBTRANSPORT_FAULT)[keyof typeof WEBTRANSPORT_FAULT];

export interface WebTransportFaultDefinition {
  name: WebTransportFaultName;
  requirement: string;
  description: string;
}

const F = WEBTRANSPORT_FAULT;

function fault(name: WebTransportFaultName, requirement: string, description: string): WebTransportFaultDefinition {
  return Object.freeze({ name, requirement, description });
}

/** One entry per server-side binding MUST this transport can break. */
export const WEBTRANSPORT_FAULTS: readonly WebTransportFaultDefinition[] = Object.freeze([
  fault(F.acceptNonInitializeFirst, 'WT-CONN-4', 'serves a first control message that is not initialize instead of answering -32600'),
  fault(F.acceptMessageWhileInitializing, 'WT-CONN-4', 'serves a message sent between initialize and its result instead of answering -32600'),
  fault(F.acceptUnknownTransportType, 'WT-INIT-2', 'serves an initialize whose params.transport.type is not "mcp-flow"'),
  fault(F.advertiseMissingCapabilities, 'WT-INIT-3', 'leaves maxConcurrentStreams out of result.transport'),
  fault(F.acceptCborInitialize, 'WT-ENC-5', 'serves a CBOR-encoded initialize instead of answering -32003 (when the frame arrived in one read)'),
  fault(F.acceptEncodingMismatch, 'WT-ENC-5', 'serves a JSON message after CBOR was negotiated instead of answering -32003 (when the frame arrived in one read)'),
  fault(F.initializeResultInCbor, 'WT-ENC-2', 'sends the initialize result CBOR-encoded'),
  fault(F.replyJsonAfterCbor, 'WT-ENC-3', 'keeps writing JSON after CBOR was negotiated'),
  fault(F.switchEncodingLate, 'WT-ENC-3', 'switches to the negotiated CBOR one message late (the first message after the result is JSON)'),
  fault(F.ignoreEncodingPreference, 'WT-ENC-6', "selects the last encoding it supports in the client's list instead of the first"),
  fault(F.defaultEncodingNotJson, 'WT-ENC-4', 'selects "cbor" when the client offered no encodings'),
  fault(F.unsupportedEncodingSelected, 'WT-ENC-7', 'selects the first offered encoding even when it supports none of them'),
  fault(F.wrongFrameLength, 'WT-FRAME-1', 'writes every control frame with a length prefix one less than its body length'),
  fault(F.frameParseErrorUnanswered, 'WT-FRAME-4', 'sends no -32700 for a control frame whose body does not decode'),
  fault(F.acceptZeroLengthFrame, 'WT-FRAME-2', 'skips a zero-length frame silently instead of answering -32600'),
  fault(F.acceptOversizedFrame, 'WT-FRAME-3', 'buffers and serves a frame longer than its advertised maxMessageSize'),
  fault(F.wrongExecutionHeader, 'WT-EXEC-1', 'writes the request id of its execution-stream headers little-endian'),
  fault(F.truncatedStreamHeaderUnanswered, 'WT-EXEC-1', 'sends no -32600 for an execution stream that ends inside its 8-byte header'),
  fault(F.acceptInjectedStreamHeader, 'WT-EXEC-2', 'accepts an execution stream whose request id is not in flight instead of -32002'),
  fault(F.acceptDanglingStreamRef, 'WT-EXEC-3', 'serves a message whose ref/stream names no execution stream instead of -32001'),
  fault(F.noStreamLimit, 'WT-LIMIT-1', 'accepts execution streams beyond its advertised maxConcurrentStreams'),
  fault(F.wrongStreamLimitCode, 'WT-LIMIT-1', 'refuses a stream over maxConcurrentStreams with -32600 instead of -32000'),
  fault(F.skipOriginCheck, 'WT-SEC-1', 'accepts a session whose Origin is not on the allow-list instead of refusing it with 403'),
  fault(F.datagramWhenUnsupportedIgnored, 'WT-DGRAM-5', 'drops datagrams silently after advertising datagramsSupported: false (no -32004)'),
  fault(F.sendReservedDatagramChannel, 'WT-DGRAM-2', 'sends its datagrams on the reserved channel 0x00'),
  fault(F.nonzeroDatagramFlags, 'WT-DGRAM-3', 'sends its datagrams with flags 0x01'),
  fault(F.idOutOfRangeAccepted, 'WT-ID-3', 'serves a request whose numeric id is outside 0..2^32-1 instead of answering -32600'),
  fault(F.streamAfterShutdown, 'WT-SHUT-2', 'still opens execution streams after $/shutdown was received'),
  fault(F.neverDrainOnShutdown, 'WT-SHUT-3', 'closes the session as soon as $/shutdown arrives, cutting in-flight execution streams'),
  fault(F.shutdownIgnored, 'WT-SHUT-4', 'ignores a received $/shutdown and never closes the session'),
]);
