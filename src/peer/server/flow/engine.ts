// The MCP Flow engine of the mock server: sessions (stateful, or stateless in signed tokens),
// the client-to-server requests (capabilities, interaction.start/.respond/.cancel/.getState), the
// server-to-client requests it sends (interaction.prompt/.continue/.complete), timeouts with a
// warning before expiry, limits, and every fault of faults.ts honoured where it applies.
import { randomBytes } from 'node:crypto';
import { nextState, isTerminal, type InteractionState, type SessionTrigger } from '../../../protocol/flow-session.js';
import { FLOW_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { InvalidStateTransitionError } from '../../../protocol/errors.js';
import { FLOW_METHOD } from '../../../protocol/methods.js';
import type { ValidationOutcome } from '../../../protocol/prompt-validation.js';
import { RpcError, type ActiveFaults, type RequestContext, type ServerSessionContext } from '../extension.js';
import { validateAnswer, type EnginePrompt } from './answers.js';
import { openExportStream, type ExportStream } from './export-stream.js';
import type { ResolvedFlowOptions, StatelessOptions } from './options.js';
import {
  acceptedAnswers,
  nextTarget,
  progressFor,
  renderExport,
  renderPrompt,
  renderResult,
  stepById,
  type ExportPayload,
  type HistoryTurn,
  type Progress,
  type SessionRecord,
} from './session.js';
import { decodeToken, encodeToken, TokenRejectedError } from './tokens.js';
import { COMPLETE_TARGET, storeKey, type Wizard, type WizardStep } from './wizard.js';

/** The MCP Flow version this engine implements (FLOW-CAP-3). */
export const FLOW_VERSION = '0.1.0';

/** Code of the errors answering a request over a rate or count limit (FLOW-RATE-5): a JSON-RPC server error. */
export const LIMIT_EXCEEDED = -32000;

/** Rate windows kept before idle ones are pruned (stateless sessions are never told to end). */
const MAX_RATE_WINDOWS = 10_000;

/** Logger name of the timeout warnings (notifications/message at level warning, profile C-22). */
export const TIMEOUT_WARNING_LOGGER = 'mcp-flow';

/** A session as the engine holds it while it works on it. */
export interface LiveSession {
  record: SessionRecord;
  wizard: Wizard;
  /** The creating connection's context: the server-to-client requests go through it. */
  ctx: ServerSessionContext;
  /** Bumped when the session is cancelled, finished or expired: pending work checks it and stops. */
  epoch: number;
  timers: (() => void)[];
  /** The client's answer to interaction.complete, once it came. */
  completion?: unknown;
  /** The exported file, rendered when the completing answer was accepted, and its execution stream if it has one (C-32). */
  export?: { file: ExportPayload; stream?: ExportStream };
}

type Params = Record<string, unknown>;

function isObject(value: unknown): value is Params {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function invalidParams(message: string, data?: unknown): RpcError {
  return new RpcError(JSONRPC_ERROR.InvalidParams, message, data);
}

export class FlowEngine {
  readonly options: ResolvedFlowOptions;
  readonly wizards: ReadonlyMap<string, Wizard>;
  readonly #sessions = new Map<string, LiveSession>();
  /** Expired session ids (and their connection) that still answer -32002 until retention ends. */
  readonly #expired = new Map<string, string>();
  /** Stateless mode: sessions that reached a terminal state, so that their older tokens are refused. */
  readonly #finished = new Map<string, InteractionState>();
  readonly #requestTimes = new Map<string, number[]>();
  readonly #pending = new Set<Promise<void>>();
  readonly #failures: unknown[] = [];
  #counter = 0;
  #lastFinishedId: string | undefined;
  #lastStarted: SessionRecord | undefined;
  #previousStarted: SessionRecord | undefined;

  constructor(options: ResolvedFlowOptions, wizards: ReadonlyMap<string, Wizard>) {
    this.options = options;
    this.wizards = wizards;
  }

  // ---- bookkeeping -------------------------------------------------------------------------

  /** Resolves once no engine work (prompts to send, completions) is pending. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Unexpected exceptions of background work (sending prompts, completing); empty unless the engine has a bug. */
  get failures(): readonly unknown[] {
    return this.#failures;
  }

  /** Live sessions held in memory (stateful mode). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** A live session by its id (tests and diagnostics). */
  session(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  #schedule(work: () => Promise<void>): void {
    const promise = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: unknown) => {
        // An RpcError here is a session that moved on meanwhile (cancelled, expired): nothing to do.
        if (!(error instanceof RpcError)) this.#failures.push(error);
      });
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
  }

  #now(): number {
    return this.options.clock.now();
  }

  #publicId(live: LiveSession): string {
    const stateless = this.options.stateless;
    if (stateless === undefined) return live.record.id;
    return encodeToken(stateless.secret, { sessionId: live.record.id, state: live.record }, stateless.form);
  }

  #error(faults: ActiveFaults, code: number, message: string, sessionId: string | undefined, extra: Params = {}): RpcError {
    const data = faults.has('missing-error-session-id') || sessionId === undefined ? extra : { sessionId, ...extra };
    return new RpcError(code, message, Object.keys(data).length === 0 ? undefined : data);
  }

  #notFound(faults: ActiveFaults, sessionId: string, method?: string): RpcError {
    if (
      (method === FLOW_METHOD.getState && faults.has('getstate-unknown-session-invalid-params')) ||
      (method === FLOW_METHOD.cancel && faults.has('cancel-unknown-session-invalid-params'))
    ) {
      return invalidParams(`Invalid sessionId: ${sessionId}`, { sessionId });
    }
    const code = faults.has('wrong-error-code-session-not-found') ? FLOW_ERROR.INVALID_STATE_TRANSITION : FLOW_ERROR.SESSION_NOT_FOUND;
    return this.#error(faults, code, `Session not found: ${sessionId}`, sessionId);
  }

  #expiredError(faults: ActiveFaults, sessionId: string): RpcError {
    return this.#error(faults, FLOW_ERROR.SESSION_EXPIRED, `Session expired: ${sessionId}`, sessionId);
  }

  /** A state change by 000's table (via src/protocol/flow-session.ts); throws the matching RpcError. */
  #transition(live: LiveSession, trigger: SessionTrigger, faults: ActiveFaults, sessionId: string): void {
    try {
      // C-23: the 'cancel' reading of cancelFinished takes 000's "Any -> CANCELLED" literally.
      live.record.state = nextState(live.record.state, trigger, false, { literalAny: this.options.cancelFinished === 'cancel' });
    } catch (error) {
      if (error instanceof InvalidStateTransitionError) {
        // FLOW-RESPOND-6: -32006 (recommended) or -32003 for a respond on a cancelled session.
        const invalidState = trigger === 'respond' && live.record.state === 'cancelled' && this.options.respondWhenCancelled === 'invalid-state';
        const jsonRpcCode = invalidState ? FLOW_ERROR.INVALID_STATE_TRANSITION : error.jsonRpcCode;
        const message =
          jsonRpcCode === FLOW_ERROR.ALREADY_CANCELLED
            ? `Session already cancelled: ${sessionId}`
            : `Invalid state transition: cannot ${trigger} session ${sessionId} in state ${live.record.state}`;
        // FAULT invalid-transition-as-invalid-params.
        const code = jsonRpcCode === FLOW_ERROR.INVALID_STATE_TRANSITION && faults.has('invalid-transition-as-invalid-params') ? JSONRPC_ERROR.InvalidParams : jsonRpcCode;
        // FAULT completed-session-reopened: refused, yet the terminal session is waiting again.
        const state = live.record.state;
        if (trigger === 'respond' && state === 'completed' && faults.has('completed-session-reopened')) live.record.state = 'waiting_user';
        throw this.#error(faults, code, message, sessionId, { state });
      }
      throw error;
    }
  }

  #reportState(state: InteractionState, faults: ActiveFaults): string {
    if (state === 'waiting_user' && faults.has('unknown-state-name')) return 'waiting';
    return state;
  }

  // ---- limits and timeouts -----------------------------------------------------------------

  /** Answers a request over a limit: a JSON-RPC error (or, under rate-limit-silence, no answer until cancelled). */
  #limitExceeded(ctx: RequestContext, message: string, sessionId: string | undefined, limit: string, max: number): Promise<never> {
    if (ctx.faults.has('rate-limit-silence')) {
      return new Promise<never>((_, reject) => {
        const stop = (): void => reject(new RpcError(LIMIT_EXCEEDED, 'request abandoned'));
        if (ctx.cancelled.aborted) stop();
        else ctx.cancelled.addEventListener('abort', stop, { once: true });
      });
    }
    return Promise.reject(this.#error(ctx.faults, LIMIT_EXCEEDED, message, sessionId, { limit, max }));
  }

  /** FLOW-RATE-1: counts a request naming the session; false when it is over the limit. */
  #withinRate(id: string): boolean {
    const { requestsPerWindow, windowMs } = this.options.limits;
    const now = this.#now();
    if (this.#requestTimes.size > MAX_RATE_WINDOWS) {
      for (const [key, list] of this.#requestTimes) if (list.every((t) => now - t >= windowMs)) this.#requestTimes.delete(key);
    }
    const times = (this.#requestTimes.get(id) ?? []).filter((t) => now - t < windowMs);
    if (times.length >= requestsPerWindow) {
      this.#requestTimes.set(id, times);
      return false;
    }
    times.push(now);
    this.#requestTimes.set(id, times);
    return true;
  }

  #isOverdue(record: SessionRecord, faults: ActiveFaults): boolean {
    if (faults.has('no-expiry') || isTerminal(record.state)) return false;
    const now = this.#now();
    return now - record.lastActivityAt >= record.timeoutMs || now - record.createdAt >= this.options.limits.maxDurationMs;
  }

  #clearTimers(live: LiveSession): void {
    for (const cancel of live.timers.splice(0)) cancel();
  }

  /** Records activity and (stateful mode) re-arms the warning and expiry timers. */
  #touch(live: LiveSession): void {
    const record = live.record;
    record.lastActivityAt = Math.max(record.lastActivityAt, this.#now());
    if (this.options.stateless !== undefined) return;
    this.#clearTimers(live);
    if (isTerminal(record.state)) return;
    const { clock, limits } = this.options;
    const idleLeft = record.timeoutMs - (this.#now() - record.lastActivityAt);
    const durationLeft = limits.maxDurationMs - (this.#now() - record.createdAt);
    const left = Math.max(0, Math.min(idleLeft, durationLeft));
    const lead = Math.min(this.options.timeoutWarningLeadMs ?? Math.floor(record.timeoutMs / 5), left);
    if (lead > 0 && left - lead > 0) {
      live.timers.push(clock.setTimer(left - lead, () => this.#warn(live, lead)));
    }
    // FAULT no-expiry: the warning still announces the expiry, which never comes.
    if (live.ctx.faults.has('no-expiry')) return;
    live.timers.push(clock.setTimer(left, () => this.#expire(live)));
  }

  /** FLOW-TIMEOUT-4 (C-22): notifications/message at level warning naming the session. */
  #warn(live: LiveSession, lead: number): void {
    if (isTerminal(live.record.state) || !this.#sessions.has(live.record.id)) return;
    const sessionId = this.#publicId(live);
    live.ctx.log(
      this.options.timeoutWarningLevel,
      {
        sessionId,
        expiresAt: live.record.lastActivityAt + live.record.timeoutMs,
        message: `Session ${sessionId} expires in ${lead} ms without activity`,
      },
      TIMEOUT_WARNING_LOGGER,
    );
  }

  #expire(live: LiveSession): void {
    const record = live.record;
    if (this.#sessions.get(record.id) !== live || isTerminal(record.state)) return;
    live.epoch++;
    this.#clearTimers(live);
    this.#sessions.delete(record.id);
    this.#requestTimes.delete(record.id);
    // Retention 0: cleaned up at once, so the session is unknown (-32001) rather than expired (-32002).
    if (this.options.retentionMs === 0) return;
    this.#expired.set(record.id, record.connectionId);
    this.options.clock.setTimer(this.options.retentionMs, () => this.#expired.delete(record.id));
  }

  /** A session reached completed, cancelled or error. */
  #finish(live: LiveSession): void {
    const record = live.record;
    live.epoch++;
    this.#clearTimers(live);
    this.#lastFinishedId = record.id;
    const forget = (): void => {
      if (this.#sessions.get(record.id) === live) this.#sessions.delete(record.id);
      this.#finished.delete(record.id);
      this.#requestTimes.delete(record.id);
    };
    let keep = this.options.retentionMs;
    if (this.options.stateless !== undefined) {
      this.#finished.set(record.id, record.state);
      // Every older token of the session has expired once its timeout has passed: until then it must stay refused.
      keep = Math.max(keep, Math.min(record.timeoutMs, this.options.limits.maxDurationMs));
    }
    // Sessions are cleaned up after completion (FLOW-SEC-7); until then getState shows the terminal state (FLOW-STATE-6).
    if (keep === 0) forget();
    else live.timers.push(this.options.clock.setTimer(keep, forget));
  }

  #fail(live: LiveSession): void {
    if (isTerminal(live.record.state)) return;
    live.record.state = 'error';
    live.record.currentPrompt = null;
    this.#finish(live);
  }

  // ---- session lookup ----------------------------------------------------------------------

  #sessionIdParam(params: unknown, method: string): { params: Params; sessionId: string } {
    if (!isObject(params)) throw invalidParams(`${method} needs params with a string sessionId`);
    const sessionId = params.sessionId;
    if (typeof sessionId !== 'string' || sessionId === '') throw invalidParams(`${method} needs a non-empty string sessionId`);
    return { params, sessionId };
  }

  /** The session a request names, or the RpcError for it (-32001, -32002, or a limit error). */
  async #resolve(sessionId: string, ctx: RequestContext): Promise<LiveSession> {
    const faults = ctx.faults;
    const live = this.options.stateless === undefined ? this.#resolveStateful(sessionId, ctx) : this.#resolveStateless(sessionId, ctx);
    if (this.#isOverdue(live.record, faults)) {
      this.#expire(live);
      throw this.#expiredError(faults, sessionId);
    }
    if (!this.#withinRate(live.record.id)) {
      return this.#limitExceeded(ctx, `Rate limit exceeded for session ${sessionId}`, sessionId, 'requestsPerWindow', this.options.limits.requestsPerWindow);
    }
    return live;
  }

  #resolveStateful(sessionId: string, ctx: RequestContext): LiveSession {
    const bound = this.options.bindSessionsToConnection;
    const live = this.#sessions.get(sessionId);
    if (live === undefined) {
      const owner = this.#expired.get(sessionId);
      if (owner !== undefined && (!bound || owner === ctx.connectionId)) throw this.#expiredError(ctx.faults, sessionId);
      throw this.#notFound(ctx.faults, sessionId, ctx.method);
    }
    // FLOW-SEC-4 reading 1: another connection's session does not exist for this one.
    if (bound && live.record.connectionId !== ctx.connectionId) throw this.#notFound(ctx.faults, sessionId, ctx.method);
    return live;
  }

  #resolveStateless(token: string, ctx: RequestContext): LiveSession {
    const faults = ctx.faults;
    const { secret, form } = this.options.stateless as StatelessOptions;
    if (faults.has('reject-own-token')) throw this.#notFound(faults, token);
    let record: SessionRecord;
    try {
      record = decodeToken<SessionRecord>(secret, token, { verify: !faults.has('accept-tampered-token'), ...(form !== undefined ? { form } : {}) }).state;
    } catch (error) {
      if (error instanceof TokenRejectedError) {
        // C-19: a tampered token names no session (-32001), or is a malformed parameter (-32602).
        if (this.options.tamperedTokenCode === JSONRPC_ERROR.InvalidParams) throw invalidParams(`Invalid session token: ${error.problem}`, { sessionId: token });
        throw this.#notFound(faults, token);
      }
      throw error;
    }
    const wizard = typeof record.wizardName === 'string' ? this.wizards.get(record.wizardName) : undefined;
    if (wizard === undefined || typeof record.id !== 'string' || !Array.isArray(record.history) || !isObject(record.accumulatedData)) {
      throw this.#notFound(faults, token);
    }
    if (this.options.bindSessionsToConnection && record.connectionId !== ctx.connectionId) throw this.#notFound(faults, token);
    const finished = this.#finished.get(record.id);
    if (finished !== undefined && !isTerminal(record.state)) {
      record.state = finished;
      record.currentPrompt = null;
      record.stepId = null;
    }
    return { record, wizard, ctx, epoch: 0, timers: [] };
  }

  #requireInteractive(ctx: RequestContext, params: unknown): void {
    if (this.options.interactive || ctx.faults.has('not-interactive-served')) return;
    const sessionId = isObject(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined;
    // FLOW-CAP-7 reading 2: answered as a plain MCP server answers a method it does not have.
    if (this.options.notInteractiveCode === JSONRPC_ERROR.MethodNotFound) throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${ctx.method}`);
    throw this.#error(ctx.faults, this.options.notInteractiveCode, 'Interactive mode is not supported by this server', sessionId);
  }

  // ---- capabilities ------------------------------------------------------------------------

  /** The 000 capability object (capabilities method, and initialize per capabilityLocation). */
  capabilityObject(faults: ActiveFaults): Record<string, unknown> {
    const interactive = this.options.interactive && !faults.has('no-interactive-capability');
    return {
      interactive: faults.has('capabilities-interactive-not-boolean') ? 'yes' : interactive,
      version: FLOW_VERSION,
      features: {
        statefulSessions: this.options.stateless === undefined,
        progressTracking: true,
        validation: faults.has('feature-flag-not-boolean') ? 'client' : true,
        multiplePromptTypes: true,
        sessionPersistence: false,
      },
    };
  }

  /** Merged into the initialize result's capabilities (C-14). */
  initializeCapabilities(faults: ActiveFaults): Record<string, unknown> {
    if (!this.options.interactive || faults.has('no-interactive-capability')) return {};
    const object = this.capabilityObject(faults);
    switch (this.options.capabilityLocation) {
      case 'experimental':
        return { experimental: { interactive: object } };
      case 'top-level':
        return { interactive: object };
      case 'method-only':
        return {};
    }
  }

  // ---- prompts -----------------------------------------------------------------------------

  /** The prompt as sent, with the prompt-shape faults applied. */
  #asSent(prompt: EnginePrompt, faults: ActiveFaults): EnginePrompt {
    const sent = structuredClone(prompt);
    // Rule 4: a member 000 does not name is noted, not failed.
    if (this.options.extensionMembers) (sent as EnginePrompt & { _meta?: unknown })._meta = { 'mcp-flow-conformance/readings': 'alternate' };
    if (faults.has('prompt-without-message')) delete (sent as Partial<EnginePrompt>).message;
    if (faults.has('duplicate-choice-values') && sent.choices !== undefined && sent.choices.length > 0) {
      sent.choices = [sent.choices[0] as NonNullable<EnginePrompt['choices']>[number], ...sent.choices];
    }
    if (faults.has('choice-without-label') && sent.choices !== undefined) {
      sent.choices = sent.choices.map(({ label: _label, ...choice }) => choice as NonNullable<EnginePrompt['choices']>[number]);
    }
    const rules = sent.validation;
    if (faults.has('validation-required-as-string') && rules?.required !== undefined) (rules as Record<string, unknown>).required = String(rules.required);
    if (faults.has('inverted-bounds') && rules?.min !== undefined && rules.max !== undefined && rules.min !== rules.max) {
      [rules.min, rules.max] = [rules.max, rules.min];
    }
    if (faults.has('uncompilable-pattern') && rules?.pattern !== undefined) rules.pattern = `${rules.pattern}(`;
    if (faults.has('default-wrong-type') && sent.defaultValue !== undefined) {
      sent.defaultValue = typeof sent.defaultValue === 'string' ? 0 : String(sent.defaultValue);
    }
    return sent;
  }

  #progress(live: LiveSession, step: WizardStep, message?: string): Progress {
    const progress = progressFor(live.wizard, live.record, step, message);
    if (live.ctx.faults.has('progress-current-as-string')) return { ...progress, current: String(progress.current) as unknown as number };
    return live.ctx.faults.has('progress-beyond-total') ? { ...progress, current: progress.total + 1 } : progress;
  }

  async #clientRequest(live: LiveSession, method: string, params: Params): Promise<unknown> {
    const timeoutMs = this.options.clientRequestTimeoutMs;
    return live.ctx.sendRequest(method, params, timeoutMs === undefined ? {} : { timeoutMs });
  }

  /**
   * Makes `step` the current prompt and sends it: interaction.prompt, or interaction.continue with
   * nextPrompt when the step says so. A re-prompt (after a rejected value) carries the error.
   */
  async #present(live: LiveSession, step: WizardStep, reprompt?: { error: string }, first = false): Promise<void> {
    const record = live.record;
    const faults = live.ctx.faults;
    const prompt = renderPrompt(step, record);
    if (reprompt !== undefined) prompt.error = reprompt.error;
    const sent = this.#asSent(prompt, faults);
    // FLOW-START-8 reading 2: the first prompt may come as interaction.continue with nextPrompt.
    const viaContinue = reprompt === undefined && (step.delivery === 'continue' || (first && this.options.firstPromptVia === 'continue'));
    const sessionId = this.#publicId(live);
    if (reprompt === undefined) {
      record.stepId = step.id;
      if (viaContinue && faults.has('continue-prompt-not-current')) {
        record.currentPrompt = null;
      } else {
        this.#transition(live, 'prompt', faults, sessionId);
        record.currentPrompt = sent;
      }
    }
    // A re-prompt carries the error but the current prompt stays as it was (FLOW-VALID-10).
    record.promptCount++;
    this.#touch(live);
    const epoch = live.epoch;
    const progress = this.#progress(live, step);
    const id = this.#publicId(live);
    const method = viaContinue ? FLOW_METHOD.continue : FLOW_METHOD.prompt;
    const params: Params = viaContinue ? { sessionId: id, nextPrompt: sent, progress } : { sessionId: id, prompt: sent, progress };
    if (viaContinue && faults.has('continue-without-session-id')) delete params.sessionId;
    // C-11 reading 3 sends interaction.continue as a notification; FAULT prompt-as-notification does so with interaction.prompt.
    if ((viaContinue && this.options.continueAsNotification) || (!viaContinue && faults.has('prompt-as-notification'))) {
      await live.ctx.sendNotification(method, params);
      return;
    }
    try {
      await this.#clientRequest(live, method, params);
    } catch {
      // The client refused or never acknowledged the prompt: the session cannot go on.
      if (live.epoch === epoch && record.state === 'waiting_user' && record.stepId === step.id) this.#fail(live);
    }
  }

  /** Goes on after `answered` (null: the first step): the next prompt, or the completion. */
  async #advance(live: LiveSession, answered: WizardStep | null): Promise<void> {
    const epoch = live.epoch;
    const first = live.wizard.steps[0] as WizardStep;
    const target = answered === null ? first.id : nextTarget(live.wizard, answered, live.record.accumulatedData);
    if (target === COMPLETE_TARGET) return this.#complete(live);
    const step = stepById(live.wizard, target) as WizardStep;
    if (step.announce !== undefined) {
      const progress = this.#progress(live, step, step.announce);
      try {
        const params: Params = { sessionId: this.#publicId(live), progress };
        if (live.ctx.faults.has('continue-without-session-id')) delete params.sessionId;
        if (this.options.continueAsNotification) await live.ctx.sendNotification(FLOW_METHOD.continue, params);
        else await this.#clientRequest(live, FLOW_METHOD.continue, params);
      } catch {
        if (live.epoch === epoch) this.#fail(live);
        return;
      }
      if (live.epoch !== epoch || isTerminal(live.record.state)) return; // FLOW-CANCEL-5
    }
    await this.#present(live, step, undefined, answered === null);
  }

  /** FLOW-SM-6, FLOW-SM-7: completed, then one interaction.complete with the rendered result. */
  async #complete(live: LiveSession): Promise<void> {
    const record = live.record;
    const faults = live.ctx.faults;
    const lastPrompt = record.history.at(-1)?.prompt ?? null;
    this.#transition(live, 'complete', faults, record.id);
    record.stepId = null;
    record.currentPrompt = faults.has('current-prompt-after-complete') ? lastPrompt : null;
    this.#finish(live);
    const rendered = renderResult(live.wizard, record);
    let data = rendered.data;
    const file = live.export?.file ?? renderExport(live.wizard, record.accumulatedData, record.params);
    if (file !== undefined) {
      const stream = live.export?.stream;
      // C-32: a streamed file is named by its stream (the ref/stream item went in the respond result); otherwise it is inline.
      const body = stream === undefined ? { content: file.bytes.toString('utf8') } : { stream: { requestId: stream.requestId, streamTag: stream.streamTag } };
      data = {
        ...(isObject(data) ? data : { value: data }),
        file: { name: file.fileName, mimeType: file.mimeType, rows: file.rows, size: file.bytes.length, ...body },
      };
    }
    const sessionId = this.#publicId(live);
    const result = faults.has('complete-without-success') ? { data } : { success: true, data };
    const params = rendered.summary === undefined ? { sessionId, result } : { sessionId, result, summary: rendered.summary };
    // FAULT complete-twice (FLOW-SM-6): the second goes out right behind the first, before the client
    // could have answered it (and ended its session), so that it is on the wire whatever the client does next.
    const sends = faults.has('complete-twice') ? 2 : 1;
    const answers = await Promise.allSettled(Array.from({ length: sends }, () => this.#clientRequest(live, FLOW_METHOD.complete, params)));
    // The session is complete whatever the client answered.
    for (const answer of answers) if (answer.status === 'fulfilled') live.completion = answer.value;
    if (faults.has('prompt-after-complete') && lastPrompt !== null) {
      await this.#clientRequest(live, FLOW_METHOD.prompt, { sessionId, prompt: lastPrompt }).catch(() => undefined);
    }
  }

  /** Renders the export and opens its stream on the request `ctx` answers: the ref/stream items to announce, if streamed. */
  async #exportOn(live: LiveSession, ctx: RequestContext): Promise<unknown[] | undefined> {
    const file = renderExport(live.wizard, live.record.accumulatedData, live.record.params);
    if (file === undefined) return undefined;
    live.export = { file };
    const stream = await openExportStream(ctx, file);
    if (stream === undefined) return undefined;
    live.export.stream = stream;
    this.#pending.add(stream.done);
    void stream.done.finally(() => this.#pending.delete(stream.done));
    return [stream.item];
  }

  // ---- client-to-server requests -------------------------------------------------------------

  capabilities(_params: unknown, ctx: RequestContext): Record<string, unknown> {
    // FAULT capabilities-method-missing (FLOW-CAP-10): a Flow server without the method.
    if (ctx.faults.has('capabilities-method-missing')) throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${ctx.method}`);
    return this.capabilityObject(ctx.faults);
  }

  /** 128+ random bits (FLOW-SEC-2, FLOW-SEC-9), unless a fault says otherwise. */
  #newId(faults: ActiveFaults): string {
    if (faults.has('sequential-session-ids')) return `session_${++this.#counter}`;
    if (faults.has('reuse-session-id') && this.#lastFinishedId !== undefined) {
      const id = this.#lastFinishedId;
      this.#lastFinishedId = undefined;
      const old = this.#sessions.get(id);
      if (old !== undefined) this.#clearTimers(old);
      this.#sessions.delete(id);
      return id;
    }
    return `session_${randomBytes(18).toString('base64url')}`;
  }

  async start(params: unknown, ctx: RequestContext): Promise<Record<string, unknown>> {
    this.#requireInteractive(ctx, params);
    const faults = ctx.faults;
    if (!isObject(params)) throw invalidParams('interaction.start needs params with a string toolName');
    const { initialParams, context, timeout } = params;
    let toolName = params.toolName;
    // FAULT start-without-tool-name-served: no toolName starts the first interactive tool.
    if (toolName === undefined && faults.has('start-without-tool-name-served') && this.wizards.size > 0) toolName = [...this.wizards.keys()][0];
    if (typeof toolName !== 'string' || toolName === '') throw invalidParams('interaction.start needs a non-empty string toolName');
    if (initialParams !== undefined && !isObject(initialParams)) throw invalidParams('interaction.start initialParams must be an object');
    if (context !== undefined && !isObject(context)) throw invalidParams('interaction.start context must be an object');
    const timeoutMs = this.#timeoutParam(timeout, faults);
    let wizard = this.wizards.get(toolName);
    if (wizard === undefined) {
      if ([...this.options.plainTools()].includes(toolName)) {
        // FAULT not-interactive-as-validation-failed.
        const code = faults.has('not-interactive-as-validation-failed') ? FLOW_ERROR.VALIDATION_FAILED : FLOW_ERROR.NOT_INTERACTIVE;
        throw new RpcError(code, `Tool ${toolName} is not interactive; call it with tools/call`, { toolName });
      }
      if (!faults.has('start-unknown-tool') || this.wizards.size === 0) {
        throw new RpcError(this.options.unknownToolCode, `Unknown tool: ${toolName}`, { toolName, interactiveTools: [...this.wizards.keys()] });
      }
      wizard = [...this.wizards.values()][0] as Wizard;
    }
    const live = [...this.#sessions.values()].filter((s) => s.record.connectionId === ctx.connectionId && !isTerminal(s.record.state));
    const maxSessions = this.options.limits.maxSessionsPerConnection;
    if (live.length >= maxSessions) {
      return this.#limitExceeded(ctx, `Session limit reached: at most ${maxSessions} live sessions per connection`, undefined, 'maxSessionsPerConnection', maxSessions);
    }
    const id = this.#newId(faults);
    const now = this.#now();
    const record: SessionRecord = {
      id,
      toolName,
      wizardName: wizard.name,
      connectionId: ctx.connectionId,
      state: 'idle',
      createdAt: now,
      lastActivityAt: now,
      timeoutMs: timeoutMs ?? wizard.timeout ?? this.options.defaultTimeoutMs,
      stepId: null,
      currentPrompt: null,
      history: [],
      accumulatedData: {},
      promptCount: 0,
      params: (initialParams as Params | undefined) ?? {},
      context: (context as Params | undefined) ?? {},
    };
    const session: LiveSession = { record, wizard, ctx, epoch: 0, timers: [] };
    this.#previousStarted = this.#lastStarted;
    this.#lastStarted = record;
    if (this.options.stateless === undefined) this.#sessions.set(id, session);

    const result: Record<string, unknown> = {};
    if (wizard.initialPrompt === true) {
      const step = wizard.steps[0] as WizardStep;
      const sent = this.#asSent(renderPrompt(step, record), faults);
      record.stepId = step.id;
      record.promptCount = 1;
      if (!faults.has('initial-prompt-not-current')) {
        record.state = nextState(null, 'start', true); // C-03: waiting_user
        record.currentPrompt = sent;
      }
      this.#touch(session);
      result.sessionId = this.#publicId(session);
      result.state = this.options.initialPromptState === 'idle' ? 'idle' : this.#reportState(record.state, faults);
      result.initialPrompt = sent;
      result.progress = this.#progress(session, step);
      if (faults.has('prompt-while-waiting')) {
        this.#schedule(async () => {
          await this.#clientRequest(session, FLOW_METHOD.prompt, { sessionId: result.sessionId, prompt: sent, progress: result.progress });
        });
      }
    } else {
      record.state = nextState(null, 'start', false);
      this.#touch(session);
      result.sessionId = this.#publicId(session);
      result.state = record.state;
      this.#schedule(async () => {
        if (session.epoch !== 0 || record.state !== 'idle') return;
        record.state = nextState(record.state, 'begin');
        if (faults.has('no-first-prompt')) return;
        await this.#advance(session, null);
      });
    }
    if (faults.has('start-without-state')) delete result.state;
    return result;
  }

  /**
   * The inactivity timeout interaction.start asks for: undefined for none, or (FLOW-START-9) for a
   * value that is not a positive integer under the lenient reading; -32602 under the refusing one.
   */
  #timeoutParam(timeout: unknown, faults: ActiveFaults): number | undefined {
    if (timeout === undefined || (Number.isSafeInteger(timeout) && (timeout as number) > 0)) return timeout as number | undefined;
    // FAULT invalid-timeout-internal-error: neither accepted reading of FLOW-START-9.
    if (faults.has('invalid-timeout-internal-error')) throw new RpcError(JSONRPC_ERROR.InternalError, 'Internal error');
    if (this.options.invalidTimeout === 'lenient') {
      const spelled = typeof timeout === 'string' && /^[0-9]+$/.test(timeout) ? Number(timeout) : undefined;
      return spelled !== undefined && Number.isSafeInteger(spelled) && spelled > 0 ? spelled : undefined;
    }
    throw invalidParams(`interaction.start timeout must be a positive integer number of milliseconds, got ${JSON.stringify(timeout)}`);
  }

  #validate(prompt: EnginePrompt, value: unknown, faults: ActiveFaults): ValidationOutcome {
    if (faults.has('skip-validation')) return { valid: true };
    const relaxed = structuredClone(prompt);
    const rules = (relaxed.validation ??= {});
    const missing = value === undefined || value === null || value === '';
    if (faults.has('ignore-required')) delete rules.required;
    if (faults.has('ignore-pattern')) delete rules.pattern;
    if (faults.has('ignore-text-length') && relaxed.type === 'text') {
      delete rules.min;
      delete rules.max;
    }
    if (faults.has('ignore-number-range') && relaxed.type === 'number') {
      delete rules.min;
      delete rules.max;
    }
    if (!missing && faults.has('accept-non-number') && relaxed.type === 'number') return { valid: true };
    if (!missing && faults.has('accept-unlisted-choice') && relaxed.type === 'choice') return { valid: true };
    if (!missing && faults.has('accept-non-boolean-confirm') && relaxed.type === 'confirm') return { valid: true };
    return validateAnswer(relaxed, value, this.options.validation);
  }

  async respond(params: unknown, ctx: RequestContext): Promise<Record<string, unknown>> {
    this.#requireInteractive(ctx, params);
    const faults = ctx.faults;
    const { params: p, sessionId } = this.#sessionIdParam(params, FLOW_METHOD.respond);
    let response = p.response;
    // FLOW-RESPOND-7 reading 2: a response object without value is a missing answer, which validation judges.
    const missingAnswer = isObject(response) && !Object.hasOwn(response, 'value') && this.options.missingValue === 'validate';
    if (!isObject(response) || (!Object.hasOwn(response, 'value') && !missingAnswer)) {
      if (!faults.has('accept-missing-response')) {
        throw invalidParams('interaction.respond needs a response object with a value', { sessionId });
      }
      response = { ...(isObject(response) ? response : {}), value: null };
    }
    const answer = response as Params;
    if (answer.timestamp !== undefined && !Number.isSafeInteger(answer.timestamp)) {
      throw invalidParams('interaction.respond response.timestamp must be an integer (milliseconds since the epoch)', { sessionId });
    }
    if (answer.metadata !== undefined && !isObject(answer.metadata)) {
      throw invalidParams('interaction.respond response.metadata must be an object', { sessionId });
    }
    const live = await this.#resolve(sessionId, ctx);
    const record = live.record;
    // FLOW-RESPOND-2: with validation {valid: true} (recommended), or accepted alone; FAULT accepted-marked-invalid contradicts itself.
    const accepted: Record<string, unknown> = faults.has('accepted-marked-invalid')
      ? { accepted: true, validation: { valid: false } }
      : this.options.acceptedValidation
        ? { accepted: true, validation: { valid: true } }
        : { accepted: true };
    if (record.state === 'cancelled' && faults.has('respond-after-cancel-accepted')) return accepted;
    if (record.state === 'completed' && faults.has('respond-after-complete-accepted')) return accepted;
    const step = record.stepId === null ? undefined : stepById(live.wizard, record.stepId);
    if (record.state !== 'waiting_user' || step === undefined) {
      this.#transition(live, 'respond', faults, sessionId); // throws -32003 or -32006 (FLOW-RESPOND-5, -6)
      throw new RpcError(FLOW_ERROR.INVALID_STATE_TRANSITION, `Session ${sessionId} has no prompt awaiting a response`, { sessionId });
    }
    const value = answer.value;
    const key = storeKey(step);
    if (faults.has('record-rejected-answer')) record.accumulatedData[key] = value;
    const prompt = renderPrompt(step, record);
    const outcome = this.#validate(prompt, value, faults);
    this.#touch(live);
    const maxPrompts = this.options.limits.maxPrompts;
    if (!outcome.valid) {
      const again = this.options.reprompt && !faults.has('drop-prompt-after-rejection');
      if (again && record.promptCount >= maxPrompts) {
        this.#fail(live);
        return this.#limitExceeded(ctx, `Prompt limit reached: at most ${maxPrompts} prompts per session`, sessionId, 'maxPrompts', maxPrompts);
      }
      if (faults.has('drop-prompt-after-rejection')) this.#fail(live);
      else if (again) {
        const epoch = live.epoch;
        this.#schedule(async () => {
          if (live.epoch === epoch && record.state === 'waiting_user' && record.stepId === step.id) {
            await this.#present(live, step, { error: outcome.error });
          }
        });
      }
      const validation: Record<string, unknown> = { valid: false };
      if (!faults.has('rejection-without-error')) validation.error = outcome.error;
      if (outcome.suggestion !== undefined) validation.suggestion = outcome.suggestion;
      // FLOW-VALID-10 reading 2: the rejected exchange is a turn of history (never of accumulatedData).
      if (this.options.recordRejectedTurns && record.currentPrompt !== null) {
        record.history.push({ turnId: this.options.historyTurnBase + record.history.length, prompt: record.currentPrompt, response: { value: value ?? null }, timestamp: this.#now() });
        record.rejectedTurns = (record.rejectedTurns ?? 0) + 1;
      }
      if (this.options.rejectWithError) {
        throw this.#error(faults, FLOW_ERROR.VALIDATION_FAILED, `Validation failed: ${outcome.error}`, sessionId, { validation });
      }
      return { accepted: false, validation };
    }
    const recordTurn = (): void => {
      record.history.push({
        turnId: this.options.historyTurnBase + record.history.length,
        prompt: record.currentPrompt as EnginePrompt,
        response: {
          value: value ?? null,
          ...(answer.timestamp === undefined ? {} : { timestamp: answer.timestamp as number }),
          ...(answer.metadata === undefined ? {} : { metadata: answer.metadata as Params }),
        },
        timestamp: this.#now(),
      } satisfies HistoryTurn);
      record.accumulatedData[key] = value ?? null;
    };
    // The answer is recorded as usual (FLOW-STATE-2 holds); only the step out of waiting_user is missing (FLOW-SM-5).
    if (faults.has('stay-waiting-after-accept')) {
      recordTurn();
      return accepted;
    }
    const target = nextTarget(live.wizard, step, { ...record.accumulatedData, [key]: value });
    if (target !== COMPLETE_TARGET && record.promptCount >= maxPrompts) {
      this.#fail(live);
      return this.#limitExceeded(ctx, `Prompt limit reached: at most ${maxPrompts} prompts per session`, sessionId, 'maxPrompts', maxPrompts);
    }
    recordTurn();
    this.#transition(live, 'respond', faults, sessionId);
    record.currentPrompt = null;
    // C-32: the answer that completes a wizard with an export carries the file on an execution
    // stream of this very request (in flight until answered), announced by a ref/stream item.
    const content = target === COMPLETE_TARGET ? await this.#exportOn(live, ctx) : undefined;
    this.#schedule(() => this.#advance(live, step));
    const result: Record<string, unknown> = { ...accepted };
    if (content !== undefined) result.content = content;
    return result;
  }

  async getState(params: unknown, ctx: RequestContext): Promise<Record<string, unknown>> {
    this.#requireInteractive(ctx, params);
    const faults = ctx.faults;
    const { sessionId } = this.#sessionIdParam(params, FLOW_METHOD.getState);
    const live = await this.#resolve(sessionId, ctx);
    const record = live.record;
    if (faults.has('getstate-mutates')) {
      const reads = record.accumulatedData.__reads;
      record.accumulatedData.__reads = typeof reads === 'number' ? reads + 1 : 1;
    }
    // state-idle-while-waiting reports idle, and an idle report carries no currentPrompt, so that
    // only the state path (FLOW-SM-2) breaks and not the currentPrompt rule (FLOW-STATE-3).
    const reportedIdle = record.state === 'waiting_user' && faults.has('state-idle-while-waiting');
    // C-03 reading 2: idle, as in 000's start example, for as long as the initial prompt waits.
    const initialWaiting = this.options.initialPromptState === 'idle' && live.wizard.initialPrompt === true && record.state === 'waiting_user' && acceptedAnswers(record) === 0;
    const state = reportedIdle || initialWaiting ? 'idle' : this.#reportState(record.state, faults);
    const metadata: Record<string, unknown> = { createdAt: record.createdAt, lastActivityAt: record.lastActivityAt, toolName: record.toolName };
    if (faults.has('missing-metadata')) delete metadata.toolName;
    let accumulatedData = structuredClone(record.accumulatedData);
    if (faults.has('leak-foreign-session')) {
      const foreign = [this.#lastStarted, this.#previousStarted].find((r) => r !== undefined && r.id !== record.id);
      if (foreign !== undefined) accumulatedData = { ...structuredClone(foreign.accumulatedData), ...accumulatedData };
    }
    const result: Record<string, unknown> = {
      sessionId,
      state,
      metadata,
      history: faults.has('missing-history') ? [] : structuredClone(record.history),
      accumulatedData,
    };
    if (record.currentPrompt !== null && ((record.state === 'waiting_user' && !reportedIdle) || faults.has('current-prompt-after-complete'))) {
      result.currentPrompt = structuredClone(record.currentPrompt);
    }
    return result;
  }

  async cancel(params: unknown, ctx: RequestContext): Promise<Record<string, unknown>> {
    this.#requireInteractive(ctx, params);
    const faults = ctx.faults;
    const { params: p, sessionId } = this.#sessionIdParam(params, FLOW_METHOD.cancel);
    if (p.reason !== undefined && typeof p.reason !== 'string') throw invalidParams('interaction.cancel reason must be a string', { sessionId });
    const live = await this.#resolve(sessionId, ctx);
    const record = live.record;
    if (record.state === 'cancelled' && faults.has('cancel-twice-succeeds')) return { cancelled: true };
    const finished = record.state === 'completed' || record.state === 'error';
    // FAULT cancel-completed-claims-cancelled: says cancelled, yet the session stays as it was.
    if (finished && faults.has('cancel-completed-claims-cancelled')) return { cancelled: true };
    // C-23: a finished session's cancel refused with {"cancelled": false}, or taken literally ("Any -> CANCELLED").
    if (finished && this.options.cancelFinished === 'refuse-with-result') return { cancelled: false };
    if (finished && this.options.cancelFinished === 'cancel') {
      this.#transition(live, 'cancel', faults, sessionId);
      if (this.options.stateless !== undefined) this.#finished.set(record.id, 'cancelled');
      return { cancelled: true };
    }
    if (faults.has('cancel-ignored') && !isTerminal(record.state)) return { cancelled: true };
    const lastPrompt = record.currentPrompt;
    this.#transition(live, 'cancel', faults, sessionId); // -32006 when cancelled, -32003 when completed or error
    record.currentPrompt = null;
    record.stepId = null;
    this.#finish(live);
    if (faults.has('prompt-after-cancel') && lastPrompt !== null) {
      this.#schedule(async () => {
        await this.#clientRequest(live, FLOW_METHOD.prompt, { sessionId: this.#publicId(live), prompt: lastPrompt });
      });
    }
    return { cancelled: true };
  }

  /** interaction.prompt/.continue/.complete sent by a client: the wrong direction (FLOW-CAP-9). */
  wrongDirection(method: string, params: unknown, ctx: RequestContext): Record<string, unknown> {
    // FAULT server-to-client-request-served (core, FLOW-CAP-8): served as if it travelled the right way.
    if (ctx.faults.has('server-to-client-request-served')) return {};
    // FAULT serve-client-methods (FLOW-CAP-9): refused, but with -32600 instead of -32601.
    if (ctx.faults.has('serve-client-methods')) throw new RpcError(JSONRPC_ERROR.InvalidRequest, `Invalid Request: ${method} is a server-to-client request`, { method });
    // FLOW-CAP-9 reading 2: a peer that looks the session up first knows no session of its own by that id.
    const sessionId = isObject(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined;
    if (this.options.wrongDirectionCode === FLOW_ERROR.SESSION_NOT_FOUND && sessionId !== undefined && !this.#sessions.has(sessionId)) {
      throw this.#error(ctx.faults, FLOW_ERROR.SESSION_NOT_FOUND, `Session not found: ${sessionId}`, sessionId);
    }
    throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${method} is a server-to-client request`, { method });
  }

  /** The connection ended: its sessions end with it. */
  endConnection(connectionId: string): void {
    for (const live of [...this.#sessions.values()]) {
      if (live.record.connectionId !== connectionId) continue;
      live.epoch++;
      this.#clearTimers(live);
      this.#sessions.delete(live.record.id);
      this.#requestTimes.delete(live.record.id);
    }
    for (const [id, owner] of [...this.#expired]) if (owner === connectionId) this.#expired.delete(id);
  }
}
