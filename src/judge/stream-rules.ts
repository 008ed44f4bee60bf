// The rules a passive observer judges from the message stream of one session (the validating
// proxy applies them: src/peer/proxy/validator.ts), each named with the requirement it cites. The
// proxy cites a rule only through this table, so the requirements it can judge are derived from
// it, not kept by hand.

/** Rules of every transport. */
export const STREAM_RULES = {
  // The JSON-RPC exchange.
  emptyBatch: 'CORE-RPC-1',
  idReused: 'CORE-RPC-4',
  answersUnknownId: 'CORE-RPC-5',
  answersNotification: 'CORE-RPC-6',
  /** An id echoed with another JSON type, outside the WebTransport binding (on it, such an answer names no request: answersUnknownId). */
  idRetyped: 'CORE-RPC-12',
  emptyResultNotEmpty: 'CORE-RPC-14',
  answeredTwiceOrNever: 'CORE-RPC-16',
  // The lifecycle.
  requestBeforeInitialize: 'CORE-LIFE-1',
  requestBeforeInitialized: 'CORE-LIFE-4',
  requestBeforeInitializeAnswer: 'CORE-LIFE-6',
  serverBeforeInitialized: 'CORE-LIFE-7',
  secondInitializeServed: 'CORE-LIFE-8',
  requestAfterFailedInitialize: 'CORE-LIFE-9',
  methodNotInVersion: 'CORE-LIFE-11',
  pingResultNotEmpty: 'CORE-LIFE-12',
  // Capabilities.
  serverCapabilityUndeclared: 'CORE-CAP-1',
  clientCapabilityUndeclared: 'CORE-CAP-2',
  undeclaredFeatureServed: 'CORE-CAP-3',
  undeclaredSubscribeServed: 'CORE-CAP-4',
  listChangedUndeclared: 'CORE-CAP-5',
  loggingUndeclared: 'CORE-LOG-5',
  updateWithoutSubscription: 'CORE-RES-5',
  // Progress and cancellation.
  progressTokenUnknown: 'CORE-PROG-2',
  progressNotIncreasing: 'CORE-PROG-3',
  progressAfterAnswer: 'CORE-PROG-4',
  cancelsUnknownRequest: 'CORE-CANCEL-1',
  answeredAfterCancel: 'CORE-CANCEL-2',
  cancelsInitialize: 'CORE-CANCEL-3',
  // MCP Flow.
  flowMethodWrongWay: 'FLOW-CAP-8',
  flowMethodWrongWayServed: 'FLOW-CAP-9',
  sessionIdReused: 'FLOW-START-7',
  noFirstPrompt: 'FLOW-START-8',
  respondWhileNotWaiting: 'FLOW-RESPOND-8',
  illegalTransition: 'FLOW-SM-2',
  transitionFromTerminal: 'FLOW-SM-3',
  secondComplete: 'FLOW-SM-6',
  requestForTerminalSession: 'FLOW-SM-10',
} as const;

/** Rules that only apply on a WebTransport leg. */
export const WT_STREAM_RULES = {
  cancelledWithDollarAnsweredWithResult: 'WT-CANCEL-2',
  dollarCancelMisused: 'WT-CANCEL-6',
  encodingWithoutOffer: 'WT-ENC-4',
  encodingNotPreferred: 'WT-ENC-6',
  encodingNotOffered: 'WT-ENC-9',
  cborFloatId: 'WT-ENC-13',
} as const;
