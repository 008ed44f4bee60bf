// One runtime per MCP session (004 §4, keyed by the connection id, which is the Mcp-Session-Id on
// Streamable HTTP): the bound user, the active conversation, the workflow state and the turn lock.
import type { ConversationStore } from './conversation-store.js';
import { conflict, timedOut, type FailureContext } from './errors.js';
import type { TraceEvent } from './types.js';
import { TodoWorkflow } from './workflow.js';

export const DEFAULT_USER = 'default_user';
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** setTimeout's largest delay; longer timeouts are as good as none. */
const MAX_TIMER_MS = 2_147_483_647;

export class SessionRuntime {
  readonly userId: string;
  conversationId: string;
  readonly workflow = new TodoWorkflow();
  /** Every trace event of the session's turns, in order (the workflow's action log). */
  readonly actionLog: TraceEvent[] = [];
  /** The store this session reads and writes (a private one under conversations-not-persisted). */
  readonly store: ConversationStore;
  #turns = 0;
  /** Aborted when the session ends. */
  readonly #ended = new AbortController();

  constructor(userId: string, conversationId: string, store: ConversationStore) {
    this.userId = userId;
    this.conversationId = conversationId;
    this.store = store;
  }

  get turnInProgress(): boolean {
    return this.#turns > 0;
  }

  /** user_id and conversation_id for failure data (FW-ERR-3). */
  context(): FailureContext {
    return { user_id: this.userId, conversation_id: this.conversationId };
  }

  end(): void {
    this.#ended.abort();
  }

  /**
   * Runs `body` as this session's one turn (FW-SESSION-5): 409 while another turn runs (unless
   * `allowConcurrent`), 504 when it gives no output within `timeoutSeconds` (unless `noTimeout`,
   * FW-SESSION-7). The body's signal is aborted on timeout, on cancellation and when the session ends.
   */
  async turn<T>(
    options: { timeoutSeconds: number; cancelled: AbortSignal; allowConcurrent?: boolean; noTimeout?: boolean },
    body: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (this.turnInProgress && !options.allowConcurrent) {
      throw conflict('a turn is already in progress in this session', this.context());
    }
    this.#turns++;
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, options.cancelled, this.#ended.signal]);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const stopped = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        if (!options.noTimeout) {
          const ms = Math.min(options.timeoutSeconds * 1000, MAX_TIMER_MS);
          timer = setTimeout(() => {
            controller.abort(timedOut(`no CommandOutput within ${options.timeoutSeconds} s`, { ...this.context(), timeout_seconds: options.timeoutSeconds }));
          }, ms);
        }
      });
      stopped.catch(() => undefined);
      return await Promise.race([body(signal), stopped]);
    } catch (error) {
      throw signal.aborted ? signal.reason : error;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      if (!controller.signal.aborted) controller.abort();
      this.#turns--;
    }
  }
}
