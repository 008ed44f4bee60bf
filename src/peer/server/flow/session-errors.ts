// The JSON-RPC errors the MCP Flow engine answers with: MCP Flow's own codes with data.sessionId
// (FLOW-ERR-2), session not found or expired (FLOW-ERR-4), invalid params, limits (FLOW-RATE-5),
// and the state machine's refusals (FLOW-SM-4, FLOW-RESPOND-5/-6, FLOW-CANCEL-2). The faults that
// change one of these answers are honoured here, where the answer is built.
import { nextState, type SessionTrigger } from '../../../protocol/flow-session.js';
import { FLOW_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { InvalidStateTransitionError } from '../../../protocol/errors.js';
import { FLOW_METHOD } from '../../../protocol/methods.js';
import { RpcError, type ActiveFaults, type RequestContext } from '../extension.js';
import type { ResolvedFlowOptions } from './options.js';
import type { SessionRecord } from './session.js';

/** Code of the errors answering a request over a rate or count limit (FLOW-RATE-5): a JSON-RPC server error. */
export const LIMIT_EXCEEDED = -32000;

type Params = Record<string, unknown>;

export function invalidParams(message: string, data?: unknown): RpcError {
  return new RpcError(JSONRPC_ERROR.InvalidParams, message, data);
}

/** An MCP Flow error: `data.sessionId` names the session (unless the missing-error-session-id fault leaves it out). */
export function flowError(faults: ActiveFaults, code: number, message: string, sessionId: string | undefined, extra: Params = {}): RpcError {
  const data = faults.has('missing-error-session-id') || sessionId === undefined ? extra : { sessionId, ...extra };
  // FAULT error-message-without-session (FLOW-ERR-3): the message no longer names the session.
  const text = faults.has('error-message-without-session') && sessionId !== undefined ? message.split(sessionId).join('the session') : message;
  return new RpcError(code, text, Object.keys(data).length === 0 ? undefined : data);
}

/** -32001 for a session the server does not know (or the faults' other codes). */
export function sessionNotFound(faults: ActiveFaults, sessionId: string, method?: string): RpcError {
  if (
    (method === FLOW_METHOD.getState && faults.has('getstate-unknown-session-invalid-params')) ||
    (method === FLOW_METHOD.cancel && faults.has('cancel-unknown-session-invalid-params'))
  ) {
    return invalidParams(`Invalid sessionId: ${sessionId}`, { sessionId });
  }
  const code = faults.has('wrong-error-code-session-not-found') ? FLOW_ERROR.INVALID_STATE_TRANSITION : FLOW_ERROR.SESSION_NOT_FOUND;
  return flowError(faults, code, `Session not found: ${sessionId}`, sessionId);
}

/** -32002 for a session that expired (FLOW-TIMEOUT-1). */
export function sessionExpired(faults: ActiveFaults, sessionId: string): RpcError {
  return flowError(faults, FLOW_ERROR.SESSION_EXPIRED, `Session expired: ${sessionId}`, sessionId);
}

/** Answers a request over a limit: a JSON-RPC error (or, under rate-limit-silence, no answer until cancelled). */
export function limitExceeded(ctx: RequestContext, message: string, sessionId: string | undefined, limit: string, max: number): Promise<never> {
  if (ctx.faults.has('rate-limit-silence')) {
    return new Promise<never>((_, reject) => {
      const stop = (): void => reject(new RpcError(LIMIT_EXCEEDED, 'request abandoned'));
      if (ctx.cancelled.aborted) stop();
      else ctx.cancelled.addEventListener('abort', stop, { once: true });
    });
  }
  return Promise.reject(flowError(ctx.faults, LIMIT_EXCEEDED, message, sessionId, { limit, max }));
}

/** A state change by 000's table (via src/protocol/flow-session.ts); throws the matching RpcError. */
export function transition(options: ResolvedFlowOptions, record: SessionRecord, trigger: SessionTrigger, faults: ActiveFaults, sessionId: string): void {
  try {
    // C-23: the 'cancel' reading of cancelFinished takes 000's "Any -> CANCELLED" literally.
    record.state = nextState(record.state, trigger, false, { literalAny: options.cancelFinished === 'cancel' });
  } catch (error) {
    if (error instanceof InvalidStateTransitionError) {
      // FLOW-RESPOND-6: -32006 (recommended) or -32003 for a respond on a cancelled session.
      const invalidState = trigger === 'respond' && record.state === 'cancelled' && options.respondWhenCancelled === 'invalid-state';
      const jsonRpcCode = invalidState ? FLOW_ERROR.INVALID_STATE_TRANSITION : error.jsonRpcCode;
      const message =
        jsonRpcCode === FLOW_ERROR.ALREADY_CANCELLED
          ? `Session already cancelled: ${sessionId}`
          : `Invalid state transition: cannot ${trigger} session ${sessionId} in state ${record.state}`;
      // FAULT invalid-transition-as-invalid-params.
      const code = jsonRpcCode === FLOW_ERROR.INVALID_STATE_TRANSITION && faults.has('invalid-transition-as-invalid-params') ? JSONRPC_ERROR.InvalidParams : jsonRpcCode;
      // FAULT completed-session-reopened: refused, yet the terminal session is waiting again.
      const state = record.state;
      if (trigger === 'respond' && state === 'completed' && faults.has('completed-session-reopened')) record.state = 'waiting_user';
      throw flowError(faults, code, message, sessionId, { state });
    }
    throw error;
  }
}
