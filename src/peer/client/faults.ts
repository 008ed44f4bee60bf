// The mock client's fault catalog: each fault, switched on, makes the mock client break exactly
// one client-side requirement (named by its ID in suites/requirements.json), in a way a harness
// acting as server can observe in one of the client scenarios (docs/client-scenarios.md). The
// client conformance suite runs against the faulty client to prove each of its checks can fail.
// The catalog uses the one fault model of every mock peer (src/peer/faults.ts).
import type { TransportKind } from '../../transport/connection.js';
import { defineFault, FaultSet, type FaultDefinition } from '../faults.js';
import { MockClientError, UnknownClientFaultError } from './errors.js';

/** A fault of the mock client's catalog (the shared fault model's definition). */
export type ClientFaultDefinition = FaultDefinition;

/** Names of the faults, for the code paths that honour them. */
export const MOCK_CLIENT_FAULT = {
  requestBeforeInitialize: 'request-before-initialize',
  initializeInCbor: 'initialize-in-cbor',
  noTransportExtension: 'no-transport-extension',
  noInitializedNotification: 'no-initialized-notification',
  encodingNotSwitched: 'encoding-not-switched',
  sendBeforeInitializeResult: 'send-before-initialize-result',
  pingUnanswered: 'ping-unanswered',
  samplingServedUndeclared: 'sampling-served-undeclared',
  interactionRequestServed: 'interaction-request-served',
  unknownSessionPromptAcknowledged: 'unknown-session-prompt-acknowledged',
  completeWithoutSuccess: 'complete-without-success',
  finalResultNotData: 'final-result-not-data',
  cursorModified: 'cursor-modified',
  requestAfterInitializeError: 'request-after-initialize-error',
  continueAfterVersionMismatch: 'continue-after-version-mismatch',
  noProtocolVersionHeader: 'no-protocol-version-header',
  requestIdReused: 'request-id-reused',
  notificationAnswered: 'notification-answered',
  acceptInjectedStream: 'accept-injected-stream',
  injectionUnreported: 'injection-unreported',
  danglingStreamRefIgnored: 'dangling-stream-ref-ignored',
  streamErrorAnswered: 'stream-error-answered',
  parseErrorUnanswered: 'parse-error-unanswered',
  stopsAfterParseError: 'stops-after-parse-error',
  requestsAfterShutdown: 'requests-after-shutdown',
  oversizedFrame: 'oversized-frame',
  noCancelOnAbort: 'no-cancel-on-abort',
  cancelUnknownRequest: 'cancel-unknown-request',
  noRetryAfterRejection: 'no-retry-after-rejection',
  initializeWithoutClientInfo: 'initialize-without-client-info',
  jsonrpcVersionWrong: 'jsonrpc-version-wrong',
  continueUnacknowledged: 'continue-unacknowledged',
  respondWithoutValue: 'respond-without-value',
  initializeCancelled: 'initialize-cancelled',
  // MCP core: message shapes, ids, answers, capabilities, progress, cancellation, tool results
  positionalParams: 'positional-params',
  requestIdNull: 'request-id-null',
  responseIdAsString: 'response-id-as-string',
  errorCodeNotInteger: 'error-code-not-integer',
  pingResultNotObject: 'ping-result-not-object',
  requestAnsweredTwice: 'request-answered-twice',
  unknownMethodInvalidParams: 'unknown-method-invalid-params',
  stopsAfterError: 'stops-after-error',
  undeclaredFeatureCalled: 'undeclared-feature-called',
  capabilityNotObject: 'capability-not-object',
  rootsNotFileUri: 'roots-not-file-uri',
  elicitationWithoutAction: 'elicitation-without-action',
  samplingWithoutModel: 'sampling-without-model',
  requestBeforeInitializeResult: 'request-before-initialize-result',
  methodOutsideVersion: 'method-outside-version',
  progressTokenNotInteger: 'progress-token-not-integer',
  progressUnsolicited: 'progress-unsolicited',
  progressDecreasing: 'progress-decreasing',
  progressAfterResponse: 'progress-after-response',
  cancelledUnknownRequest: 'cancelled-unknown-request',
  unknownCancelAnswered: 'unknown-cancel-answered',
  isErrorSucceeds: 'is-error-succeeds',
  // MCP Flow
  serverRequestSent: 'server-request-sent',
  startWithoutToolName: 'start-without-tool-name',
  respondTwice: 'respond-twice',
  // WebTransport binding
  secondBidirectionalStream: 'second-bidirectional-stream',
  notificationBeforeInitialize: 'notification-before-initialize',
  controlStreamEndIgnored: 'session-kept-after-control-end',
  frameLengthOffByOne: 'frame-length-off-by-one',
  zeroLengthFrameUnanswered: 'zero-length-frame-unanswered',
  partialFrameServed: 'partial-frame-served',
  splitFrameDropped: 'split-frame-lost',
  encodingLapses: 'encoding-lapses',
  encodingMismatchUnanswered: 'encoding-mismatch-unanswered',
  jsonNotSpoken: 'json-not-spoken',
  cborTrailingByte: 'cbor-body-trailing-byte',
  cborIdAsFloat: 'cbor-id-as-float',
  stringRequestIds: 'string-request-ids',
  truncatedHeaderWrongCode: 'truncated-header-wrong-code',
  streamBeforeResultDropped: 'stream-before-result-dropped',
  controlBlockedByStreams: 'serving-waits-for-streams',
  truncatedHeaderClosesSession: 'truncated-header-closes-session',
  injectionReportedAsInvalidReference: 'injection-reported-as-invalid-reference',
  bindingErrorIdZero: 'binding-error-id-zero',
  shortDatagramReportedWithId: 'short-datagram-reported-with-id',
  reservedChannelDatagramReportedWithId: 'reserved-channel-datagram-reported-with-id',
  flaggedDatagramReportedWithId: 'flagged-datagram-reported-with-id',
  unknownDatagramFailsCalls: 'unknown-datagram-fails-calls',
  droppedDatagramClosesSession: 'dropped-datagram-closes-session',
  streamAfterShutdown: 'stream-opened-after-shutdown',
  closeOnShutdown: 'close-on-shutdown',
  resetInsteadOfClose: 'reset-instead-of-close',
} as const;

export type MockClientFaultName = (typeof MOCK_CLIENT_FAULT)[keyof typeof MOCK_CLIENT_FAULT];

const F = MOCK_CLIENT_FAULT;
const WT: TransportKind[] = ['webtransport'];
const fault = (name: string, requirement: string, description: string, transports?: TransportKind[]): ClientFaultDefinition =>
  defineFault(name, requirement, description, transports ? { transports } : {});

export const MOCK_CLIENT_FAULTS: readonly ClientFaultDefinition[] = Object.freeze([
  fault(F.requestBeforeInitialize, 'CORE-LIFE-1', 'sends tools/list before initialize (and initializes afterwards)'),
  fault(F.initializeInCbor, 'WT-ENC-1', 'sends the initialize request CBOR-encoded', WT),
  fault(F.noTransportExtension, 'WT-INIT-1', 'leaves params.transport out of initialize', WT),
  fault(F.noInitializedNotification, 'CORE-LIFE-4', 'never sends notifications/initialized'),
  fault(F.encodingNotSwitched, 'WT-ENC-12', 'keeps sending JSON frames after CBOR was negotiated (notifications/initialized onwards)', WT),
  fault(F.sendBeforeInitializeResult, 'WT-CONN-5', 'sends notifications/initialized right after initialize, before the initialize result arrived (only a ping would be allowed), then again after it', WT),
  fault(F.pingUnanswered, 'CORE-LIFE-12', 'never answers ping'),
  fault(F.samplingServedUndeclared, 'CORE-SAMPLING-4', 'answers sampling/createMessage with a result although it did not declare sampling'),
  fault(F.interactionRequestServed, 'FLOW-CAP-9', 'answers interaction.start/respond/cancel sent by the server with {} instead of -32601'),
  fault(F.unknownSessionPromptAcknowledged, 'FLOW-PROMPT-2', 'acknowledges interaction.prompt and interaction.continue for a session it does not know'),
  fault(F.completeWithoutSuccess, 'FLOW-SM-8', 'answers interaction.complete without the boolean success'),
  fault(F.finalResultNotData, 'FLOW-SM-9', 'answers interaction.complete with a finalResult other than the result.data it received'),
  fault(F.cursorModified, 'CORE-PAGE-4', 'sends back a nextCursor with a character appended'),
  fault(F.requestAfterInitializeError, 'CORE-LIFE-9', 'sends tools/list after the server answered initialize with an error'),
  fault(F.continueAfterVersionMismatch, 'CORE-VER-5', 'carries on (notifications/initialized, requests) when the server answered a protocol version it does not speak'),
  fault(F.noProtocolVersionHeader, 'CORE-VER-7', 'sends no MCP-Protocol-Version header after initialize', ['http']),
  fault(F.requestIdReused, 'CORE-RPC-4', 'gives every request after initialize the same id'),
  fault(F.notificationAnswered, 'CORE-RPC-6', 'answers every notification it receives (other than $/streamError) with an error response, id null'),
  fault(F.acceptInjectedStream, 'WT-EXEC-2', 'reads an execution stream whose request id it never sent instead of refusing it', WT),
  fault(F.injectionUnreported, 'WT-EXEC-9', 'refuses an injected execution stream without the -32002 error on the control stream', WT),
  fault(F.danglingStreamRefIgnored, 'WT-EXEC-3', 'treats a result whose ref/stream names no stream as complete (no -32001, exit 0)', WT),
  fault(F.streamErrorAnswered, 'WT-STREAMERR-4', 'answers a $/streamError naming an unknown request or stream with an error response', WT),
  fault(F.parseErrorUnanswered, 'WT-FRAME-4', 'sends nothing for a control frame that does not decode', WT),
  fault(F.stopsAfterParseError, 'WT-FRAME-8', 'ignores every message after a control frame that did not decode', WT),
  fault(F.requestsAfterShutdown, 'WT-SHUT-5', 'keeps sending requests after the server sent $/shutdown', WT),
  fault(F.oversizedFrame, 'WT-FRAME-9', "sends frames longer than the server's maxMessageSize", WT),
  fault(F.noCancelOnAbort, 'WT-CANCEL-7', 'sends neither $/cancel nor notifications/cancelled when it aborts a call (tools-call abortAfterMs)', WT),
  fault(F.cancelUnknownRequest, 'WT-CANCEL-6', 'sends $/cancel naming a request id it never sent, right after notifications/initialized', WT),
  fault(F.noRetryAfterRejection, 'FLOW-VALID-12', 'stops the interaction after a value answered with accepted: false instead of answering the re-prompt'),
  fault(F.initializeWithoutClientInfo, 'CORE-LIFE-2', 'leaves clientInfo out of the initialize params'),
  fault(F.jsonrpcVersionWrong, 'CORE-RPC-1', 'sends its requests after initialize with jsonrpc "2" instead of "2.0"'),
  fault(F.continueUnacknowledged, 'FLOW-PROMPT-12', 'never answers interaction.continue for its session (any result object is an accepted answer, none is not)'),
  fault(F.respondWithoutValue, 'FLOW-RESPOND-1', 'sends interaction.respond with the answer as response.answer instead of response.value'),
  fault(F.initializeCancelled, 'CORE-CANCEL-3', 'cancels its initialize request ($/cancel or notifications/cancelled) once the result arrived'),
  fault(F.positionalParams, 'CORE-RPC-2', 'sends tools/call params as the positional array [name, arguments] instead of an object'),
  fault(F.requestIdNull, 'CORE-RPC-3', 'sends a ping whose id is null right after notifications/initialized'),
  fault(F.responseIdAsString, 'CORE-RPC-5', 'answers the server\'s requests with their id as a string ("5" for 5)'),
  fault(F.errorCodeNotInteger, 'CORE-RPC-7', 'sends its error responses with the code as a string ("-32601")'),
  fault(F.pingResultNotObject, 'CORE-RPC-14', 'answers ping with the result [] instead of the empty object {}'),
  fault(F.requestAnsweredTwice, 'CORE-RPC-16', 'answers every request of the server twice'),
  fault(F.unknownMethodInvalidParams, 'CORE-ERR-1', 'answers a request for a method it does not know with -32602 Invalid params instead of -32601 Method not found'),
  fault(F.stopsAfterError, 'CORE-ERR-4', 'makes no further call once a call was answered with an error (tools-call count)'),
  fault(F.undeclaredFeatureCalled, 'CORE-CAP-1', 'in the initialize scenario also sends prompts/list, although the server declared no prompts'),
  fault(F.capabilityNotObject, 'CORE-CAP-6', 'declares the roots capability as true instead of an object'),
  fault(F.rootsNotFileUri, 'CORE-CAP-7', 'declares roots and answers roots/list with a root whose uri is https://, not file://'),
  fault(F.elicitationWithoutAction, 'CORE-CAP-8', 'declares elicitation and answers elicitation/create without an action'),
  fault(F.samplingWithoutModel, 'CORE-SAMPLING-1', 'declares sampling and answers sampling/createMessage without a model'),
  fault(F.requestBeforeInitializeResult, 'CORE-LIFE-6', 'sends tools/list right after initialize, before the initialize result arrived (breaking WT-CONN-5 as well)', WT),
  fault(F.methodOutsideVersion, 'CORE-LIFE-11', 'asks for protocol version 2025-06-18, then sends tasks/list, which that version does not define'),
  fault(F.progressTokenNotInteger, 'CORE-PROG-1', 'puts the progress token 0.5 (a fraction) in every request after initialize'),
  fault(F.progressUnsolicited, 'CORE-PROG-2', 'sends notifications/progress for a token the server never gave, right after notifications/initialized'),
  fault(F.progressDecreasing, 'CORE-PROG-3', 'sends progress 2, then 1, for the progress token of a server request before answering it'),
  fault(F.progressAfterResponse, 'CORE-PROG-4', 'sends progress for the progress token of a server request after answering it'),
  fault(F.cancelledUnknownRequest, 'CORE-CANCEL-1', 'sends notifications/cancelled naming a request id it never sent, right after notifications/initialized'),
  fault(F.unknownCancelAnswered, 'CORE-CANCEL-4', 'answers a notifications/cancelled naming a request it never received with an error (id null)'),
  fault(F.isErrorSucceeds, 'CORE-TOOLS-10', 'counts a tools/call result with isError: true as a success (exit status 0)'),
  fault(F.serverRequestSent, 'FLOW-CAP-8', 'sends interaction.prompt, a server-to-client request, for its session once it started'),
  fault(F.startWithoutToolName, 'FLOW-START-1', 'names the tool of interaction.start in params.tool instead of params.toolName'),
  fault(F.respondTwice, 'FLOW-RESPOND-8', 'sends every interaction.respond a second time once the first is answered, with no prompt waiting'),
  fault(F.secondBidirectionalStream, 'WT-CONN-2', 'opens a second bidirectional stream after initialize (only the control stream may be one)', WT),
  fault(F.notificationBeforeInitialize, 'WT-CONN-3', 'sends notifications/initialized as its first control message, before initialize', WT),
  fault(F.controlStreamEndIgnored, 'WT-CONN-6', 'keeps the session open after the server ended its control stream', WT),
  fault(F.frameLengthOffByOne, 'WT-FRAME-1', 'writes the control frames after the initialize result with a length prefix one less than the body', WT),
  fault(F.zeroLengthFrameUnanswered, 'WT-FRAME-2', 'sends nothing for a control frame of length 0', WT),
  fault(F.partialFrameServed, 'WT-FRAME-5', 'when the server ends the control stream inside a frame, serves the bytes that came if they decode as a message', WT),
  fault(F.splitFrameDropped, 'WT-FRAME-6', 'drops a control frame whose bytes arrive in more than one stream read', WT),
  fault(F.encodingLapses, 'WT-ENC-3', 'with CBOR negotiated, sends notifications/initialized in CBOR and everything after it in JSON again', WT),
  fault(F.encodingMismatchUnanswered, 'WT-ENC-5', 'sends nothing for a frame in the other encoding than the one negotiated', WT),
  fault(F.jsonNotSpoken, 'WT-ENC-8', 'does not speak JSON: offers only "cbor" and goes on in CBOR when the server selects "json"', WT),
  fault(F.cborTrailingByte, 'WT-ENC-10', 'with CBOR negotiated, writes one 0x00 byte after the data item of every body', WT),
  fault(F.stringRequestIds, 'WT-ID-1', 'gives its requests after initialize string ids ("r<n>") over WebTransport', WT),
  fault(F.truncatedHeaderWrongCode, 'WT-EXEC-1', 'reports an execution stream that ended inside its header with -32602 Invalid params instead of -32600', WT),
  fault(F.streamBeforeResultDropped, 'WT-EXEC-7', 'stops reading an execution stream that arrives before the result naming it', WT),
  fault(F.controlBlockedByStreams, 'WT-EXEC-8', 'serves no request of the server while one of its execution streams is still being read', WT),
  fault(F.truncatedHeaderClosesSession, 'WT-EXEC-11', 'closes the session when an execution stream ends inside its 8-byte header', WT),
  fault(F.injectionReportedAsInvalidReference, 'WT-ERR-1', 'reports an injected execution stream with -32001 (Invalid Stream Reference) instead of -32002 (Stream Injection)', WT),
  fault(F.bindingErrorIdZero, 'WT-ERR-3', 'sends its errors about frames and streams that belong to no request with id 0 instead of null', WT),
  fault(F.shortDatagramReportedWithId, 'WT-DGRAM-1', 'reports a datagram shorter than its 6-byte header with an error whose id is 0, not null', WT),
  fault(F.reservedChannelDatagramReportedWithId, 'WT-DGRAM-2', 'reports a datagram on the reserved channel 0x00 with an error whose id is 0, not null', WT),
  fault(F.flaggedDatagramReportedWithId, 'WT-DGRAM-3', 'reports a datagram with non-zero flags with an error whose id is 0, not null', WT),
  fault(F.unknownDatagramFailsCalls, 'WT-DGRAM-10', 'gives up every call in flight when a datagram names a request that is not in flight', WT),
  fault(F.droppedDatagramClosesSession, 'WT-DGRAM-11', 'closes the session when it drops a datagram (too short, reserved channel, flags, no request in flight)', WT),
  fault(F.streamAfterShutdown, 'WT-SHUT-2', 'ignores $/shutdown in its session and opens an execution stream for its call in flight when it arrives', WT),
  fault(F.closeOnShutdown, 'WT-SHUT-3', 'closes the session as soon as $/shutdown arrives, cutting the execution streams in flight', WT),
  fault(F.resetInsteadOfClose, 'WT-SHUT-4', "ends the session drained after the server's $/shutdown by resetting its HTTP/2 stream (a transport error) instead of closing it", WT),
  // Faults added later go last: the fault self-test shards the catalog by position.
  fault(F.cborIdAsFloat, 'WT-ENC-13', 'with CBOR negotiated, writes the integral ids of its requests as CBOR float64', WT),
]);

/** The whole catalog (a copy: callers may sort or filter it). */
export function mockClientFaultCatalog(): ClientFaultDefinition[] {
  return MOCK_CLIENT_FAULTS.map((entry) => ({ ...entry, ...(entry.transports ? { transports: [...entry.transports] } : {}) }));
}

/** The faults switched on for one client, checked against the catalog. */
export class ClientFaults extends FaultSet {
  /** Throws UnknownClientFaultError for a name the catalog lacks. */
  constructor(names: Iterable<string> = []) {
    super(names, MOCK_CLIENT_FAULTS, {
      unknown: (name, suggestions) => new UnknownClientFaultError(name, suggestions),
      duplicate: (name) => new MockClientError('DUPLICATE_CLIENT_FAULT', `mock-client fault ${JSON.stringify(name)} is defined more than once`),
    });
  }

  override has(name: MockClientFaultName): boolean {
    return super.has(name);
  }

  /** The names switched on. */
  get names(): string[] {
    return this.list();
  }
}
