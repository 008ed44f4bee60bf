// The readings of the WebTransport binding (seed 001) the server side takes where docs/profile.md
// accepts more than one (each requirement's `accepts`) or 001 is silent. The mock server's
// 'recommended' preset takes the profile's recommended reading everywhere; 'alternate' takes
// another accepted one wherever there is one, so that the self-test shows each accepted reading
// passes (src/peer/server/readings.ts). Individual switches stay available for tests. The session
// takes those of framing, streams, datagrams and Origin; the server binding (src/peer/server/
// binding.ts) reads the admission ones (WT-CONN-4, WT-INIT-5/6, WT-ENC-7, WT-ID-2/3, WT-CANCEL-2)
// from the session it is attached to.

/** One switch per place where the binding's server side may answer in more than one accepted way. */
export interface WtBindingReadings {
  /** WT-CONN-4: a request other than initialize before READY. 'invalid-request': -32600 echoing its id, session kept; 'not-available-and-close': -32601, then the session closes. */
  requestBeforeReady: 'invalid-request' | 'not-available-and-close';
  /** WT-CONN-4: a ping before initialize: refused like any other request, or answered with its result (MCP). */
  pingBeforeInitialize: 'refuse' | 'answer';
  /** WT-CONN-4: a notification before READY: ignored, or the session closes. Never answered. */
  notificationBeforeReady: 'ignore' | 'close';
  /** WT-CONN-4: a request that arrives while initializing: refused (as requestBeforeReady), or served once READY. */
  requestWhileInitializing: 'refuse' | 'serve-when-ready';
  /** WT-FRAME-2: the code answering a zero-length frame. */
  emptyFrame: 'invalid-request' | 'parse-error';
  /** WT-FRAME-5: the control stream ending inside a frame: -32700 then close, or close without an answer. */
  truncatedFrameAtEnd: 'parse-error' | 'close';
  /** WT-FRAME-7: after a frame over maxMessageSize (and a zero-length one): close the session, or skip its body and go on. */
  afterLengthError: 'close' | 'skip';
  /** WT-ENC-5: a CBOR initialize: -32003 Encoding Mismatch, or -32700 (malformed JSON). Both id null. */
  cborInitialize: 'encoding-mismatch' | 'parse-error';
  /** WT-ENC-5: a message in the other encoding after negotiation: -32003 with id null, or echoing the id it carries. */
  mismatchId: 'null' | 'echo';
  /** WT-ENC-7: none of the offered encodings supported: select json, or refuse initialize with -32602. */
  noSupportedEncoding: 'json' | 'refuse';
  /** WT-INIT-5: a transport.version other than "0.1": answered with "0.1", or refused with -32600. */
  otherTransportVersion: 'answer' | 'refuse';
  /** WT-INIT-6: an initialize without params.transport: served with the defaults, or refused with -32600. */
  transportOmitted: 'defaults' | 'refuse';
  /** WT-EXEC-1: a client stream ending inside its 8-byte header: reported with -32600, or dropped silently. */
  truncatedStreamHeader: 'report' | 'drop';
  /** WT-EXEC-2: a client stream naming no request in flight: stopped and reported, or reported and its payload read and discarded. */
  injectedStream: 'stop' | 'discard';
  /** WT-EXEC-3: a request carrying a ref/stream item that names no stream: -32001 after a grace, or the item ignored (no stream input taken). */
  requestStreamReferences: 'resolve' | 'ignore';
  /** WT-DGRAM-1/2/4: a datagram too short, on channel 0x00 or on an unknown channel: dropped silently, or reported with -32600 (id null). */
  droppedDatagram: 'silent' | 'report';
  /** WT-DGRAM-3: a datagram with non-zero flags: dropped, or taken with the reserved flags ignored. */
  reservedFlags: 'drop' | 'ignore';
  /** WT-DGRAM-5: a datagram after datagramsSupported: false: -32004 with id null, or answering the in-flight request it names. */
  datagramNotSupported: 'null-id' | 'answer-request';
  /** WT-DGRAM-6: progress and log datagram payloads: the notification's params, or the whole notification. */
  datagramPayload: 'params' | 'notification';
  /** WT-ID-2: a request with a string id: served without streams, or refused with -32600. */
  stringIds: 'serve' | 'refuse';
  /** WT-ID-3: an integer id the headers cannot carry: -32600 echoing it, -32600 with id null, or served without streams. (A fraction, no MCP id at all, gets -32600 with id null either way.) */
  unfitNumericIds: 'refuse' | 'refuse-null' | 'serve-integers';
  /** WT-CANCEL-2: the code answering a request cancelled with $/cancel (the core answers -32000). */
  cancelledCode: number;
  /** WT-SEC-1: the HTTP status refusing a CONNECT whose Origin is not allowed. */
  foreignOriginStatus: number;
  /** WT-SEC-5: a CONNECT without an Origin header: accepted, or refused like a foreign one. */
  missingOrigin: 'accept' | 'refuse';
}

/** The profile's recommended readings (the reference mock server). */
export const RECOMMENDED_BINDING_READINGS: Readonly<WtBindingReadings> = Object.freeze({
  requestBeforeReady: 'invalid-request',
  pingBeforeInitialize: 'refuse',
  notificationBeforeReady: 'ignore',
  requestWhileInitializing: 'refuse',
  emptyFrame: 'invalid-request',
  truncatedFrameAtEnd: 'parse-error',
  afterLengthError: 'close',
  cborInitialize: 'encoding-mismatch',
  mismatchId: 'null',
  noSupportedEncoding: 'json',
  otherTransportVersion: 'answer',
  transportOmitted: 'defaults',
  truncatedStreamHeader: 'report',
  injectedStream: 'stop',
  requestStreamReferences: 'resolve',
  droppedDatagram: 'silent',
  reservedFlags: 'drop',
  datagramNotSupported: 'null-id',
  datagramPayload: 'params',
  stringIds: 'serve',
  unfitNumericIds: 'refuse',
  cancelledCode: -32000,
  foreignOriginStatus: 403,
  missingOrigin: 'accept',
});

/** Another accepted reading at every switch (the alternate-readings mock server). */
export const ALTERNATE_BINDING_READINGS: Readonly<WtBindingReadings> = Object.freeze({
  requestBeforeReady: 'not-available-and-close',
  pingBeforeInitialize: 'answer',
  notificationBeforeReady: 'close',
  requestWhileInitializing: 'serve-when-ready',
  emptyFrame: 'parse-error',
  truncatedFrameAtEnd: 'close',
  afterLengthError: 'skip',
  cborInitialize: 'parse-error',
  mismatchId: 'echo',
  noSupportedEncoding: 'refuse',
  otherTransportVersion: 'refuse',
  transportOmitted: 'refuse',
  truncatedStreamHeader: 'drop',
  injectedStream: 'discard',
  requestStreamReferences: 'ignore',
  droppedDatagram: 'report',
  reservedFlags: 'ignore',
  datagramNotSupported: 'answer-request',
  datagramPayload: 'notification',
  stringIds: 'refuse',
  unfitNumericIds: 'serve-integers',
  cancelledCode: -32800,
  foreignOriginStatus: 400,
  missingOrigin: 'refuse',
});

/** The readings of a preset, with individual switches overridden. */
export function bindingReadings(preset: 'recommended' | 'alternate' = 'recommended', overrides: Partial<WtBindingReadings> = {}): WtBindingReadings {
  return { ...(preset === 'alternate' ? ALTERNATE_BINDING_READINGS : RECOMMENDED_BINDING_READINGS), ...overrides };
}
