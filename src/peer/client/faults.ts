// The mock client's fault catalog: each fault, switched on, makes the mock client break exactly
// one client-side requirement (named by its ID in suites/requirements.json), in a way a harness
// acting as server can observe in one of the client scenarios (docs/client-scenarios.md). The
// client conformance suite runs against the faulty client to prove each of its checks can fail.
import type { TransportKind } from '../../transport/connection.js';
import { UnknownClientFaultError } from './errors.js';

export interface ClientFaultDefinition {
  /** kebab-case, unique in the catalog; stable (suites and the CLI name faults by it). */
  name: string;
  /** The requirement ID the fault breaks. */
  requirement: string;
  /** What the client does differently, in one sentence. */
  description: string;
  /** The transports on which the fault has an effect; every transport when absent. */
  transports?: TransportKind[];
}

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
} as const;

export type MockClientFaultName = (typeof MOCK_CLIENT_FAULT)[keyof typeof MOCK_CLIENT_FAULT];

const F = MOCK_CLIENT_FAULT;
const WT: TransportKind[] = ['webtransport'];
const fault = (name: string, requirement: string, description: string, transports?: TransportKind[]): ClientFaultDefinition =>
  Object.freeze({ name, requirement, description, ...(transports ? { transports } : {}) });

export const MOCK_CLIENT_FAULTS: readonly ClientFaultDefinition[] = Object.freeze([
  fault(F.requestBeforeInitialize, 'CORE-LIFE-1', 'sends tools/list before initialize (and initializes afterwards)'),
  fault(F.initializeInCbor, 'WT-ENC-1', 'sends the initialize request CBOR-encoded', WT),
  fault(F.noTransportExtension, 'WT-INIT-1', 'leaves params.transport out of initialize', WT),
  fault(F.noInitializedNotification, 'CORE-LIFE-4', 'never sends notifications/initialized'),
  fault(F.encodingNotSwitched, 'WT-ENC-12', 'keeps sending JSON frames after CBOR was negotiated (notifications/initialized onwards)', WT),
  fault(F.sendBeforeInitializeResult, 'WT-CONN-5', 'sends tools/list right after initialize, before the initialize result arrived (a ping would be allowed)', WT),
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
]);

/** The whole catalog (a copy: callers may sort or filter it). */
export function mockClientFaultCatalog(): ClientFaultDefinition[] {
  return MOCK_CLIENT_FAULTS.map((entry) => ({ ...entry, ...(entry.transports ? { transports: [...entry.transports] } : {}) }));
}

/** The faults switched on for one client, checked against the catalog. */
export class ClientFaults {
  readonly #active: ReadonlySet<string>;

  /** Throws UnknownClientFaultError for a name the catalog lacks. */
  constructor(names: Iterable<string> = []) {
    const known = new Set(MOCK_CLIENT_FAULTS.map((entry) => entry.name));
    const active = new Set<string>();
    for (const name of names) {
      if (!known.has(name)) throw new UnknownClientFaultError(name, suggestions(name, known));
      active.add(name);
    }
    this.#active = active;
  }

  has(name: MockClientFaultName): boolean {
    return this.#active.has(name);
  }

  get names(): string[] {
    return [...this.#active];
  }
}

/** Known names sharing a word with `name`, or one edit-ish apart (at most three). */
function suggestions(name: string, known: ReadonlySet<string>): string[] {
  const words = new Set(name.split('-').filter((word) => word.length > 2));
  return [...known].filter((candidate) => candidate.split('-').some((word) => words.has(word))).slice(0, 3);
}
