// Per-session and per-server limits: what one peer may use of this process.

export interface WtSessionLimits {
  /** Largest control-stream message body accepted or sent, in bytes (advertised as maxMessageSize). */
  maxMessageSize: number;
  /** Execution streams a peer may have open at once towards us (advertised as maxConcurrentStreams). */
  maxConcurrentStreams: number;
  /** Bytes of received messages not yet taken by `next()`; reading the control stream pauses above it. */
  maxPendingBytes: number;
  /** Datagrams queued for sending; more wait for the queue to drain (the library drops past ~256). */
  maxQueuedDatagrams: number;
  /** Received datagrams kept until taken; older ones are dropped (datagrams are unreliable anyway). */
  maxReceivedDatagrams: number;
  /** How long a stream header may wait for its request id to appear on the control stream. */
  streamCorrelationGraceMs: number;
  /** How long a message referencing a `ref/stream` waits for that stream before -32001. */
  streamReferenceGraceMs: number;
  /** Upper bound on draining streams during `$/shutdown`. */
  drainTimeoutMs: number;
  /** Server role: a session not READY (initialize answered) this long after it opened is closed; 0: never. */
  handshakeTimeoutMs: number;
  /** Server role: a session where nothing crossed this long, with no request in flight and no stream open, is closed; 0: never. */
  idleTimeoutMs: number;
}

export const DEFAULT_SESSION_LIMITS: WtSessionLimits = {
  maxMessageSize: 4 * 1024 * 1024,
  maxConcurrentStreams: 16,
  maxPendingBytes: 32 * 1024 * 1024,
  maxQueuedDatagrams: 64,
  maxReceivedDatagrams: 1024,
  streamCorrelationGraceMs: 1000,
  streamReferenceGraceMs: 2000,
  drainTimeoutMs: 5000,
  handshakeTimeoutMs: 30_000,
  idleTimeoutMs: 600_000,
};

export function sessionLimits(overrides: Partial<WtSessionLimits> = {}): WtSessionLimits {
  const limits = { ...DEFAULT_SESSION_LIMITS, ...definedOnly(overrides) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`limit ${name} must be a non-negative number, got ${value}`);
  }
  if (limits.maxMessageSize < 1) throw new RangeError('limit maxMessageSize must be at least 1');
  return limits;
}

function definedOnly<T extends object>(value: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
