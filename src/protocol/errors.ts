// Errors of the protocol layer: one class per failure, each with a stable string `code`.

export class ProtocolError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** suites/requirements.json (or a catalog given as data) is missing, unreadable or malformed. */
export class CatalogError extends ProtocolError {
  /** JSON pointer of the offending value inside the catalog ('' for the whole document). */
  readonly pointer: string;
  readonly file: string | undefined;
  constructor(message: string, pointer: string, file?: string, options?: { cause?: unknown }) {
    super('CATALOG_INVALID', `${file ?? 'requirement catalog'}${pointer ? ` at ${pointer}` : ''}: ${message}`, options);
    this.pointer = pointer;
    this.file = file;
  }
}

/** A requirement ID that the catalog does not define. */
export class UnknownRequirementError extends ProtocolError {
  readonly id: string;
  constructor(id: string, reason = 'is not in the requirement catalog') {
    super('UNKNOWN_REQUIREMENT', `requirement ${JSON.stringify(id)} ${reason}`);
    this.id = id;
  }
}

/** An error-code layer name that does not exist. */
export class UnknownLayerError extends ProtocolError {
  readonly layer: string;
  constructor(layer: string, known: readonly string[]) {
    super('UNKNOWN_LAYER', `unknown error-code layer ${JSON.stringify(layer)} (known: ${known.join(', ')})`);
    this.layer = layer;
  }
}

/** A method name that no system of the profile defines. */
export class UnknownMethodError extends ProtocolError {
  readonly method: string;
  constructor(method: string) {
    super('UNKNOWN_METHOD', `method ${JSON.stringify(method)} is not defined by MCP core, MCP Flow or the WebTransport binding`);
    this.method = method;
  }
}

/** docs/profile.md lacks (or misorders) the markers around a generated section. */
export class ProfileDocumentError extends ProtocolError {
  readonly section: string;
  constructor(section: string, message: string) {
    super('PROFILE_MARKERS', `docs/profile.md, generated section "${section}": ${message}`);
    this.section = section;
  }
}

/** A session-state change that 000's transition table (as the profile reads it) does not allow. */
export class InvalidStateTransitionError extends ProtocolError {
  /** -32003 INVALID_STATE_TRANSITION, or -32006 ALREADY_CANCELLED when the session is cancelled. */
  readonly jsonRpcCode: number;
  readonly requirement: string;
  readonly from: string | null;
  readonly trigger: string;
  constructor(from: string | null, trigger: string) {
    const cancelled = from === 'cancelled';
    super(
      cancelled ? 'ALREADY_CANCELLED' : 'INVALID_STATE_TRANSITION',
      cancelled ? `session already cancelled (cannot ${trigger})` : `cannot ${trigger} a session in state ${from ?? '(none)'}`,
    );
    this.jsonRpcCode = cancelled ? -32006 : -32003;
    this.requirement = cancelled ? 'FLOW-CANCEL-2' : 'FLOW-SM-4';
    this.from = from;
    this.trigger = trigger;
  }
}

/** A prompt a peer sent that cannot be used to validate values (e.g. a pattern that does not compile). */
export class InvalidPromptError extends ProtocolError {
  readonly requirement: string;
  constructor(message: string, requirement: string) {
    super('INVALID_PROMPT', message);
    this.requirement = requirement;
  }
}

/** A measurement was asked of too small a sample to mean anything. */
export class InsufficientSampleError extends ProtocolError {
  constructor(message: string) {
    super('INSUFFICIENT_SAMPLE', message);
  }
}
