// The mock server's requests to the client (sampling/createMessage, elicitation/create, roots/list,
// interaction.prompt...): integer ids of their own, sent only once the client may receive them
// (CORE-LIFE-7) and only for features the client declared (CORE-CAP-2, CORE-LIFE-11), answered
// through `onResponse`, cancelled with notifications/cancelled naming them (CORE-CANCEL-1).
import { BINDING_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { CORE_METHOD, capabilityGate, declares, findMethod, isDefinedIn, isProtocolVersion } from '../../../protocol/methods.js';
import { ConnectionClosedError } from '../../../transport/errors.js';
import { RpcError, type ActiveFaults, type SendRequestOptions } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { ClientFeatureUnavailableError, ServerRequestTimeoutError } from './errors.js';
import { SERVER_REQUEST_REWRITES } from './fault-hooks.js';
import { isRecord, type RequestId } from './jsonrpc.js';
import { describe, type Outbox } from './outbox.js';
import type { SessionState } from './state.js';

interface PendingServerRequest {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

export class ClientRequests {
  readonly #outbox: Outbox;
  readonly #faults: ActiveFaults;
  readonly #state: SessionState;
  readonly #ended: AbortSignal;
  readonly #timeoutMs: number;
  readonly #closed: () => boolean;
  readonly #pending = new Map<number, PendingServerRequest>();
  #nextId = 0;

  constructor(options: { outbox: Outbox; faults: ActiveFaults; state: SessionState; ended: AbortSignal; timeoutMs: number; closed: () => boolean }) {
    this.#outbox = options.outbox;
    this.#faults = options.faults;
    this.#state = options.state;
    this.#ended = options.ended;
    this.#timeoutMs = options.timeoutMs;
    this.#closed = options.closed;
  }

  /** A response from the client: settles the request it answers (unknown ids are noted and ignored). */
  onResponse(message: Record<string, unknown>): void {
    const id = message['id'];
    const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (!pending) {
      this.#outbox.note(`response with id ${JSON.stringify(id)} answers no request this server sent; ignored`);
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
    const version = this.#state.protocolVersion;
    const definition = findMethod(method);
    if (definition?.system !== 'core' || !isProtocolVersion(version)) return undefined;
    if (!isDefinedIn(method, version) && !this.#faults.has(F.methodOutsideVersion)) {
      return `protocol version ${version} does not define it`;
    }
    const gate = capabilityGate(method, version);
    if (gate?.declaredBy === 'client' && !declares(this.#state.clientCapabilities, gate.path) && !this.#faults.has(F.clientCapabilityIgnored)) {
      return `the client did not declare the ${gate.path} capability`;
    }
    return undefined;
  }

  /** Resolves once requests may go to the client: after notifications/initialized, except ping (CORE-LIFE-7). */
  #readyFor(method: string): Promise<void> {
    if (this.#state.initializedNotified || method === CORE_METHOD.ping || this.#faults.has(F.serverRequestBeforeInitialized)) return Promise.resolve();
    return this.#state.initializedNotice;
  }

  /** A fresh integer id for a request to the client (CORE-RPC-3, -4). */
  #serverRequestId(): number {
    if (this.#faults.has(F.serverRequestIdReused)) return 0;
    const id = this.#nextId++;
    return this.#faults.has(F.serverRequestFractionalId) ? id + 0.5 : id;
  }

  /** Sends `method` to the client; resolves with its result, rejects with RpcError for its error. */
  send(method: string, params: unknown, options: SendRequestOptions = {}, relatedTo?: RequestId): Promise<unknown> {
    if (this.#closed()) return Promise.reject(new ConnectionClosedError(`cannot send ${method}: the session ended`));
    const refusal = this.#refusal(method);
    if (refusal !== undefined) return Promise.reject(new ClientFeatureUnavailableError(method, refusal));
    const id = this.#serverRequestId();
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        const reason = options.signal?.reason;
        finish();
        // The cancelled request is this server's own (CORE-CANCEL-1); the session may have ended meanwhile.
        const requestId = this.#faults.has(F.cancelNamesForeignRequest) && relatedTo !== undefined ? relatedTo : id;
        void this.#outbox
          .send({ jsonrpc: '2.0', method: CORE_METHOD.cancelled, params: { requestId, reason: describe(reason ?? 'aborted') } })
          .catch((error: unknown) => this.#outbox.note(`notifications/cancelled for ${method} not sent: ${describe(error)}`));
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
        this.#ended.removeEventListener('abort', onEnd);
      };
      if (options.signal?.aborted) {
        cleanup();
        reject(options.signal.reason);
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#ended.addEventListener('abort', onEnd, { once: true });
      this.#pending.set(id, { method, resolve, reject, cleanup });
      const request: Record<string, unknown> = { jsonrpc: '2.0', id, method };
      if (params !== undefined) request['params'] = params;
      const message = this.#faults.rewrite(SERVER_REQUEST_REWRITES, request);
      void this.#readyFor(method)
        .then(() => {
          // Timed out, aborted or ended while waiting for notifications/initialized: nothing to send.
          if (!this.#pending.has(id)) return;
          return this.#outbox.send(message, relatedTo);
        })
        .catch((error: unknown) => {
          finish();
          reject(error instanceof Error ? error : new ConnectionClosedError(describe(error)));
        });
    });
  }
}
