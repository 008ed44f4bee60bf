// The mock server's fault catalog: each fault, when switched on (`--fault NAME`), makes the server
// break exactly one requirement, named by its ID in suites/requirements.json. The conformance
// suite runs its checks against a faulty server to prove that each check can fail.
import { ActiveFaults, defineFault, type FaultDefinition, type ServerExtension } from './extension.js';

const fault = defineFault;

/** Names of the core faults, for the code paths that honour them. */
export const CORE_FAULT = {
  acceptRequestBeforeInitialize: 'accept-request-before-initialize',
  pingBeforeInitializeRefused: 'ping-before-initialize-refused',
  secondInitializeAccepted: 'second-initialize-accepted',
  initializeMissingServerInfo: 'initialize-missing-server-info',
  wrongProtocolVersion: 'wrong-protocol-version',
  unsupportedVersionError: 'unsupported-version-error',
  pingNonEmptyResult: 'ping-non-empty-result',
  parseErrorUnanswered: 'parse-error-unanswered',
  invalidRequestServed: 'invalid-request-served',
  wrongErrorCodeMethodNotFound: 'wrong-error-code-method-not-found',
  wrongErrorCodeInvalidParams: 'wrong-error-code-invalid-params',
  stringIdEchoedAsNumber: 'string-id-echoed-as-number',
  duplicateResponse: 'duplicate-response',
  errorWithoutMessage: 'error-without-message',
  answerNotification: 'answer-notification',
  internalErrorCodeWrong: 'internal-error-code-wrong',
  batchRejected: 'batch-rejected',
  undeclaredCapabilityServed: 'undeclared-capability-served',
  subscribeWithoutCapability: 'subscribe-without-capability',
  clientCapabilityIgnored: 'client-capability-ignored',
  methodOutsideVersion: 'method-outside-version',
  serverRequestBeforeInitialized: 'server-request-before-initialized',
  ignoreCancel: 'ignore-cancel',
  respondAfterCancelled: 'respond-after-cancelled',
  answerCancelledNotification: 'answer-cancelled-notification',
  dollarCancelAnsweredWithResult: 'dollar-cancel-answered-with-result',
  answerUnknownDollarCancel: 'answer-unknown-dollar-cancel',
  progressAfterResponse: 'progress-after-response',
  progressNotIncreasing: 'progress-not-increasing',
  progressUnknownToken: 'progress-unknown-token',
  loggingLevelIgnored: 'logging-level-ignored',
  setLevelInvalidAccepted: 'set-level-invalid-accepted',
  logWithoutCapability: 'log-without-capability',
  unknownToolResult: 'unknown-tool-result',
  invalidArgumentsExecuted: 'invalid-arguments-executed',
  toolFailureAsProtocolError: 'tool-failure-as-protocol-error',
  structuredContentMismatch: 'structured-content-mismatch',
  resourceNotFoundResult: 'resource-not-found-result',
  pathTraversalServed: 'path-traversal-served',
  updatedWithoutSubscription: 'updated-without-subscription',
  cursorLoops: 'cursor-loops',
  invalidCursorAccepted: 'invalid-cursor-accepted',
  promptMissingArgumentAccepted: 'prompt-missing-argument-accepted',
  wtTransportMissing: 'wt-transport-missing',
  wtCancelKeepsStream: 'wt-cancel-keeps-stream',
  wtStreamErrorWithFin: 'wt-stream-error-with-fin',
  wtNoStreamErrorNotification: 'wt-no-stream-error-notification',
} as const;

const F = CORE_FAULT;

/** The faults of the server core (lifecycle, JSON-RPC, built-in tools, resources, prompts, binding glue). */
export const CORE_FAULTS: readonly FaultDefinition[] = Object.freeze([
  fault(F.acceptRequestBeforeInitialize, 'CORE-LIFE-5', 'serves requests other than initialize and ping before initialization succeeded'),
  fault(F.pingBeforeInitializeRefused, 'CORE-LIFE-13', 'answers ping before initialization with -32600 outside WebTransport'),
  fault(F.secondInitializeAccepted, 'CORE-LIFE-8', 'answers a second initialize with a fresh result instead of an error'),
  fault(F.initializeMissingServerInfo, 'CORE-LIFE-3', 'leaves serverInfo out of the initialize result'),
  fault(F.wrongProtocolVersion, 'CORE-VER-2', 'answers with the latest protocol version even when it supports the one the client asked for'),
  fault(F.unsupportedVersionError, 'CORE-VER-3', 'answers an unsupported protocol version with an error instead of offering its own'),
  fault(F.pingNonEmptyResult, 'CORE-LIFE-12', 'answers ping with a non-empty result'),
  fault(F.parseErrorUnanswered, 'CORE-RPC-8', 'sends nothing for a message that does not parse (stdio and in-memory connections)'),
  fault(F.invalidRequestServed, 'CORE-RPC-9', 'serves requests whose jsonrpc member is not "2.0"'),
  fault(F.wrongErrorCodeMethodNotFound, 'CORE-RPC-10', 'answers an unknown method with -32603 instead of -32601'),
  fault(F.wrongErrorCodeInvalidParams, 'CORE-RPC-11', 'answers requests with missing or mistyped params with -32603 instead of -32602'),
  fault(F.stringIdEchoedAsNumber, 'CORE-RPC-5', 'echoes a numeric string id ("7") as the number 7'),
  fault(F.duplicateResponse, 'CORE-RPC-16', 'answers every request twice'),
  fault(F.errorWithoutMessage, 'CORE-RPC-7', 'sends error responses with an empty message'),
  fault(F.answerNotification, 'CORE-RPC-6', 'answers notifications it does not know with a -32601 error response'),
  fault(F.internalErrorCodeWrong, 'CORE-ERR-2', 'answers an unexpected handler failure with -32000 instead of -32603'),
  fault(F.batchRejected, 'CORE-RPC-13', 'answers a JSON-RPC batch with -32600 even under 2025-03-26'),
  fault(F.undeclaredCapabilityServed, 'CORE-CAP-3', 'serves requests of features it did not declare'),
  fault(F.subscribeWithoutCapability, 'CORE-CAP-4', 'accepts resources/subscribe without having declared resources.subscribe'),
  fault(F.clientCapabilityIgnored, 'CORE-CAP-2', 'sends sampling/createMessage, roots/list or elicitation/create to a client that did not declare the feature'),
  fault(F.methodOutsideVersion, 'CORE-LIFE-11', 'sends methods the negotiated protocol version does not define (e.g. elicitation/create under 2025-03-26)'),
  fault(F.serverRequestBeforeInitialized, 'CORE-LIFE-7', 'sends requests other than ping before the client sent notifications/initialized'),
  fault(F.ignoreCancel, 'CORE-CANCEL-2', 'keeps working on a request cancelled with notifications/cancelled and answers it'),
  fault(F.respondAfterCancelled, 'CORE-CANCEL-2', 'stops a request cancelled with notifications/cancelled but still answers it with an error'),
  fault(F.answerCancelledNotification, 'CORE-CANCEL-4', 'answers notifications/cancelled for an unknown or finished request with an error'),
  fault(F.dollarCancelAnsweredWithResult, 'WT-CANCEL-2', 'answers a request cancelled with $/cancel with its result instead of an error'),
  fault(F.answerUnknownDollarCancel, 'WT-CANCEL-4', 'answers $/cancel for an unknown or finished request with an error'),
  fault(F.progressAfterResponse, 'CORE-PROG-4', 'sends one more progress notification after the response'),
  fault(F.progressNotIncreasing, 'CORE-PROG-3', 'repeats the previous progress value in every other progress notification'),
  fault(F.progressUnknownToken, 'CORE-PROG-2', 'sends progress notifications with a token the client never supplied'),
  fault(F.loggingLevelIgnored, 'CORE-LOG-3', 'sends notifications/message below the level set with logging/setLevel'),
  fault(F.setLevelInvalidAccepted, 'CORE-LOG-2', 'answers logging/setLevel with an unknown level with {}'),
  fault(F.logWithoutCapability, 'CORE-LOG-5', 'sends notifications/message although it did not declare logging'),
  fault(F.unknownToolResult, 'CORE-TOOLS-2', 'answers tools/call of an unknown tool with an isError result instead of an error'),
  fault(F.invalidArgumentsExecuted, 'CORE-TOOLS-4', 'runs tools with arguments that do not match their inputSchema'),
  fault(F.toolFailureAsProtocolError, 'CORE-TOOLS-5', 'reports a failure inside a tool as a JSON-RPC error instead of an isError result'),
  fault(F.structuredContentMismatch, 'CORE-TOOLS-6', 'returns structuredContent that does not validate against the tool outputSchema'),
  fault(F.resourceNotFoundResult, 'CORE-RES-2', 'answers resources/read of an unknown URI with an empty contents result'),
  fault(F.pathTraversalServed, 'CORE-RES-4', 'serves resource URIs that escape the resource root with ..'),
  fault(F.updatedWithoutSubscription, 'CORE-RES-5', 'sends notifications/resources/updated for URIs nobody subscribed to'),
  fault(F.cursorLoops, 'CORE-PAGE-2', 'gives the last page of resources/list a nextCursor pointing back to the first page'),
  fault(F.invalidCursorAccepted, 'CORE-PAGE-3', 'answers an unknown cursor with the first page instead of -32602'),
  fault(F.promptMissingArgumentAccepted, 'CORE-PROMPTS-3', 'answers prompts/get without a required argument with a result'),
  fault(F.wtTransportMissing, 'WT-INIT-3', 'leaves result.transport out of the initialize result (WebTransport)'),
  fault(F.wtCancelKeepsStream, 'WT-CANCEL-3', 'keeps writing a request execution stream after $/cancel (WebTransport)'),
  fault(F.wtStreamErrorWithFin, 'WT-STREAMERR-2', 'ends a failed execution stream with FIN instead of resetting it (WebTransport)'),
  fault(F.wtNoStreamErrorNotification, 'WT-STREAMERR-1', 'sends no $/streamError when an execution stream fails mid-transfer (WebTransport)'),
]);

/** The whole catalog: the core faults and every extension's, checked for duplicate names by ActiveFaults. */
export function faultCatalog(extensions: readonly ServerExtension[] = []): FaultDefinition[] {
  return [...CORE_FAULTS, ...extensions.flatMap((extension) => extension.faults ?? [])];
}

/** Checks fault names against the catalog of the core and these extensions (UnknownFaultError otherwise). */
export function activeFaults(names: Iterable<string>, extensions: readonly ServerExtension[] = []): ActiveFaults {
  return new ActiveFaults(names, faultCatalog(extensions));
}
