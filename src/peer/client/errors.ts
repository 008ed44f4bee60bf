// Errors of the mock client: each has a stable `code`. Failures the server causes (an error
// response, a missing stream) are reported in outcomes, not thrown; these are for misuse and for
// conditions that end an operation (a script that ran out of answers, an unknown fault name).

export class MockClientError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A fault name the mock client's catalog does not define. */
export class UnknownClientFaultError extends MockClientError {
  readonly fault: string;
  readonly suggestions: readonly string[];
  constructor(fault: string, suggestions: readonly string[]) {
    super(
      'UNKNOWN_CLIENT_FAULT',
      `unknown mock-client fault ${JSON.stringify(fault)}` +
        (suggestions.length > 0 ? ` (did you mean ${suggestions.map((s) => JSON.stringify(s)).join(', ')}?)` : ' (see mockClientFaultCatalog / --list-faults)'),
    );
    this.fault = fault;
    this.suggestions = suggestions;
  }
}

/** A scripted answerer was asked for more answers than its script holds. */
export class AnswersExhaustedError extends MockClientError {
  readonly used: number;
  constructor(used: number, prompt: unknown) {
    const message = typeof (prompt as { message?: unknown })?.message === 'string' ? (prompt as { message: string }).message : JSON.stringify(prompt);
    super('ANSWERS_EXHAUSTED', `the script has no answer left for prompt ${JSON.stringify(message)} (all ${used} answers used)`);
    this.used = used;
  }
}

/** An answer script (file or list) that cannot be used. */
export class AnswerScriptError extends MockClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ANSWER_SCRIPT', message, options);
  }
}

/** The server answered a request with a JSON-RPC error. */
export class RpcResponseError extends MockClientError {
  readonly method: string;
  readonly rpcCode: number | undefined;
  readonly data: unknown;
  constructor(method: string, error: { code?: unknown; message?: unknown; data?: unknown } | undefined) {
    const code = typeof error?.code === 'number' ? error.code : undefined;
    const text = typeof error?.message === 'string' ? error.message : '(no message)';
    super('RPC_ERROR', `${method} was answered with error ${code ?? '?'}: ${text}`);
    this.method = method;
    this.rpcCode = code;
    this.data = error?.data;
  }
}

/** initialize failed (an error answer, or a protocol version this client does not speak). */
export class InitializeFailedError extends MockClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INITIALIZE_FAILED', message, options);
  }
}

/** An operation that needs an initialized session was called before initialize() succeeded, or after $/shutdown. */
export class ClientStateError extends MockClientError {
  constructor(message: string) {
    super('CLIENT_STATE', message);
  }
}

/** A target that names no usable transport. */
export class MockClientTargetError extends MockClientError {
  constructor(message: string) {
    super('CLIENT_TARGET', message);
  }
}

/** The scenario environment (MCP_FLOW_SCENARIO / MCP_FLOW_CONTEXT) cannot be run. */
export class ScenarioError extends MockClientError {
  constructor(message: string) {
    super('SCENARIO', message);
  }
}
