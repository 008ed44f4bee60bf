// The MCP Flow engine of the mock server: the client-to-server requests (capabilities,
// interaction.start/.respond/.cancel/.getState) over the sessions of session-table.ts, with the
// requests it sends to the client in prompter.ts, its errors in session-errors.ts, and the faults
// that only rewrite a value in fault-hooks.ts; every other fault of faults.ts is honoured here,
// where the request is answered.
import { nextState, isTerminal } from '../../../protocol/flow-session.js';
import { FLOW_ERROR, JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { FLOW_METHOD } from '../../../protocol/methods.js';
import type { ValidationOutcome } from '../../../protocol/prompt-validation.js';
import { RpcError, type ActiveFaults, type RequestContext } from '../extension.js';
import { validateAnswer, type EnginePrompt } from './answers.js';
import { BackgroundWork } from './background.js';
import { ACCEPTED_UNCHECKED, CAPABILITY_REWRITES, GET_STATE_REWRITES, VALIDATION_RELAXATIONS } from './fault-hooks.js';
import type { ResolvedFlowOptions } from './options.js';
import { Prompter } from './prompter.js';
import { acceptedAnswers, nextTarget, renderPrompt, stepById, type HistoryTurn, type SessionRecord } from './session.js';
import { flowError, invalidParams, limitExceeded, transition } from './session-errors.js';
import { SessionTable, type LiveSession } from './session-table.js';
import { COMPLETE_TARGET, storeKey, type Wizard, type WizardStep } from './wizard.js';

export { LIMIT_EXCEEDED } from './session-errors.js';
export { TIMEOUT_WARNING_LOGGER, type LiveSession } from './session-table.js';

/** The MCP Flow version this engine implements (FLOW-CAP-3). */
export const FLOW_VERSION = '0.1.0';

type Params = Record<string, unknown>;

function isObject(value: unknown): value is Params {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class FlowEngine {
  readonly options: ResolvedFlowOptions;
  readonly wizards: ReadonlyMap<string, Wizard>;
  readonly #table: SessionTable;
  readonly #work = new BackgroundWork();
  readonly #prompter: Prompter;

  constructor(options: ResolvedFlowOptions, wizards: ReadonlyMap<string, Wizard>) {
    this.options = options;
    this.wizards = wizards;
    this.#table = new SessionTable(options, wizards);
    this.#prompter = new Prompter(options, this.#table, this.#work);
  }

  // ---- bookkeeping -------------------------------------------------------------------------

  /** Resolves once no engine work (prompts to send, completions) is pending. */
  async settled(): Promise<void> {
    await this.#work.settled();
  }

  /** Unexpected exceptions of background work (sending prompts, completing); empty unless the engine has a bug. */
  get failures(): readonly unknown[] {
    return this.#work.failures;
  }

  /** Live sessions held in memory (stateful mode). */
  get sessionCount(): number {
    return this.#table.size;
  }

  /** A live session by its id (tests and diagnostics). */
  session(id: string): LiveSession | undefined {
    return this.#table.get(id);
  }

  #now(): number {
    return this.options.clock.now();
  }

  #reportState(state: SessionRecord['state'], faults: ActiveFaults): string {
    if (state === 'waiting_user' && faults.has('unknown-state-name')) return 'waiting';
    return state;
  }

  #sessionIdParam(params: unknown, method: string): { params: Params; sessionId: string } {
    if (!isObject(params)) throw invalidParams(`${method} needs params with a string sessionId`);
    const sessionId = params.sessionId;
    if (typeof sessionId !== 'string' || sessionId === '') throw invalidParams(`${method} needs a non-empty string sessionId`);
    return { params, sessionId };
  }

  #requireInteractive(ctx: RequestContext, params: unknown): void {
    if (this.options.interactive || ctx.faults.has('not-interactive-served')) return;
    const sessionId = isObject(params) && typeof params.sessionId === 'string' ? params.sessionId : undefined;
    // FLOW-CAP-7 reading 2: answered as a plain MCP server answers a method it does not have.
    if (this.options.notInteractiveCode === JSONRPC_ERROR.MethodNotFound) throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${ctx.method}`);
    throw flowError(ctx.faults, this.options.notInteractiveCode, 'Interactive mode is not supported by this server', sessionId);
  }

  // ---- capabilities ------------------------------------------------------------------------

  /** The 000 capability object (capabilities method, and initialize per capabilityLocation). */
  capabilityObject(faults: ActiveFaults): Record<string, unknown> {
    const interactive = this.options.interactive && !faults.has('no-interactive-capability');
    return faults.rewrite(CAPABILITY_REWRITES, {
      interactive,
      version: FLOW_VERSION,
      features: {
        statefulSessions: this.options.stateless === undefined,
        progressTracking: true,
        validation: true,
        multiplePromptTypes: true,
        sessionPersistence: false,
      },
    });
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

  // ---- client-to-server requests -------------------------------------------------------------

  capabilities(_params: unknown, ctx: RequestContext): Record<string, unknown> {
    // FAULT capabilities-method-missing (FLOW-CAP-10): a Flow server without the method.
    if (ctx.faults.has('capabilities-method-missing')) throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${ctx.method}`);
    return this.capabilityObject(ctx.faults);
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
    // FAULT start-timeout-ignored (FLOW-TIMEOUT-2): the session keeps the wizard's or the default timeout.
    const timeoutMs = faults.has('start-timeout-ignored') ? undefined : this.#timeoutParam(timeout, faults);
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
    // FAULT sessions-shared-across-connections (FLOW-SEC-1): another connection's live session of the tool is handed out again.
    const joined = faults.has('sessions-shared-across-connections')
      ? this.#table.joinElsewhere(toolName, (context as Params | undefined) ?? {}, ctx.connectionId)
      : undefined;
    if (joined !== undefined) {
      const prompt = joined.record.currentPrompt;
      return { sessionId: this.#table.publicId(joined), state: this.#reportState(joined.record.state, faults), ...(prompt !== null ? { initialPrompt: structuredClone(prompt) } : {}) };
    }
    const live = this.#table.liveOf(ctx.connectionId);
    const maxSessions = this.options.limits.maxSessionsPerConnection;
    if (live.length >= maxSessions) {
      return limitExceeded(ctx, `Session limit reached: at most ${maxSessions} live sessions per connection`, undefined, 'maxSessionsPerConnection', maxSessions);
    }
    const id = this.#table.newId(faults);
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
    this.#table.add(session);

    const result: Record<string, unknown> = {};
    if (wizard.initialPrompt === true) {
      const step = wizard.steps[0] as WizardStep;
      const sent = this.#prompter.asSent(renderPrompt(step, record), faults);
      record.stepId = step.id;
      record.promptCount = 1;
      if (!faults.has('initial-prompt-not-current')) {
        record.state = nextState(null, 'start', true); // C-03: waiting_user
        record.currentPrompt = sent;
      }
      this.#table.touch(session);
      result.sessionId = this.#table.publicId(session);
      // FAULT initial-prompt-state-active (FLOW-START-5): neither waiting_user nor idle.
      result.state = faults.has('initial-prompt-state-active') ? 'active' : this.options.initialPromptState === 'idle' ? 'idle' : this.#reportState(record.state, faults);
      result.initialPrompt = sent;
      result.progress = this.#prompter.progress(session, step);
      if (faults.has('prompt-while-waiting')) {
        this.#work.schedule(async () => {
          await this.#prompter.request(session, FLOW_METHOD.prompt, { sessionId: result.sessionId, prompt: sent, progress: result.progress });
        });
      }
    } else {
      record.state = nextState(null, 'start', false);
      this.#table.touch(session);
      result.sessionId = this.#table.publicId(session);
      result.state = record.state;
      this.#work.schedule(async () => {
        if (session.epoch !== 0 || record.state !== 'idle') return;
        record.state = nextState(record.state, 'begin');
        if (faults.has('no-first-prompt')) return;
        await this.#prompter.advance(session, null);
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
    const relaxed = structuredClone(prompt);
    relaxed.validation ??= {};
    const missing = value === undefined || value === null || value === '';
    if (faults.hooks(ACCEPTED_UNCHECKED).some((accepts) => accepts(relaxed, missing))) return { valid: true };
    return validateAnswer(faults.rewrite(VALIDATION_RELAXATIONS, relaxed), value, this.options.validation);
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
    const live = await this.#table.resolve(sessionId, ctx);
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
      transition(this.options, live.record, 'respond', faults, sessionId); // throws -32003 or -32006 (FLOW-RESPOND-5, -6)
      throw new RpcError(FLOW_ERROR.INVALID_STATE_TRANSITION, `Session ${sessionId} has no prompt awaiting a response`, { sessionId });
    }
    const value = answer.value;
    const key = storeKey(step);
    if (faults.has('record-rejected-answer')) record.accumulatedData[key] = value;
    const prompt = renderPrompt(step, record);
    const outcome = this.#validate(prompt, value, faults);
    this.#table.touch(live);
    const maxPrompts = this.options.limits.maxPrompts;
    if (!outcome.valid) {
      const again = this.options.reprompt && !faults.has('drop-prompt-after-rejection');
      if (again && record.promptCount >= maxPrompts) {
        this.#table.fail(live);
        return limitExceeded(ctx, `Prompt limit reached: at most ${maxPrompts} prompts per session`, sessionId, 'maxPrompts', maxPrompts);
      }
      if (faults.has('drop-prompt-after-rejection')) this.#table.fail(live);
      else if (again) {
        const epoch = live.epoch;
        this.#work.schedule(async () => {
          if (live.epoch === epoch && record.state === 'waiting_user' && record.stepId === step.id) {
            await this.#prompter.present(live, step, { error: outcome.error });
          }
        });
      }
      const validation: Record<string, unknown> = { valid: false };
      if (!faults.has('rejection-without-error')) validation.error = outcome.error;
      // FAULT rejection-without-suggestion (FLOW-VALID-13).
      if (outcome.suggestion !== undefined && !faults.has('rejection-without-suggestion')) validation.suggestion = outcome.suggestion;
      // FLOW-VALID-10 reading 2: the rejected exchange is a turn of history (never of accumulatedData).
      if (this.options.recordRejectedTurns && record.currentPrompt !== null) {
        record.history.push({ turnId: this.options.historyTurnBase + record.history.length, prompt: record.currentPrompt, response: { value: value ?? null }, timestamp: this.#now() });
        record.rejectedTurns = (record.rejectedTurns ?? 0) + 1;
      }
      if (this.options.rejectWithError) {
        throw flowError(faults, FLOW_ERROR.VALIDATION_FAILED, `Validation failed: ${outcome.error}`, sessionId, { validation });
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
      this.#table.fail(live);
      return limitExceeded(ctx, `Prompt limit reached: at most ${maxPrompts} prompts per session`, sessionId, 'maxPrompts', maxPrompts);
    }
    recordTurn();
    transition(this.options, live.record, 'respond', faults, sessionId);
    record.currentPrompt = null;
    // C-32: the answer that completes a wizard with an export carries the file on an execution
    // stream of this very request (in flight until answered), announced by a ref/stream item.
    const content = target === COMPLETE_TARGET ? await this.#prompter.exportOn(live, ctx) : undefined;
    this.#work.schedule(() => this.#prompter.advance(live, step));
    const result: Record<string, unknown> = { ...accepted };
    if (content !== undefined) result.content = content;
    return result;
  }

  async getState(params: unknown, ctx: RequestContext): Promise<Record<string, unknown>> {
    this.#requireInteractive(ctx, params);
    const faults = ctx.faults;
    const { sessionId } = this.#sessionIdParam(params, FLOW_METHOD.getState);
    const live = await this.#table.resolve(sessionId, ctx);
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
    let accumulatedData = structuredClone(record.accumulatedData);
    if (faults.has('leak-foreign-session')) {
      const foreign = [this.#table.lastStarted, this.#table.previousStarted].find((r) => r !== undefined && r.id !== record.id);
      if (foreign !== undefined) accumulatedData = { ...structuredClone(foreign.accumulatedData), ...accumulatedData };
    }
    const result: Record<string, unknown> = { sessionId, state, metadata, history: structuredClone(record.history), accumulatedData };
    if (record.currentPrompt !== null && ((record.state === 'waiting_user' && !reportedIdle) || faults.has('current-prompt-after-complete'))) {
      result.currentPrompt = structuredClone(record.currentPrompt);
    }
    return faults.rewrite(GET_STATE_REWRITES, result);
  }

  async cancel(params: unknown, ctx: RequestContext): Promise<Record<string, unknown>> {
    this.#requireInteractive(ctx, params);
    const faults = ctx.faults;
    const { params: p, sessionId } = this.#sessionIdParam(params, FLOW_METHOD.cancel);
    if (p.reason !== undefined && typeof p.reason !== 'string') throw invalidParams('interaction.cancel reason must be a string', { sessionId });
    const live = await this.#table.resolve(sessionId, ctx);
    const record = live.record;
    if (record.state === 'cancelled' && faults.has('cancel-twice-succeeds')) return { cancelled: true };
    const finished = record.state === 'completed' || record.state === 'error';
    // FAULT cancel-completed-claims-cancelled: says cancelled, yet the session stays as it was.
    if (finished && faults.has('cancel-completed-claims-cancelled')) return { cancelled: true };
    // C-23: a finished session's cancel refused with {"cancelled": false}, or taken literally ("Any -> CANCELLED").
    if (finished && this.options.cancelFinished === 'refuse-with-result') return { cancelled: false };
    if (finished && this.options.cancelFinished === 'cancel') {
      transition(this.options, live.record, 'cancel', faults, sessionId);
      this.#table.markFinished(record.id, 'cancelled');
      return { cancelled: true };
    }
    if (faults.has('cancel-ignored') && !isTerminal(record.state)) return { cancelled: true };
    const lastPrompt = record.currentPrompt;
    transition(this.options, live.record, 'cancel', faults, sessionId); // -32006 when cancelled, -32003 when completed or error
    record.currentPrompt = null;
    record.stepId = null;
    this.#table.finish(live);
    if (faults.has('prompt-after-cancel') && lastPrompt !== null) {
      this.#work.schedule(async () => {
        await this.#prompter.request(live, FLOW_METHOD.prompt, { sessionId: this.#table.publicId(live), prompt: lastPrompt });
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
    if (this.options.wrongDirectionCode === FLOW_ERROR.SESSION_NOT_FOUND && sessionId !== undefined && !this.#table.has(sessionId)) {
      throw flowError(ctx.faults, FLOW_ERROR.SESSION_NOT_FOUND, `Session not found: ${sessionId}`, sessionId);
    }
    throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${method} is a server-to-client request`, { method });
  }

  /** The connection ended: its sessions end with it. */
  endConnection(connectionId: string): void {
    this.#table.endConnection(connectionId);
  }
}
