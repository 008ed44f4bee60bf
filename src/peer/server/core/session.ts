// One MCP session of the mock server over one Connection: lifecycle (initialize, initialized),
// version negotiation, JSON-RPC validation, dispatch to the extensions, tools/list and tools/call
// across every extension's tools, ping, cancellation (notifications/cancelled and $/cancel),
// progress, logging, capability gating, batches and server-to-client requests. Every fault of
// CORE_FAULTS that concerns these paths is honoured here.
import type { Connection } from '../../../transport/connection.js';
import { ConnectionClosedError } from '../../../transport/errors.js';
import { BINDING_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import {
  CORE_METHOD,
  BINDING_METHOD,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  capabilityGate,
  declares,
  findMethod,
  isDefinedIn,
  isProtocolVersion,
  type ProtocolVersion,
} from '../../../protocol/methods.js';
import { codecFor } from '../../../wire/index.js';
import {
  LOG_LEVELS,
  RpcError,
  type ActiveFaults,
  type LogLevel,
  type RequestContext,
  type SendRequestOptions,
  type ServerExtension,
  type ServerSessionContext,
  type ServerTool,
  type ToolResult,
} from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { schemaErrors } from './arguments.js';
import { checkEnvelope, errorObject, idKey, isHeaderId, isRecord, type JsonRpcErrorObject, type RequestId } from './jsonrpc.js';
import { ClientFeatureUnavailableError, ServerRequestTimeoutError } from './errors.js';
import { MOCK_META, RECOMMENDED_CORE_READINGS, type CoreReadings } from './readings.js';

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

/** Where the answers to one message go: straight to the connection, or into a batch. */
interface Sink {
  send(message: unknown, relatedTo?: RequestId): Promise<void>;
}

interface InFlight {
  id: RequestId;
  method: string;
  sink: Sink;
  controller: AbortController;
  answered: boolean;
  cancelledBy?: 'notifications/cancelled' | '$/cancel';
  progressToken?: string | number;
  lastProgress?: number;
  progressCount: number;
}

interface PendingServerRequest {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

type RequestHandler = (params: unknown, ctx: RequestContext) => Promise<unknown>;

const SEVERITY = new Map(LOG_LEVELS.map((level, index) => [level, index]));

export class ServerSession {
  readonly #connection: Connection;
  readonly #options: SessionOptions;
  readonly #faults: ActiveFaults;
  readonly #readings: CoreReadings;
  readonly #abort = new AbortController();
  readonly #inFlight = new Map<string, InFlight>();
  readonly #pending = new Map<number, PendingServerRequest>();
  readonly #tools = new Map<string, ServerTool>();
  readonly #requests = new Map<string, RequestHandler>();
  readonly #notifications = new Map<string, Array<(params: unknown, ctx: ServerSessionContext) => void | Promise<void>>>();
  readonly #direct: Sink;
  readonly context: ServerSessionContext;

  #initialized = false;
  #initializedNotified = false;
  #protocolVersion: ProtocolVersion = LATEST_PROTOCOL_VERSION;
  #clientCapabilities: Record<string, unknown> = {};
  #clientInfo: { name: string; version: string } | undefined;
  #capabilities: Record<string, unknown> = {};
  #logLevel: LogLevel | undefined;
  #nextServerId = 0;
  #faultsSeen = 0;
  #markInitializedNotified!: () => void;
  readonly #initializedNotice = new Promise<void>((resolve) => (this.#markInitializedNotified = resolve));

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
    this.#direct = {
      send: (message, relatedTo) => this.#send(message, relatedTo),
    };
    this.context = this.#sessionContext();
    // What a request served before initialize (only with a fault) sees; initialize recomputes it.
    this.#capabilities = this.#computeCapabilities();
  }

  get initialized(): boolean {
    return this.#initialized;
  }

  /** Whether the client has sent notifications/initialized. */
  get initializedNotified(): boolean {
    return this.#initializedNotified;
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
        void this.#dispatch(received.message).catch((error: unknown) => this.#note(`dispatch failed: ${describe(error)}`));
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
      void this.#sendError(this.#direct, null, errorObject(code, `${name}: ${fault.message}`));
    }
    this.#faultsSeen = faults.length;
  }

  // ---- dispatch ---------------------------------------------------------------------------------

  async #dispatch(message: unknown): Promise<void> {
    if (Array.isArray(message)) return this.#dispatchBatch(message);
    return this.#handle(message, this.#direct);
  }

  /** JSON-RPC batches: served under 2025-03-26 (CORE-RPC-13), refused with -32600 otherwise (C-30). */
  async #dispatchBatch(items: unknown[]): Promise<void> {
    const version = this.#readings.batches === 'every-version' || this.#protocolVersion === '2025-03-26';
    const accepted = this.#initialized && version && !this.#faults.has(F.batchRejected) && items.length > 0;
    if (!accepted) {
      const why = items.length === 0 ? 'an empty batch' : `batches are not accepted under protocol version ${this.#initialized ? this.#protocolVersion : '(not initialized)'}`;
      await this.#sendError(this.#direct, null, errorObject(JSONRPC_ERROR.InvalidRequest, `Invalid Request: ${why}`));
      return;
    }
    const answers: unknown[] = [];
    const sink: Sink = { send: async (answer) => void answers.push(answer) };
    await Promise.all(items.map((item) => this.#handle(item, sink)));
    if (answers.length > 0) await this.#send(answers);
  }

  async #handle(message: unknown, sink: Sink): Promise<void> {
    const malformed = checkEnvelope(message, { lenientJsonrpc: this.#readings.lenientJsonrpc, nullIds: this.#readings.invalidRequestId === 'null' });
    if (malformed) {
      // A malformed response owes nothing (CORE-RPC-9): the alternate readings leave it unanswered.
      if (malformed.response && this.#readings.malformedResponse === 'ignore') {
        this.#note('a malformed response (both or neither of result and error) was ignored');
        return;
      }
      let error = malformed.error;
      if (this.#faults.has(F.invalidRequestParseError)) error = errorObject(JSONRPC_ERROR.ParseError, `Parse error: ${error.message}`);
      else if (this.#faults.has(F.invalidRequestWrongCode)) error = errorObject(JSONRPC_ERROR.InternalError, `Internal error: ${error.message}`);
      return this.#sendError(sink, malformed.id, error);
    }
    const m = message as Record<string, unknown>;
    if (!('method' in m)) return this.#onResponse(m);
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
      if (this.#readings.positionalParams === 'refuse') return this.#sendError(sink, id, this.#invalidParams('params must be an object (MCP uses named parameters)'));
      this.#note(`${method}: positional params ignored`);
      params = undefined;
    }
    if (method === CORE_METHOD.initialize) return this.#onInitialize(id, params, sink);
    if (!this.#initialized) {
      const refusal = this.#beforeInitialize(method);
      if (refusal === 'unanswered') return;
      if (refusal === 'close') {
        this.#note(`${method} before initialize: closing the connection`);
        await this.#connection.close(`${method} before initialize`).catch(() => undefined);
        return;
      }
      if (refusal !== undefined) return this.#sendError(sink, id, refusal);
    }
    const handler = this.#handlerFor(method);
    if (handler === undefined) {
      // A request the client may not send (its direction is server-to-client) is not served (FLOW-CAP-8).
      if (this.#faults.has(F.serverToClientRequestServed) && findMethod(method)?.direction === 'server-to-client') return this.#sendResult(sink, id, {});
      return this.#sendError(sink, id, this.#methodNotFound(method));
    }
    const definition = findMethod(method);
    if (definition?.system === 'core' && isProtocolVersion(this.#protocolVersion) && !isDefinedIn(method, this.#protocolVersion)) {
      return this.#sendError(sink, id, this.#methodNotFound(method, `${method} is not defined in protocol version ${this.#protocolVersion}`));
    }
    const gate = definition ? capabilityGate(method, this.#protocolVersion) : undefined;
    if (gate?.declaredBy === 'server' && !declares(this.#capabilities, gate.path)) {
      const subscribe = gate.path === 'resources.subscribe' && this.#faults.has(F.subscribeWithoutCapability);
      if (!subscribe && !this.#faults.has(F.undeclaredCapabilityServed)) {
        return this.#sendError(sink, id, this.#undeclared(method, gate.path));
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
    switch (method) {
      case CORE_METHOD.ping:
        return async () => (this.#faults.has(F.pingNonEmptyResult) ? { pong: true } : {});
      case CORE_METHOD.loggingSetLevel:
        return this.#options.logging || this.#faults.has(F.undeclaredCapabilityServed) ? (params) => this.#setLevel(params) : undefined;
      case CORE_METHOD.toolsList:
        return this.#tools.size > 0 ? (params) => this.#listTools(params) : undefined;
      case CORE_METHOD.toolsCall:
        return this.#tools.size > 0 ? (params, ctx) => this.#callTool(params, ctx) : undefined;
      default:
        return this.#requests.get(method);
    }
  }

  async #run(id: RequestId, method: string, params: unknown, sink: Sink, handler: RequestHandler): Promise<void> {
    const key = idKey(id);
    const controller = new AbortController();
    const onSessionEnd = () => controller.abort(new ConnectionClosedError('the session ended'));
    this.#abort.signal.addEventListener('abort', onSessionEnd, { once: true });
    const meta = isRecord(params) && isRecord(params['_meta']) ? params['_meta'] : undefined;
    const token = meta?.['progressToken'];
    const entry: InFlight = { id, method, sink, controller, answered: false, progressCount: 0 };
    if (typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token))) entry.progressToken = token;
    this.#inFlight.set(key, entry);
    let outcome: { result: unknown } | { error: JsonRpcErrorObject };
    try {
      const result = await handler(params ?? {}, this.#requestContext(entry));
      // A result is always an object (CORE-RPC-14); only the fault lets a handler's array through.
      outcome = { result: isRecord(result) || (Array.isArray(result) && this.#faults.has(F.completionResultNotObject)) ? this.#withExtensionMembers(method, result) : {} };
    } catch (error) {
      outcome = { error: this.#errorFor(error, entry) };
    } finally {
      this.#abort.signal.removeEventListener('abort', onSessionEnd);
    }
    this.#inFlight.delete(key);
    await this.#answer(entry, outcome);
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

  /** Sends the one answer a request gets, unless cancellation took it away (CORE-CANCEL-2, WT-CANCEL-2). */
  async #answer(entry: InFlight, outcome: { result: unknown } | { error: JsonRpcErrorObject }): Promise<void> {
    if (entry.answered || this.#connection.isClosed) return;
    if (entry.cancelledBy === 'notifications/cancelled') {
      if (this.#faults.has(F.respondAfterCancelled)) {
        outcome = { error: errorObject(BINDING_ERROR.RequestCancelled, 'Request cancelled') };
      } else if (!this.#faults.has(F.ignoreCancel)) {
        return;
      }
    }
    entry.answered = true;
    if ('result' in outcome) await this.#sendResult(entry.sink, entry.id, outcome.result);
    else await this.#sendError(entry.sink, entry.id, outcome.error);
    if (this.#faults.has(F.progressAfterResponse) && entry.progressToken !== undefined && entry.progressCount > 0) {
      await this.#sendProgressNotification(entry, (entry.lastProgress ?? 0) + 1);
    }
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

  // ---- initialize --------------------------------------------------------------------------------

  async #onInitialize(id: RequestId, params: unknown, sink: Sink): Promise<void> {
    // A second initialize (CORE-LIFE-8): refused, or answered with the session as negotiated; the fault renegotiates (a reset).
    const reset = this.#initialized && this.#faults.has(F.secondInitializeAccepted);
    if (this.#initialized && !reset && this.#readings.secondInitialize === 'refuse') {
      return this.#sendError(sink, id, errorObject(JSONRPC_ERROR.InvalidRequest, 'Invalid Request: the session is already initialized'));
    }
    const problem = initializeProblem(params);
    if (problem) return this.#sendError(sink, id, this.#invalidParams(problem));
    const p = params as Record<string, unknown>;
    const wt = this.#connection.kind === 'webtransport';
    const requested = p['protocolVersion'] as string;
    const supported = this.#options.protocolVersions;
    const latest = supported[supported.length - 1] ?? LATEST_PROTOCOL_VERSION;
    const isSupported = (supported as readonly string[]).includes(requested);
    // An unsupported version (CORE-VER-3): another supported one is offered, or (the other reading) refused as MCP's lifecycle example does.
    if (!isSupported && !this.#initialized && this.#readings.unsupportedVersion === 'refuse' && !this.#faults.has(F.unsupportedVersionEchoed)) {
      return this.#sendError(sink, id, errorObject(JSONRPC_ERROR.InvalidParams, 'Unsupported protocol version', { supported: [...supported], requested }));
    }
    const version: ProtocolVersion = isSupported && !this.#faults.has(F.wrongProtocolVersion) ? (requested as ProtocolVersion) : latest;
    const fresh = !this.#initialized || reset;
    if (fresh) {
      this.#protocolVersion = version;
      this.#clientCapabilities = isRecord(p['capabilities']) ? p['capabilities'] : {};
      const info = p['clientInfo'] as Record<string, unknown>;
      this.#clientInfo = { name: info['name'] as string, version: info['version'] as string };
      this.#capabilities = this.#computeCapabilities();
    }
    const capabilities = this.#faults.has(F.capabilityAsBoolean)
      ? Object.fromEntries(Object.entries(this.#capabilities).map(([name, value]) => [name, isRecord(value) && Object.keys(value).length === 0 ? true : value]))
      : this.#capabilities;
    const echoed = !isSupported && this.#faults.has(F.unsupportedVersionEchoed) ? requested : undefined;
    const result: Record<string, unknown> = { protocolVersion: echoed ?? (fresh ? version : this.#protocolVersion), capabilities };
    if (!this.#faults.has(F.initializeMissingServerInfo)) {
      result['serverInfo'] = { ...this.#options.serverInfo };
      // An extension member next to serverInfo's named ones (rule 4: a note, not a failure).
      if (this.#readings.extensionMembers) (result['serverInfo'] as Record<string, unknown>)['x-mcp-flow-conformance-readings'] = 'alternate';
    }
    if (this.#options.instructions !== undefined) result['instructions'] = this.#options.instructions;
    if (this.#readings.extensionMembers) result['_meta'] = { ...MOCK_META };
    // Members an extension adds on this connection: the WebTransport binding's `transport` (WT-INIT-3).
    if (!(wt && this.#faults.has(F.wtTransportMissing))) {
      for (const extension of this.#options.extensions) Object.assign(result, extension.initializeResult?.(this.#connection));
    }
    // Initialized before the answer goes out, so that the next message already sees it.
    this.#initialized = true;
    await this.#sendResult(sink, id, result);
  }

  #computeCapabilities(): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    if (this.#options.logging) capabilities['logging'] = {};
    if (this.#tools.size > 0) capabilities['tools'] = { listChanged: false };
    for (const extension of this.#options.extensions) {
      const declared = extension.capabilities?.(this.context);
      if (declared) mergeInto(capabilities, declared);
    }
    // A capability the documents do not define, shaped as its own extension likes (rule 4: noted, never failed).
    if (this.#readings.extensionMembers) capabilities['x-mcp-flow-conformance-readings'] = 'alternate';
    return capabilities;
  }

  // ---- notifications ------------------------------------------------------------------------------

  async #onNotification(method: string, params: unknown): Promise<void> {
    const p = isRecord(params) ? params : {};
    switch (method) {
      case CORE_METHOD.initialized:
        if (this.#initialized) {
          this.#initializedNotified = true;
          this.#markInitializedNotified();
          // list_changed only for a feature declared with listChanged: true (CORE-CAP-5).
          if (this.#faults.has(F.listChangedUndeclared) && !declares(this.#capabilities, 'tools.listChanged')) {
            await this.#notify(CORE_METHOD.toolsListChanged, {}).catch((error: unknown) => this.#note(`list_changed not sent: ${describe(error)}`));
          }
        }
        return;
      case CORE_METHOD.cancelled:
        return this.#onCancelled(p['requestId'], p['reason']);
      case BINDING_METHOD.cancel:
        return this.#onDollarCancel(p['requestId'], p['reason']);
    }
    const handlers = this.#notifications.get(method);
    if (handlers) {
      for (const handler of handlers) await handler(params ?? {}, this.context);
      return;
    }
    if (this.#faults.has(F.answerNotification)) {
      await this.#sendError(this.#direct, null, errorObject(JSONRPC_ERROR.MethodNotFound, `Method not found: ${method}`));
    }
  }

  #inFlightFor(requestId: unknown): InFlight | undefined {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
    const entry = this.#inFlight.get(idKey(requestId));
    return entry && !entry.answered && entry.method !== CORE_METHOD.initialize ? entry : undefined;
  }

  /** notifications/cancelled: stop the work, send no answer (CORE-CANCEL-2); unknown ids are ignored (CORE-CANCEL-4). */
  async #onCancelled(requestId: unknown, reason: unknown): Promise<void> {
    const entry = this.#inFlightFor(requestId);
    if (!entry) {
      if (this.#faults.has(F.answerCancelledNotification) && (typeof requestId === 'string' || typeof requestId === 'number')) {
        await this.#sendError(this.#direct, requestId, errorObject(JSONRPC_ERROR.InvalidParams, `no request ${JSON.stringify(requestId)} is in flight`));
      }
      return;
    }
    entry.cancelledBy = 'notifications/cancelled';
    if (!this.#faults.has(F.ignoreCancel)) entry.controller.abort(new RpcError(BINDING_ERROR.RequestCancelled, cancelText(reason)));
  }

  /** $/cancel: stop the work and answer the request with -32000 "Cancelled" at once (WT-CANCEL-1, -2). */
  async #onDollarCancel(requestId: unknown, reason: unknown): Promise<void> {
    const entry = this.#inFlightFor(requestId);
    if (!entry) {
      if (this.#faults.has(F.answerUnknownDollarCancel) && (typeof requestId === 'string' || typeof requestId === 'number')) {
        await this.#sendError(this.#direct, requestId, errorObject(BINDING_ERROR.Cancelled, `Cancelled: no request ${JSON.stringify(requestId)} is in flight`));
      }
      return;
    }
    if (this.#faults.has(F.dollarCancelAnsweredWithResult)) return;
    entry.cancelledBy = '$/cancel';
    entry.controller.abort(new RpcError(BINDING_ERROR.Cancelled, cancelText(reason)));
    entry.answered = true;
    await this.#sendError(entry.sink, entry.id, errorObject(BINDING_ERROR.Cancelled, 'Cancelled', reason === undefined ? undefined : { reason }));
  }

  // ---- responses to server-to-client requests -------------------------------------------------------

  async #onResponse(message: Record<string, unknown>): Promise<void> {
    const id = message['id'];
    const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (!pending) {
      this.#note(`response with id ${JSON.stringify(id)} answers no request this server sent; ignored`);
      return;
    }
    this.#pending.delete(id as number);
    pending.cleanup();
    if ('error' in message) {
      const error = isRecord(message['error']) ? message['error'] : {};
      const code = typeof error['code'] === 'number' ? error['code'] : JSONRPC_ERROR.InternalError;
      const text = typeof error['message'] === 'string' ? error['message'] : '(no message)';
      pending.reject(new RpcError(code, text, error['data']));
    } else {
      pending.resolve(message['result']);
    }
  }

  /** Why this session must not send `method` to the client, or undefined (CORE-CAP-2, CORE-LIFE-11). */
  #refusal(method: string): string | undefined {
    const definition = findMethod(method);
    if (definition?.system !== 'core' || !isProtocolVersion(this.#protocolVersion)) return undefined;
    if (!isDefinedIn(method, this.#protocolVersion) && !this.#faults.has(F.methodOutsideVersion)) {
      return `protocol version ${this.#protocolVersion} does not define it`;
    }
    const gate = capabilityGate(method, this.#protocolVersion);
    if (gate?.declaredBy === 'client' && !declares(this.#clientCapabilities, gate.path) && !this.#faults.has(F.clientCapabilityIgnored)) {
      return `the client did not declare the ${gate.path} capability`;
    }
    return undefined;
  }

  /** Resolves once requests may go to the client: after notifications/initialized, except ping (CORE-LIFE-7). */
  #readyFor(method: string): Promise<void> {
    if (this.#initializedNotified || method === CORE_METHOD.ping || this.#faults.has(F.serverRequestBeforeInitialized)) return Promise.resolve();
    return this.#initializedNotice;
  }

  /** A fresh integer id for a request to the client (CORE-RPC-3, -4). */
  #serverRequestId(): number {
    if (this.#faults.has(F.serverRequestIdReused)) return 0;
    const id = this.#nextServerId++;
    return this.#faults.has(F.serverRequestFractionalId) ? id + 0.5 : id;
  }

  #sendRequest(method: string, params: unknown, options: SendRequestOptions = {}, relatedTo?: RequestId): Promise<unknown> {
    if (this.#connection.isClosed) return Promise.reject(new ConnectionClosedError(`cannot send ${method}: the session ended`));
    const refusal = this.#refusal(method);
    if (refusal !== undefined) return Promise.reject(new ClientFeatureUnavailableError(method, refusal));
    const id = this.#serverRequestId();
    const timeoutMs = options.timeoutMs ?? this.#options.requestTimeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        const reason = options.signal?.reason;
        finish();
        // The cancelled request is this server's own (CORE-CANCEL-1); the session may have ended meanwhile.
        const requestId = this.#faults.has(F.cancelNamesForeignRequest) && relatedTo !== undefined ? relatedTo : id;
        void this.#send({ jsonrpc: '2.0', method: CORE_METHOD.cancelled, params: { requestId, reason: describe(reason ?? 'aborted') } }).catch(
          (error: unknown) => this.#note(`notifications/cancelled for ${method} not sent: ${describe(error)}`),
        );
        reject(reason instanceof Error ? reason : new RpcError(BINDING_ERROR.RequestCancelled, 'aborted'));
      };
      const onEnd = () => {
        finish();
        reject(new ConnectionClosedError(`the session ended before the client answered ${method}`));
      };
      const timer = setTimeout(() => {
        finish();
        reject(new ServerRequestTimeoutError(method, id, timeoutMs));
      }, timeoutMs);
      const finish = () => {
        this.#pending.delete(id);
        cleanup();
      };
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#abort.signal.removeEventListener('abort', onEnd);
      };
      if (options.signal?.aborted) {
        cleanup();
        reject(options.signal.reason);
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#abort.signal.addEventListener('abort', onEnd, { once: true });
      this.#pending.set(id, { method, resolve, reject, cleanup });
      const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
      if (params !== undefined) message['params'] = this.#faults.has(F.serverRequestPositionalParams) ? [params] : params;
      if (this.#faults.has(F.serverRequestNullProgressToken) && isRecord(params)) {
        message['params'] = { ...params, _meta: { ...(isRecord(params['_meta']) ? params['_meta'] : {}), progressToken: null } };
      }
      void this.#readyFor(method)
        .then(() => {
          // Timed out, aborted or ended while waiting for notifications/initialized: nothing to send.
          if (!this.#pending.has(id)) return;
          return this.#send(message, relatedTo);
        })
        .catch((error: unknown) => {
          finish();
          reject(error instanceof Error ? error : new ConnectionClosedError(describe(error)));
        });
    });
  }

  // ---- built-in requests ----------------------------------------------------------------------------

  async #setLevel(params: unknown): Promise<unknown> {
    const level = isRecord(params) ? params['level'] : undefined;
    if (typeof level !== 'string' || !SEVERITY.has(level as LogLevel)) {
      if (this.#faults.has(F.setLevelInvalidAccepted)) return {};
      throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: level must be one of ${LOG_LEVELS.join(', ')}`, { level });
    }
    if (level === 'notice' && this.#faults.has(F.setLevelNoticeRefused)) {
      throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: level notice is not supported');
    }
    this.#logLevel = level as LogLevel;
    return {};
  }

  async #listTools(params: unknown): Promise<unknown> {
    if (isRecord(params) && params['cursor'] !== undefined) {
      throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown cursor ${JSON.stringify(params['cursor'])} (tools/list has one page)`);
    }
    const modern = PROTOCOL_VERSIONS.indexOf(this.#protocolVersion) >= PROTOCOL_VERSIONS.indexOf('2025-06-18');
    const tools = [...this.#tools.values()].map((tool) => {
      const inputSchema = this.#faults.has(F.toolInputSchemaWithoutType) ? withoutKey(tool.inputSchema, 'type') : tool.inputSchema;
      const listed: Record<string, unknown> = { name: tool.name, description: tool.description, inputSchema };
      if (modern && tool.title !== undefined) listed['title'] = tool.title;
      if (modern && tool.outputSchema !== undefined) listed['outputSchema'] = tool.outputSchema;
      return listed;
    });
    return { tools };
  }

  async #callTool(params: unknown, ctx: RequestContext): Promise<unknown> {
    const p = isRecord(params) ? params : {};
    if (typeof p['name'] !== 'string') throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: tools/call needs a string name');
    if (p['arguments'] !== undefined && !isRecord(p['arguments'])) {
      throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: tools/call arguments must be an object');
    }
    const tool = this.#tools.get(p['name']);
    if (!tool) {
      if (this.#faults.has(F.unknownToolResult)) return { content: [{ type: 'text', text: `Unknown tool: ${p['name']}` }], isError: true };
      // An unknown tool is a protocol error (CORE-TOOLS-2): -32602 as MCP's example, or the readings' other code.
      const code = this.#readings.unknownToolCode;
      const name = code === JSONRPC_ERROR.InvalidParams ? 'Invalid params' : code === JSONRPC_ERROR.MethodNotFound ? 'Method not found' : 'Error';
      throw new RpcError(code, `${name}: unknown tool ${JSON.stringify(p['name'])}`, { name: p['name'] });
    }
    const given = (p['arguments'] as Record<string, unknown> | undefined) ?? {};
    const args = this.#readings.forbiddenArgumentMembers === 'ignore' ? withoutForbiddenMembers(tool.inputSchema, given, (key) => this.#note(`${tool.name}: unknown argument ${key} ignored`)) : given;
    const invalid = schemaErrors(tool.inputSchema, args);
    if (invalid !== undefined && !this.#faults.has(F.invalidArgumentsExecuted)) {
      if (tool.argumentsRejected) return this.#toolAnswer(tool.argumentsRejected(invalid, ctx));
      // CORE-TOOLS-4: -32602, or under 2025-11-25 (the readings' other choice) a tool execution error the model can correct.
      if (this.#readings.invalidArguments === 'tool-error-2025-11-25' && this.#protocolVersion === '2025-11-25') {
        return { content: [{ type: 'text', text: `Invalid arguments for ${tool.name}: ${invalid}` }], isError: true };
      }
      throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: arguments of ${tool.name} do not match its inputSchema: ${invalid}`, { tool: tool.name });
    }
    let result: ToolResult;
    try {
      result = await tool.call(args, ctx);
    } catch (error) {
      if (error instanceof RpcError || ctx.cancelled.aborted) throw error;
      // A failure inside the tool is a tool result, not a protocol error (CORE-TOOLS-5).
      if (this.#faults.has(F.toolFailureAsProtocolError)) throw new RpcError(JSONRPC_ERROR.InternalError, `Internal error: ${describe(error)}`);
      return { content: [{ type: 'text', text: `${tool.name} failed: ${describe(error)}` }], isError: true };
    }
    return this.#toolAnswer(result);
  }

  /** A tool's result as the tools/call answer of the negotiated version. */
  #toolAnswer(result: ToolResult): Record<string, unknown> {
    const content = this.#faults.has(F.toolContentWithoutType) ? result.content.map((item) => (isRecord(item) ? withoutKey(item, 'type') : item)) : result.content;
    const answer: Record<string, unknown> = { content };
    if (result.isError !== undefined) answer['isError'] = result.isError;
    if (result.structuredContent !== undefined && PROTOCOL_VERSIONS.indexOf(this.#protocolVersion) >= PROTOCOL_VERSIONS.indexOf('2025-06-18')) {
      answer['structuredContent'] = result.structuredContent;
    }
    return answer;
  }

  // ---- contexts ---------------------------------------------------------------------------------------

  #sessionContext(): ServerSessionContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    return {
      connectionId: this.#options.connectionId,
      transport: this.#connection.kind,
      get protocolVersion() {
        return self.#protocolVersion;
      },
      get clientCapabilities() {
        return self.#clientCapabilities;
      },
      get clientInfo() {
        return self.#clientInfo;
      },
      faults: this.#faults,
      signal: this.#abort.signal,
      sendRequest: (method, params, options) => this.#sendRequest(method, params, options),
      sendNotification: (method, params) => this.#notify(method, params),
      log: (level, data, logger) => void this.#log(level, data, logger),
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
      sendRequest: (method, params, options) => this.#sendRequest(method, params, options, entry.id),
      sendNotification: (method, params) => this.#notify(method, params, entry.id),
      log: (level, data, logger) => void this.#log(level, data, logger, entry.id),
      reportProgress: (progress, total, message) => this.#reportProgress(entry, progress, total, message),
    };
    if (this.#connection.webtransport) Object.defineProperty(context, 'webtransport', { value: this.#connection.webtransport, enumerable: false });
    return context;
  }

  async #notify(method: string, params: unknown, relatedTo?: RequestId): Promise<void> {
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message['params'] = params;
    await this.#send(message, relatedTo);
  }

  /** notifications/message, only with the logging capability and at or above the set level (CORE-LOG-3, -5). */
  async #log(level: LogLevel, data: unknown, logger?: string, relatedTo?: RequestId): Promise<void> {
    if (!this.#initialized || this.#connection.isClosed) return;
    if (!declares(this.#capabilities, 'logging') && !this.#faults.has(F.logWithoutCapability)) return;
    const threshold = this.#logLevel === undefined ? 0 : SEVERITY.get(this.#logLevel)!;
    if ((SEVERITY.get(level) ?? 0) < threshold && !this.#faults.has(F.loggingLevelIgnored)) return;
    const params: Record<string, unknown> = { level: this.#faults.has(F.logLevelUppercase) ? level.toUpperCase() : level, data };
    if (logger !== undefined) params['logger'] = logger;
    await this.#notify(CORE_METHOD.loggingMessage, params, relatedTo).catch((error: unknown) => this.#note(`log not sent: ${describe(error)}`));
  }

  /** notifications/progress for the request's token: increasing, never after the answer (CORE-PROG-2..4). */
  async #reportProgress(entry: InFlight, progress: number, total?: number, message?: string): Promise<void> {
    if (entry.progressToken === undefined || entry.answered || entry.controller.signal.aborted) return;
    if (entry.lastProgress !== undefined && progress <= entry.lastProgress) return;
    let sent = progress;
    if (this.#faults.has(F.progressNotIncreasing) && entry.progressCount % 2 === 1 && entry.lastProgress !== undefined) sent = entry.lastProgress;
    await this.#sendProgressNotification(entry, sent, total, message);
  }

  async #sendProgressNotification(entry: InFlight, progress: number, total?: number, message?: string): Promise<void> {
    const token = this.#faults.has(F.progressUnknownToken) ? `${String(entry.progressToken)}-not-yours` : entry.progressToken!;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params['total'] = total;
    if (message !== undefined && PROTOCOL_VERSIONS.indexOf(this.#protocolVersion) >= PROTOCOL_VERSIONS.indexOf('2025-03-26')) params['message'] = message;
    entry.lastProgress = progress;
    entry.progressCount++;
    const wt = this.#connection.webtransport;
    try {
      if (wt && this.#options.progressDatagrams && wt.serverCapabilities?.datagramsSupported === true && isHeaderId(entry.id)) {
        await wt.sendDatagram({ channel: 0x01, requestId: entry.id, payload: codecFor(wt.encoding).encode(params) });
        return;
      }
      await this.#notify(CORE_METHOD.progress, params, entry.id);
    } catch (error) {
      this.#note(`progress not sent: ${describe(error)}`);
    }
  }

  // ---- sending ----------------------------------------------------------------------------------------

  async #sendResult(sink: Sink, id: RequestId, result: unknown): Promise<void> {
    const jsonrpc = this.#faults.has(F.responseJsonrpcVersionWrong) ? '2' : '2.0';
    await this.#emit(sink, { jsonrpc, id: this.#echo(id), result });
  }

  async #sendError(sink: Sink, id: RequestId | null, error: JsonRpcErrorObject): Promise<void> {
    const body = this.#faults.has(F.errorWithoutMessage) ? withoutKey(error, 'message') : error;
    await this.#emit(sink, { jsonrpc: '2.0', id: id === null ? null : this.#echo(id), error: body });
  }

  async #emit(sink: Sink, response: Record<string, unknown>): Promise<void> {
    try {
      await sink.send(response);
      if (this.#faults.has(F.duplicateResponse) && response['id'] !== null) await sink.send(response);
    } catch (error) {
      this.#note(`answer not sent: ${describe(error)}`);
    }
  }

  #echo(id: RequestId): RequestId {
    if (typeof id === 'string' && this.#faults.has(F.stringIdEchoedAsNumber) && /^-?[0-9]+$/.test(id)) return Number(id);
    if (typeof id === 'number' && this.#faults.has(F.integerIdEchoedAsString)) return String(id);
    return id;
  }

  /** Sends on the connection; over HTTP, messages that belong to a request go on that request's stream. */
  async #send(message: unknown, relatedTo?: RequestId): Promise<void> {
    if (this.#connection.isClosed) throw new ConnectionClosedError('the session ended');
    const related = (this.#connection as { sendRelated?: (id: RequestId | undefined, m: unknown) => Promise<void> }).sendRelated;
    const isResponse = isRecord(message) && !('method' in message);
    if (relatedTo !== undefined && !isResponse && typeof related === 'function') {
      await related.call(this.#connection, relatedTo, message);
      return;
    }
    await this.#connection.send(message);
  }

  #note(text: string): void {
    this.#connection.transcript.event(`mock server: ${text}`);
  }

  #end(): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(new ConnectionClosedError('the session ended'));
    for (const extension of this.#options.extensions) {
      try {
        extension.onSessionEnd?.(this.context);
      } catch (error) {
        this.#note(`${extension.name}.onSessionEnd failed: ${describe(error)}`);
      }
    }
  }
}

/** Why initialize params are unusable (CORE-LIFE-2), or undefined. */
function initializeProblem(params: unknown): string | undefined {
  if (!isRecord(params)) return 'initialize needs params';
  if (typeof params['protocolVersion'] !== 'string') return 'initialize params need a string protocolVersion';
  if (!isRecord(params['capabilities'])) return 'initialize params need a capabilities object';
  const info = params['clientInfo'];
  if (!isRecord(info) || typeof info['name'] !== 'string' || typeof info['version'] !== 'string') {
    return 'initialize params need clientInfo with string name and version';
  }
  return undefined;
}

/** Deep merge of capability objects (later extensions add to earlier ones). */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isRecord(existing) && isRecord(value)) mergeInto(existing, value);
    else target[key] = isRecord(value) ? { ...value } : value;
  }
}

/**
 * The arguments without the members an inputSchema with `additionalProperties: false` does not
 * name (CORE-TOOLS-4's lenient reading: unknown members are ignored, as CORE-RPC-15 recommends).
 */
function withoutForbiddenMembers(schema: object, args: Record<string, unknown>, dropped: (key: string) => void): Record<string, unknown> {
  const s = schema as Record<string, unknown>;
  if (s['additionalProperties'] !== false || !isRecord(s['properties'])) return args;
  const known = s['properties'];
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (Object.hasOwn(known, key)) kept[key] = value;
    else dropped(key);
  }
  return kept;
}

/** A copy of an object without one member (for faults that leave a required member out). */
function withoutKey(value: object, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  delete copy[key];
  return copy;
}

function cancelText(reason: unknown): string {
  return typeof reason === 'string' && reason !== '' ? `Cancelled: ${reason}` : 'Cancelled';
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}
