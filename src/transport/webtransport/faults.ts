// Faults of the WebTransport binding (seed 001), honoured by the server side of this transport:
// each, when switched on, makes the server break exactly one server-side MUST of the binding (or
// miss one SHOULD, which the suite reports as WARN), named by its ID in suites/requirements.json. The mock server merges this catalog into its own
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
  notificationBeforeInitializeAnswered: 'notification-before-initialize-answered',
  notificationWhileInitializingAnswered: 'notification-while-initializing-answered',
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
  truncatedStreamHeaderClosesSession: 'truncated-stream-header-closes-session',
  acceptInjectedStreamHeader: 'accept-injected-stream-header',
  danglingStreamRefUnanswered: 'dangling-stream-ref-unanswered',
  noStreamLimit: 'no-stream-limit',
  wrongStreamLimitCode: 'wrong-stream-limit-code',
  skipOriginCheck: 'skip-origin-check',
  datagramWhenUnsupportedIgnored: 'datagram-when-unsupported-ignored',
  sendReservedDatagramChannel: 'send-reserved-datagram-channel',
  nonzeroDatagramFlags: 'nonzero-datagram-flags',
  idOutOfRangeTruncated: 'id-out-of-range-truncated',
  streamAfterShutdown: 'stream-after-shutdown',
  neverDrainOnShutdown: 'never-drain-on-shutdown',
  shutdownIgnored: 'shutdown-ignored',
  controlStreamEndIgnored: 'control-stream-end-ignored',
  truncatedFrameAtEndServed: 'truncated-frame-at-end-served',
  splitFrameDropped: 'split-frame-dropped',
  oversizedBodyReadAsFrames: 'oversized-body-read-as-frames',
  jsonEncodingRefused: 'json-encoding-refused',
  encodingNotOfferedSelected: 'encoding-not-offered-selected',
  cborIdAsFloat: 'cbor-id-as-float',
  cborTrailingByte: 'cbor-trailing-byte',
  initializeVersionEchoed: 'initialize-version-echoed',
  refStreamTagMismatch: 'ref-stream-tag-mismatch',
  duplicateStreamTag: 'duplicate-stream-tag',
  lengthPrefixedStreamChunks: 'length-prefixed-stream-chunks',
  controlBlockedByStreams: 'control-blocked-by-streams',
  shortDatagramClosesSession: 'short-datagram-closes-session',
  truncatedDatagramSent: 'truncated-datagram-sent',
  datagramPayloadJsonAfterCbor: 'datagram-payload-json-after-cbor',
  datagramAfterResult: 'datagram-after-result',
  resultOnlyInDatagram: 'result-only-in-datagram',
  unknownDatagramCancelsRequests: 'unknown-datagram-cancels-requests',
  stringIdsForServerRequests: 'string-ids-for-server-requests',
  datagramForServerRequest: 'datagram-for-server-request',
  cancelIgnored: 'dollar-cancel-ignored',
  shutdownSentWithId: 'shutdown-sent-with-id',
  messageSizeOnlyBeforeReady: 'message-size-only-before-ready',
  tls12Accepted: 'tls12-accepted',
  bindingCodeForUnknownMethod: 'binding-code-for-unknown-method',
  bindingErrorIdZero: 'binding-error-id-zero',
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

/** One entry per server-side binding MUST (or SHOULD) this transport can break. */
export const WEBTRANSPORT_FAULTS: readonly WebTransportFaultDefinition[] = Object.freeze([
  fault(F.notificationBeforeInitializeAnswered, 'WT-CONN-4', 'answers a notification sent before initialize with -32600 (id null): a reply to a notification'),
  fault(F.notificationWhileInitializingAnswered, 'WT-CONN-4', 'answers a notification sent between initialize and its result with -32600 (id null): a reply to a notification'),
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
  fault(F.truncatedStreamHeaderClosesSession, 'WT-EXEC-11', 'closes the session when an execution stream ends inside its 8-byte header'),
  fault(F.acceptInjectedStreamHeader, 'WT-EXEC-2', 'accepts an execution stream whose request id is not in flight instead of -32002'),
  fault(F.danglingStreamRefUnanswered, 'WT-EXEC-3', 'never answers a request whose ref/stream names no execution stream (it waits for the stream forever)'),
  fault(F.noStreamLimit, 'WT-LIMIT-1', 'accepts execution streams beyond its advertised maxConcurrentStreams'),
  fault(F.wrongStreamLimitCode, 'WT-LIMIT-1', 'refuses a stream over maxConcurrentStreams with -32600 instead of -32000'),
  fault(F.skipOriginCheck, 'WT-SEC-1', 'accepts a session whose Origin is not on the allow-list instead of refusing it with 403'),
  fault(F.datagramWhenUnsupportedIgnored, 'WT-DGRAM-5', 'drops datagrams silently after advertising datagramsSupported: false (no -32004)'),
  fault(F.sendReservedDatagramChannel, 'WT-DGRAM-2', 'sends its datagrams on the reserved channel 0x00'),
  fault(F.nonzeroDatagramFlags, 'WT-DGRAM-3', 'sends its datagrams with flags 0x01'),
  fault(F.idOutOfRangeTruncated, 'WT-ID-3', 'serves a request whose numeric id is outside 0..2^32-1 or not an integer under that id cut to 32 bits (the answer names another id)'),
  fault(F.streamAfterShutdown, 'WT-SHUT-2', 'still opens execution streams after $/shutdown was received'),
  fault(F.neverDrainOnShutdown, 'WT-SHUT-3', 'closes the session as soon as $/shutdown arrives, cutting in-flight execution streams'),
  fault(F.shutdownIgnored, 'WT-SHUT-4', 'ignores a received $/shutdown and never closes the session'),
  fault(F.controlStreamEndIgnored, 'WT-CONN-6', 'keeps the session open after the client ended its control stream'),
  fault(F.truncatedFrameAtEndServed, 'WT-FRAME-5', 'when the control stream ends inside a frame, serves the body bytes that arrived if they decode'),
  fault(F.splitFrameDropped, 'WT-FRAME-6', 'drops a control frame whose bytes arrive in more than one stream read'),
  fault(F.oversizedBodyReadAsFrames, 'WT-FRAME-7', 'after refusing an oversized frame, reads its body bytes as the next frames (neither skips it nor closes)'),
  fault(F.jsonEncodingRefused, 'WT-ENC-8', 'refuses an initialize that offers only "json" with -32003'),
  fault(F.encodingNotOfferedSelected, 'WT-ENC-9', 'selects "cbor" although the client offered only "json"'),
  fault(F.cborIdAsFloat, 'WT-ENC-13', 'encodes integral response ids as CBOR float64 once CBOR is negotiated'),
  fault(F.cborTrailingByte, 'WT-ENC-10', 'writes one 0x00 byte after the data item of every CBOR body (the body is no longer one data item)'),
  fault(F.initializeVersionEchoed, 'WT-INIT-7', 'over WebTransport echoes any requested protocolVersion, even one it does not support (the core version rules skipped)'),
  fault(F.refStreamTagMismatch, 'WT-EXEC-4', 'names streamTag + 1000 in its ref/stream items (no stream has that tag)'),
  fault(F.duplicateStreamTag, 'WT-EXEC-5', 'opens a second, empty execution stream with the same request id and tag as each stream it opens'),
  fault(F.lengthPrefixedStreamChunks, 'WT-EXEC-6', 'writes a 4-byte length prefix before every chunk of execution-stream content'),
  fault(F.controlBlockedByStreams, 'WT-EXEC-8', 'serves no control message while one of its execution streams is still open'),
  fault(F.shortDatagramClosesSession, 'WT-DGRAM-11', 'closes the session when a datagram shorter than 6 bytes arrives'),
  fault(F.truncatedDatagramSent, 'WT-DGRAM-1', 'sends each of its datagrams cut to the first 5 bytes (shorter than the 6-byte header)'),
  fault(F.datagramPayloadJsonAfterCbor, 'WT-DGRAM-6', 'writes datagram payloads in JSON after CBOR was negotiated'),
  fault(F.datagramAfterResult, 'WT-DGRAM-7', 'sends one more datagram for a request after its response (the request is no longer in flight)'),
  fault(F.resultOnlyInDatagram, 'WT-DGRAM-8', 'sends the response of a request that got datagrams as a datagram instead of on the control stream'),
  fault(F.unknownDatagramCancelsRequests, 'WT-DGRAM-10', 'cancels every in-flight request when a datagram names a request id that is not in flight'),
  fault(F.stringIdsForServerRequests, 'WT-ID-1', 'gives its own requests string ids ("s-<n>") over WebTransport'),
  fault(F.datagramForServerRequest, 'WT-ID-4', 'sends a progress datagram naming the id of each request it sends to the client'),
  fault(F.cancelIgnored, 'WT-CANCEL-1', 'ignores $/cancel: the named request runs to its normal end'),
  fault(F.shutdownSentWithId, 'WT-SHUT-1', 'sends its own $/shutdown as a request with an id (seen when the server shuts a session down)'),
  fault(F.messageSizeOnlyBeforeReady, 'WT-LIMIT-3', 'enforces maxMessageSize only until the initialize result; later frames of any size are served'),
  fault(F.tls12Accepted, 'WT-SEC-2', 'accepts TLS 1.2 connections (minimum version lowered)'),
  fault(F.bindingCodeForUnknownMethod, 'WT-ERR-1', 'answers requests for unknown methods with -32001 (a binding code) instead of -32601'),
  fault(F.bindingErrorIdZero, 'WT-ERR-3', 'sends binding errors about frames that belong to no request with id 0 instead of null'),
]);
