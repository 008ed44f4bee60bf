// One MCP session of the mock server over one Connection: reads each message, checks its JSON-RPC
// envelope, and dispatches it: initialize (initialize.ts), requests to the built-in handlers
// (builtins.ts) or to the extensions, gated by lifecycle and capabilities; notifications
// (initialized, cancellation, the extensions'); responses to the server's own requests
// (client-requests.ts). In-flight requests, cancellation and progress are in-flight.ts; everything
// sent goes through outbox.ts. Faults that only rewrite what is sent are fault-hooks.ts tables.
import type { Connection } from '../../../transport/connection.js';
import { ConnectionClosedError } from '../../../transport/errors.js';
import { BINDING_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { CORE_METHOD, BINDING_METHOD, capabilityGate, declares, findMethod, isDefinedIn, isProtocolVersion, type ProtocolVersion } from '../../../protocol/methods.js';
import { RpcError, type ActiveFaults, type RequestContext, type ServerExtension, type ServerSessionContext, type ServerTool } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { BuiltinRequests } from './builtins.js';
import { ClientRequests } from './client-requests.js';
import { InFlightRequests, type InFlight, type Outcome } from './in-flight.js';
import { computeCapabilities, initialize, type InitializeOptions } from './initialize.js';
import { checkEnvelope, errorObject, isRecord, type JsonRpcErrorObject, type RequestId } from './jsonrpc.js';
import { describe, Outbox, type Sink } from './outbox.js';
import { MOCK_META, RECOMMENDED_CORE_READINGS, type CoreReadings } from './readings.js';
import { SessionState } from './state.js';

export interface SessionOptions {
  extensions: readonly ServerExtension[];
  faults: ActiveFaults;
  serverInfo: { name: string; version: string; title?: string };
  instructions?: string;
  /** Protocol versions this server supports, oldest first. */
  protocolVersions: readonly ProtocolVersion[];
  /** Declare and serve the logging utility. */
  logging: boolean;
  /** Default deadline of server-to-client requests. */
  requestTimeoutMs: number;
  /** On WebTransport with datagrams, send progress of integer-id requests as 0x01 datagrams. */
  progressDatagrams: boolean;
  connectionId: string;
  /** The readings of the profile the core takes where the documents allow several (default: the recommended ones). */
  readings?: CoreReadings;
}

type RequestHandler = (params: unknown, ctx: RequestContext) => Promise<unknown>;

export class ServerSession {
  readonly #connection: Connection;
  readonly #options: SessionOptions;
  readonly #faults: ActiveFaults;
  readonly #readings: CoreReadings;
  readonly #abort = new AbortController();
  readonly #state = new SessionState();
  readonly #outbox: Outbox;
  readonly #inFlight: InFlightRequests;
  readonly #clientRequests: ClientRequests;
  readonly #builtins: BuiltinRequests;
  readonly #initialize: InitializeOptions;
  readonly #tools = new Map<string, ServerTool>();
  readonly #requests = new Map<string, RequestHandler>();
  readonly #notifications = new Map<string, Array<(params: unknown, ctx: ServerSessionContext) => void | Promise<void>>>();
  readonly context: ServerSessionContext;
  #faultsSeen = 0;

  constructor(connection: Connection, options: SessionOptions) {
    this.#connection = connection;
    this.#options = options;
    this.#faults = options.faults;
    this.#readings = options.readings ?? RECOMMENDED_CORE_READINGS;
    for (const extension of options.extensions) {
      for (const tool of extension.tools ?? []) this.#tools.set(tool.name, tool);
      for (const [method, handler] of Object.entries(extension.requests ?? {})) this.#requests.set(method, handler);
      for (const [method, handler] of Object.entries(extension.notifications ?? {})) {
        this.#notifications.set(method, [...(this.#notifications.get(method) ?? []), handler]);
      }
    }
    const faults = this.#faults;
    const state = this.#state;
    const closed = () => connection.isClosed;
    this.#outbox = new Outbox(connection, faults);
    this.#inFlight = new InFlightRequests({ connection, outbox: this.#outbox, faults, state, progressDatagrams: options.progressDatagrams });
    this.#clientRequests = new ClientRequests({ outbox: this.#outbox, faults, state, ended: this.#abort.signal, timeoutMs: options.requestTimeoutMs, closed });
    this.#builtins = new BuiltinRequests({ tools: this.#tools, state, faults, readings: this.#readings, outbox: this.#outbox, closed });
    this.context = this.#sessionContext();
    this.#initialize = {
      connection,
      state,
      faults,
      readings: this.#readings,
      extensions: options.extensions,
      protocolVersions: options.protocolVersions,
      serverInfo: options.serverInfo,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      logging: options.logging,
      hasTools: this.#tools.size > 0,
      context: this.context,
    };
    // What a request served before initialize (only with a fault) sees; initialize recomputes it.
    state.capabilities = computeCapabilities(this.#initialize);
  }

  get initialized(): boolean {
    return this.#state.initialized;
  }

  /** Whether the client has sent notifications/initialized. */
  get initializedNotified(): boolean {
    return this.#state.initializedNotified;
  }

  /** Serves the connection until it closes. */
  async run(): Promise<void> {
    const watcher = this.#watchTransportFaults();
    try {
      for (;;) {
        let received;
        try {
          received = await this.#connection.next();
        } catch {
          break;
        }
        // Undecodable input recorded before this message is answered first, in arrival order.
        this.#answerTransportFaults();
        void this.#dispatch(received.message).catch((error: unknown) => this.#outbox.note(`dispatch failed: ${describe(error)}`));
      }
    } finally {
      if (watcher) clearInterval(watcher);
      this.#end();
    }
  }

  // ---- transport-level faults ------------------------------------------------------------------

  /**
   * stdio-like connections record undecodable lines as faults without answering them; the
   * session answers each with its JSON-RPC code and id null (CORE-RPC-8). WebTransport and HTTP
   * answer such input themselves.
   */
  #watchTransportFaults(): NodeJS.Timeout | undefined {
    if (this.#connection.kind !== 'stdio') return undefined;
    const timer = setInterval(() => this.#answerTransportFaults(), 5);
    timer.unref();
    return timer;
  }

  #answerTransportFaults(): void {
    if (this.#connection.kind !== 'stdio') return;
    const faults = this.#connection.faults();
    for (const fault of faults.slice(this.#faultsSeen)) {
      if (fault.jsonRpcCode === undefined || this.#connection.isClosed) continue;
      if (fault.jsonRpcCode === JSONRPC_ERROR.ParseError && this.#faults.has(F.parseErrorUnanswered)) continue;
      const name = fault.jsonRpcCode === JSONRPC_ERROR.ParseError ? 'Parse error' : 'Invalid Request';
      const code = fault.jsonRpcCode === JSONRPC_ERROR.ParseError && this.#faults.has(F.parseErrorWrongCode) ? JSONRPC_ERROR.InternalError : fault.jsonRpcCode;
      void this.#outbox.error(this.#outbox.direct, null, errorObject(code, `${name}: ${fault.message}`));
    }
    this.#faultsSeen = faults.length;
  }

  // ---- dispatch ---------------------------------------------------------------------------------

  async #dispatch(message: unknown): Promise<void> {
    if (Array.isArray(message)) return this.#dispatchBatch(message);
    return this.#handle(message, this.#outbox.direct);
  }

  /** JSON-RPC batches: served under 2025-03-26 (CORE-RPC-13), refused with -32600 otherwise (C-30). */
  async #dispatchBatch(items: unknown[]): Promise<void> {
    const state = this.#state;
    const version = this.#readings.batches === 'every-version' || state.protocolVersion === '2025-03-26';
    const accepted = state.initialized && version && !this.#faults.has(F.batchRejected) && items.length > 0;
    if (!accepted) {
      const why = items.length === 0 ? 'an empty batch' : `batches are not accepted under protocol version ${state.initialized ? state.protocolVersion : '(not initialized)'}`;
      await this.#outbox.error(this.#outbox.direct, null, errorObject(JSONRPC_ERROR.InvalidRequest, `Invalid Request: ${why}`));
      return;
    }
    const answers: unknown[] = [];
    const sink: Sink = { send: async (answer) => void answers.push(answer) };
    await Promise.all(items.map((item) => this.#handle(item, sink)));
    if (answers.length > 0) await this.#outbox.send(answers);
  }

  async #handle(message: unknown, sink: Sink): Promise<void> {
    const malformed = checkEnvelope(message, { lenientJsonrpc: this.#readings.lenientJsonrpc, nullIds: this.#readings.invalidRequestId === 'null' });
    if (malformed) {
      // A malformed response owes nothing (CORE-RPC-9): the alternate readings leave it unanswered.
      if (malformed.response && this.#readings.malformedResponse === 'ignore') {
        this.#outbox.note('a malformed response (both or neither of result and error) was ignored');
        return;
      }
      let error = malformed.error;
      if (this.#faults.has(F.invalidRequestParseError)) error = errorObject(JSONRPC_ERROR.ParseError, `Parse error: ${error.message}`);
      else if (this.#faults.has(F.invalidRequestWrongCode)) error = errorObject(JSONRPC_ERROR.InternalError, `Internal error: ${error.message}`);
      return this.#outbox.error(sink, malformed.id, error);
    }
    const m = message as Record<string, unknown>;
    if (!('method' in m)) return this.#clientRequests.onResponse(m);
    const method = m['method'] as string;
    const params = m['params'];
    if (!('id' in m)) return this.#onNotification(method, params);
    // Over WebTransport the session itself refuses ids outside 0..2^32-1 (WT-ID-3) and an
    // initialize whose transport.type is not "mcp-flow" (WT-INIT-2) before they reach here.
    return this.#onRequest(m['id'] as RequestId, method, params, sink);
  }

  // ---- requests -----------------------------------------------------------------------------------

  async #onRequest(id: RequestId, method: string, rawParams: unknown, sink: Sink): Promise<void> {
    let params = rawParams;
    if (Array.isArray(params)) {
      // Positional params: MCP names its parameters (CORE-RPC-2); the lenient reading serves the request as if they were absent.
      if (this.#readings.positionalParams === 'refuse') return this.#outbox.error(sink, id, this.#invalidParams('params must be an object (MCP uses named parameters)'));
      this.#outbox.note(`${method}: positional params ignored`);
      params = undefined;
    }
    if (method === CORE_METHOD.initialize) {
      const answer = initialize(params, this.#initialize);
      return 'result' in answer ? this.#outbox.result(sink, id, answer.result) : this.#outbox.error(sink, id, answer.error);
    }
    if (!this.#state.initialized) {
      const refusal = this.#beforeInitialize(method);
      if (refusal === 'unanswered') return;
      if (refusal === 'close') {
        this.#outbox.note(`${method} before initialize: closing the connection`);
        await this.#connection.close(`${method} before initialize`).catch(() => undefined);
        return;
      }
      if (refusal !== undefined) return this.#outbox.error(sink, id, refusal);
    }
    const handler = this.#handlerFor(method);
    if (handler === undefined) {
      // A request the client may not send (its direction is server-to-client) is not served (FLOW-CAP-8).
      if (this.#faults.has(F.serverToClientRequestServed) && findMethod(method)?.direction === 'server-to-client') return this.#outbox.result(sink, id, {});
      return this.#outbox.error(sink, id, this.#methodNotFound(method));
    }
    const version = this.#state.protocolVersion;
    const definition = findMethod(method);
    if (definition?.system === 'core' && isProtocolVersion(version) && !isDefinedIn(method, version)) {
      return this.#outbox.error(sink, id, this.#methodNotFound(method, `${method} is not defined in protocol version ${version}`));
    }
    const gate = definition ? capabilityGate(method, version) : undefined;
    if (gate?.declaredBy === 'server' && !declares(this.#state.capabilities, gate.path)) {
      const subscribe = gate.path === 'resources.subscribe' && this.#faults.has(F.subscribeWithoutCapability);
      if (!subscribe && !this.#faults.has(F.undeclaredCapabilityServed)) {
        return this.#outbox.error(sink, id, this.#undeclared(method, gate.path));
      }
    }
    return this.#run(id, method, params, sink, handler);
  }

  /**
   * What a request before initialize gets: undefined (served: ping outside WebTransport, as MCP
   * allows), an error, the connection closed, or nothing at all (a fault). Over WebTransport 001's
   * state machine refuses everything with -32600 (WT-CONN-4); elsewhere the readings decide
   * (CORE-LIFE-5, CORE-LIFE-13).
   */
  #beforeInitialize(method: string): JsonRpcErrorObject | 'close' | 'unanswered' | undefined {
    const wt = this.#connection.kind === 'webtransport';
    const why = `${method} before initialize (the session is not initialized)`;
    if (wt) {
      return this.#faults.has(F.acceptRequestBeforeInitialize) ? undefined : errorObject(JSONRPC_ERROR.InvalidRequest, `Invalid Request: ${why}`);
    }
    const refused = (): JsonRpcErrorObject => {
      const code = this.#readings.beforeInitializeCode;
      const name = code === JSONRPC_ERROR.InvalidRequest ? 'Invalid Request' : code === JSONRPC_ERROR.MethodNotFound ? 'Method not found' : 'Error';
      return errorObject(code, `${name}: ${method} is not available ${why.slice(method.length + 1)}`);
    };
    if (method === CORE_METHOD.ping) {
      if (this.#faults.has(F.pingBeforeInitializeUnanswered)) return 'unanswered';
      return this.#readings.pingBeforeInitialize === 'answer' ? undefined : refused();
    }
    if (this.#faults.has(F.acceptRequestBeforeInitialize)) return undefined;
    return this.#readings.beforeInitialize === 'close' ? 'close' : refused();
  }

  #handlerFor(method: string): RequestHandler | undefined {
    const builtins = this.#builtins;
    switch (method) {
      case CORE_METHOD.ping:
        return (params) => builtins.ping(params);
      case CORE_METHOD.loggingSetLevel:
        return this.#options.logging || this.#faults.has(F.undeclaredCapabilityServed) ? (params) => builtins.setLevel(params) : undefined;
      case CORE_METHOD.toolsList:
        return this.#tools.size > 0 ? (params) => builtins.listTools(params) : undefined;
      case CORE_METHOD.toolsCall:
        return this.#tools.size > 0 ? (params, ctx) => builtins.callTool(params, ctx) : undefined;
      default:
        return this.#requests.get(method);
    }
  }

  async #run(id: RequestId, method: string, params: unknown, sink: Sink, handler: RequestHandler): Promise<void> {
    const entry = this.#inFlight.open(id, method, params, sink);
    const controller = entry.controller;
    const onSessionEnd = () => controller.abort(new ConnectionClosedError('the session ended'));
    this.#abort.signal.addEventListener('abort', onSessionEnd, { once: true });
    let outcome: Outcome;
    try {
      const result = await handler(params ?? {}, this.#requestContext(entry));
      // A result is always an object (CORE-RPC-14); only the fault lets a handler's array through.
      outcome = { result: isRecord(result) || (Array.isArray(result) && this.#faults.has(F.completionResultNotObject)) ? this.#withExtensionMembers(method, result) : {} };
    } catch (error) {
      outcome = { error: this.#errorFor(error, entry) };
    } finally {
      this.#abort.signal.removeEventListener('abort', onSessionEnd);
    }
    this.#inFlight.close(entry);
    await this.#inFlight.answer(entry, outcome);
  }

  /**
   * The result of a core method with the mock's own `_meta` member, when the readings add extension
   * members (rule 4: a member the client does not know is a note, never a failure). The reserved
   * `_meta` is the one member every MCP result may carry, so even ping's empty result takes it.
   */
  #withExtensionMembers(method: string, result: unknown): unknown {
    if (!this.#readings.extensionMembers || !isRecord(result) || '_meta' in result || findMethod(method)?.system !== 'core') return result;
    return { ...result, _meta: { ...MOCK_META } };
  }

  #errorFor(error: unknown, entry: InFlight): JsonRpcErrorObject {
    if (error instanceof RpcError) {
      if (error.code === JSONRPC_ERROR.InvalidParams && this.#faults.has(F.wrongErrorCodeInvalidParams)) {
        return errorObject(JSONRPC_ERROR.InternalError, error.message, error.data);
      }
      return errorObject(error.code, error.message, error.data);
    }
    if (entry.controller.signal.aborted) return errorObject(BINDING_ERROR.Cancelled, 'Cancelled');
    const code = this.#faults.has(F.internalErrorCodeWrong) ? -32000 : JSONRPC_ERROR.InternalError;
    return errorObject(code, `Internal error: ${describe(error)}`);
  }

  #methodNotFound(method: string, why?: string): JsonRpcErrorObject {
    const code = this.#faults.has(F.wrongErrorCodeMethodNotFound) ? JSONRPC_ERROR.InternalError : JSONRPC_ERROR.MethodNotFound;
    return errorObject(code, `Method not found: ${why ?? method}`, { method });
  }

  /** A request of a server feature this server did not declare (CORE-CAP-3): -32601, or the reading's other code. */
  #undeclared(method: string, capability: string): JsonRpcErrorObject {
    const why = `${method} needs the ${capability} capability, which this server did not declare`;
    if (this.#readings.undeclaredFeatureCode === JSONRPC_ERROR.MethodNotFound) return this.#methodNotFound(method, why);
    const code = this.#readings.undeclaredFeatureCode;
    return errorObject(code, `${code === JSONRPC_ERROR.InvalidRequest ? 'Invalid Request' : 'Error'}: ${why}`, { method });
  }

  #invalidParams(message: string, data?: unknown): JsonRpcErrorObject {
    const code = this.#faults.has(F.wrongErrorCodeInvalidParams) ? JSONRPC_ERROR.InternalError : JSONRPC_ERROR.InvalidParams;
    return errorObject(code, `Invalid params: ${message}`, data);
  }

  // ---- notifications ------------------------------------------------------------------------------

  async #onNotification(method: string, params: unknown): Promise<void> {
    const p = isRecord(params) ? params : {};
    switch (method) {
      case CORE_METHOD.initialized:
        if (this.#state.initialized) {
          this.#state.markInitializedNotified();
          // list_changed only for a feature declared with listChanged: true (CORE-CAP-5).
          if (this.#faults.has(F.listChangedUndeclared) && !declares(this.#state.capabilities, 'tools.listChanged')) {
            await this.#outbox.notify(CORE_METHOD.toolsListChanged, {}).catch((error: unknown) => this.#outbox.note(`list_changed not sent: ${describe(error)}`));
          }
        }
        return;
      case CORE_METHOD.cancelled:
        return this.#inFlight.onCancelled(p['requestId'], p['reason']);
      case BINDING_METHOD.cancel:
        return this.#inFlight.onDollarCancel(p['requestId'], p['reason']);
    }
    const handlers = this.#notifications.get(method);
    if (handlers) {
      for (const handler of handlers) await handler(params ?? {}, this.context);
      return;
    }
    if (this.#faults.has(F.answerNotification)) {
      await this.#outbox.error(this.#outbox.direct, null, errorObject(JSONRPC_ERROR.MethodNotFound, `Method not found: ${method}`));
    }
  }

  // ---- contexts ---------------------------------------------------------------------------------------

  #sessionContext(): ServerSessionContext {
    const state = this.#state;
    return {
      connectionId: this.#options.connectionId,
      transport: this.#connection.kind,
      get protocolVersion() {
        return state.protocolVersion;
      },
      get clientCapabilities() {
        return state.clientCapabilities;
      },
      get clientInfo() {
        return state.clientInfo;
      },
      faults: this.#faults,
      signal: this.#abort.signal,
      sendRequest: (method, params, options) => this.#clientRequests.send(method, params, options),
      sendNotification: (method, params) => this.#outbox.notify(method, params),
      log: (level, data, logger) => void this.#builtins.log(level, data, logger),
    };
  }

  #requestContext(entry: InFlight): RequestContext {
    const session = this.context;
    const context: RequestContext = {
      get connectionId() {
        return session.connectionId;
      },
      get transport() {
        return session.transport;
      },
      get protocolVersion() {
        return session.protocolVersion;
      },
      get clientCapabilities() {
        return session.clientCapabilities;
      },
      get clientInfo() {
        return session.clientInfo;
      },
      faults: this.#faults,
      signal: this.#abort.signal,
      requestId: entry.id,
      method: entry.method,
      cancelled: entry.controller.signal,
      ...(entry.progressToken !== undefined ? { progressToken: entry.progressToken } : {}),
      sendRequest: (method, params, options) => this.#clientRequests.send(method, params, options, entry.id),
      sendNotification: (method, params) => this.#outbox.notify(method, params, entry.id),
      log: (level, data, logger) => void this.#builtins.log(level, data, logger, entry.id),
      reportProgress: (progress, total, message) => this.#inFlight.reportProgress(entry, progress, total, message),
    };
    if (this.#connection.webtransport) Object.defineProperty(context, 'webtransport', { value: this.#connection.webtransport, enumerable: false });
    return context;
  }

  #end(): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(new ConnectionClosedError('the session ended'));
    for (const extension of this.#options.extensions) {
      try {
        extension.onSessionEnd?.(this.context);
      } catch (error) {
        this.#outbox.note(`${extension.name}.onSessionEnd failed: ${describe(error)}`);
      }
    }
  }
}
