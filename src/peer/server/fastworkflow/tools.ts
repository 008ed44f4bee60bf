// The ten FastWorkflow tools (004 §5) over one shared conversation store and one runtime per MCP
// session. Results travel as structuredContent plus the same JSON as one text item, or as the
// JSON text alone (FW-TOOL-3); failures go through errors.ts in the configured style; the
// readings switches (readings.ts) choose among the shapes 004 allows.
import type { RequestContext, ServerSessionContext, ServerTool, ToolResult } from '../extension.js';
import { CommandSyntaxError, parseCommand } from './command-syntax.js';
import { ConversationStore, MemoryBackend, type Summarizer } from './conversation-store.js';
import {
  FastWorkflowFailure,
  internal,
  notFound,
  reportFailure,
  unprocessable,
  type FailureContext,
} from './errors.js';
import { FW_FAULT as F } from './faults.js';
import { styleFor, type FastWorkflowReadings, type TraceDelivery } from './readings.js';
import { planClause, splitClauses } from './intents.js';
import { DEFAULT_TIMEOUT_SECONDS, DEFAULT_USER, SessionRuntime } from './runtime.js';
import { TurnRecorder, type TurnEnvironment, type TurnOutcome } from './turns.js';
import type { CommandOutput, TraceEvent } from './types.js';
import { CommandRejectedError, WORKFLOW_INFO } from './workflow.js';
import { isRecord } from '../../../wire/index.js';

export type { TraceDelivery } from './readings.js';

export interface ProfileSettings {
  store: ConversationStore;
  readings: FastWorkflowReadings;
  slowCommand: (signal: AbortSignal) => Promise<void>;
  summarize: Summarizer;
  now: () => number;
}

/**
 * A FastWorkflow tool. `argumentsRejected` is how the tool reports arguments that break its
 * inputSchema (a 422 in the configured failure style, FW-SESSION-8 and FW-ERR-2) for a core that
 * validates arguments before calling the tool; it returns the isError result or throws the RpcError.
 */
export interface FastWorkflowTool extends ServerTool {
  argumentsRejected(problems: string, ctx: RequestContext): ToolResult;
}

/** The runtime key every session shares under fault tool-state-shared (FW-TRANSPORT-3). */
const SHARED_RUNTIME = '*';

/** The logger name of notifications/message trace events. */
export const TRACE_LOGGER = 'fastworkflow';

/** A tool value sent as it is: one text item, no structuredContent (an NDJSON stream). */
class RawText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** The XML-tagged parameter string FastWorkflow's canonical CommandOutput carries (`<name>value</name> ...`). */
function parameterString(parameters: Record<string, unknown> | null): string {
  return Object.entries(parameters ?? {})
    .map(([name, value]) => `<${name}>${String(value)}</${name}>`)
    .join(' ');
}

/**
 * A CommandOutput as FastWorkflow's canonical pydantic types serialize it (profile C-33): strings
 * for the sketch's nullable fields, no top-level success (a property there), each CommandResponse
 * with its own success, Actions and Recommendations for next_actions and recommendations.
 */
function canonicalOutput(output: CommandOutput): Record<string, unknown> {
  return {
    command_responses: output.command_responses.map((r) => ({
      response: r.response ?? '',
      success: output.success !== false,
      artifacts: r.artifacts ?? {},
      next_actions: (r.next_actions ?? []).map((a) => ({ command_name: a.command_name, command: '', parameters: { ...(a.arguments ?? {}) } })),
      recommendations: (r.recommendations ?? []).map((summary) => ({ summary, suggested_actions: [] })),
    })),
    workflow_name: output.workflow_name ?? '',
    context: output.context ?? '',
    command_name: output.command_name ?? '',
    command_parameters: parameterString(output.command_parameters),
  };
}

function prose(value: unknown, indent = ''): string {
  if (!isRecord(value)) return `${indent}${String(value)}`;
  return Object.entries(value)
    .map(([k, v]) => (isRecord(v) || Array.isArray(v) ? `${indent}${k}: ${JSON.stringify(v)}` : `${indent}${k}: ${String(v)}`))
    .join('\n');
}

/** The per-server state of the profile: runtimes by connection id, and the tools that use them. */
export class FastWorkflowProfile {
  readonly settings: ProfileSettings;
  readonly #runtimes = new Map<string, SessionRuntime>();
  /** initialize calls still binding (fault initialize-invalid-accepted answers before binding ends). */
  readonly #binding = new Map<string, Promise<unknown>>();

  constructor(settings: ProfileSettings) {
    this.settings = settings;
  }

  runtime(connectionId: string): SessionRuntime | undefined {
    return this.#runtimes.get(connectionId);
  }

  /** The runtime a request's session uses (keyed by its MCP session, FW-TRANSPORT-3). */
  runtimeOf(ctx: ServerSessionContext): SessionRuntime | undefined {
    return this.#runtimes.get(this.#key(ctx));
  }

  /** The key of a session's runtime: its connection id, or one shared key under tool-state-shared. */
  #key(ctx: ServerSessionContext): string {
    return ctx.faults.has(F.toolStateShared) ? SHARED_RUNTIME : ctx.connectionId;
  }

  endSession(ctx: ServerSessionContext): void {
    // The shared runtime of tool-state-shared outlives any one session.
    if (ctx.faults.has(F.toolStateShared)) return;
    this.#runtimes.get(ctx.connectionId)?.end();
    this.#runtimes.delete(ctx.connectionId);
  }

  // ---- results and failures ---------------------------------------------------------------------

  #success(value: unknown, ctx: RequestContext): ToolResult {
    if (value instanceof RawText) return { content: [{ type: 'text', text: value.text }] };
    if (ctx.faults.has(F.resultAsProse)) return { content: [{ type: 'text', text: prose(value) }] };
    // fastapi_mcp returns an endpoint's JSON body indented, as one text item.
    if (this.settings.readings.resultEncoding === 'text') return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }

  /** A failure in the style its status takes; fault failure-as-success (FW-ERR-1) answers its body as a success. */
  #failure(failure: FastWorkflowFailure, tool: string, ctx: RequestContext): ToolResult {
    if (ctx.faults.has(F.failureAsSuccess)) return { content: [{ type: 'text', text: JSON.stringify(failure.body()) }], structuredContent: failure.body() };
    const reported = ctx.faults.has(F.failureWithoutContext) ? new FastWorkflowFailure(failure.httpStatus, failure.message) : failure;
    return reportFailure(reported, styleFor(this.settings.readings.failureStyle, failure.httpStatus), ctx.faults.has(F.failureWithoutStatus), tool);
  }

  /** Wraps a handler: its value becomes the result, its failure a FastWorkflow failure (unexpected errors are 500s, FW-ERR-5). */
  #tool(name: string, description: string, inputSchema: object, handler: (args: Record<string, unknown>, ctx: RequestContext) => Promise<unknown>): FastWorkflowTool {
    return {
      name,
      description,
      inputSchema,
      call: async (args, ctx) => {
        try {
          return this.#success(await handler(args, ctx), ctx);
        } catch (error) {
          if (ctx.cancelled.aborted && !(error instanceof FastWorkflowFailure)) throw error;
          const failure =
            error instanceof FastWorkflowFailure
              ? error
              : internal(`${name} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`, this.runtimeOf(ctx)?.context(), error);
          if (failure.httpStatus === 500) ctx.log('error', { tool: name, error: failure.message, stack: failure.cause instanceof Error ? failure.cause.stack : undefined }, TRACE_LOGGER);
          return this.#failure(failure, name, ctx);
        }
      },
      argumentsRejected: (problems, ctx) => {
        const runtime = this.runtimeOf(ctx);
        const message = `invalid arguments for ${name}: ${problems}`;
        if (name === 'initialize' && ctx.faults.has(F.initializeInvalidAccepted)) return this.#acceptInvalidInitialize(ctx);
        // initialize's own validation is FW-SESSION-8 (always 422); the other tools' is FW-ERR-2.
        const failure = name === 'initialize' ? unprocessable(message) : this.#badArgument(ctx, message, runtime?.context() ?? {});
        return this.#failure(failure, name, ctx);
      },
    };
  }

  /**
   * Fault initialize-invalid-accepted behind a core that validates arguments first: the arguments
   * are not at hand there, so the session binds as if user_id were omitted, and the answer is the
   * success an accepting server gives. Later calls of the session wait for the binding.
   */
  #acceptInvalidInitialize(ctx: RequestContext): ToolResult {
    const key = this.#key(ctx);
    const binding = this.#bind(ctx, undefined, undefined)
      .catch((error: unknown) => ctx.log('error', { tool: 'initialize', error: error instanceof Error ? error.message : String(error) }, TRACE_LOGGER))
      .finally(() => {
        if (this.#binding.get(key) === binding) this.#binding.delete(key);
      });
    this.#binding.set(key, binding);
    return this.#success({ workflow_info: structuredClone(WORKFLOW_INFO) }, ctx);
  }

  /** A 422 for a bad argument (a 500 under wrong-status-mapping, FW-ERR-2). */
  #badArgument(ctx: RequestContext, message: string, context: FailureContext): FastWorkflowFailure {
    return ctx.faults.has(F.wrongStatusMapping) ? new FastWorkflowFailure(500, message, context) : unprocessable(message, context);
  }

  /** The session's runtime, or 404 until the initialize tool ran (FW-SESSION-1). */
  async #require(ctx: RequestContext): Promise<SessionRuntime> {
    await this.#binding.get(this.#key(ctx));
    const runtime = this.#runtimes.get(this.#key(ctx));
    if (runtime) return runtime;
    if (ctx.faults.has(F.toolsBeforeInitialize)) return this.#bind(ctx, undefined, undefined);
    throw notFound('no FastWorkflow session: call the initialize tool first');
  }

  #timeout(args: Record<string, unknown>, ctx: RequestContext, runtime: SessionRuntime): number {
    const value = args['timeout_seconds'];
    if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw this.#badArgument(ctx, 'timeout_seconds must be a positive number', { ...runtime.context(), parameter: 'timeout_seconds' });
    }
    return value;
  }

  #query(args: Record<string, unknown>, ctx: RequestContext, runtime: SessionRuntime): string {
    const value = args['user_query'];
    if (typeof value !== 'string' || value.trim() === '') {
      throw this.#badArgument(ctx, 'user_query must be a non-empty string', { ...runtime.context(), parameter: 'user_query' });
    }
    return value;
  }

  // ---- sessions ---------------------------------------------------------------------------------

  async #bind(ctx: RequestContext, userId: string | undefined, conversationId: string | null | undefined): Promise<SessionRuntime> {
    const previous = this.#runtimes.get(this.#key(ctx));
    if (previous?.turnInProgress) throw new FastWorkflowFailure(409, 'a turn is in progress; initialize again after it', previous.context());
    const user = userId ?? (ctx.faults.has(F.defaultUserIgnored) ? 'anonymous' : DEFAULT_USER);
    const store = ctx.faults.has(F.conversationsNotPersisted) ? new ConversationStore(new MemoryBackend(), { now: this.settings.now }) : this.settings.store;
    const requested = conversationId && !ctx.faults.has(F.initializeIgnoresConversationId) ? await store.get(user, conversationId) : undefined;
    const conversation = requested ?? (await store.latest(user)) ?? (await store.create(user, !ctx.faults.has(F.duplicateTopics)));
    const runtime = new SessionRuntime(user, conversation.conversation_id, store);
    previous?.end();
    this.#runtimes.set(this.#key(ctx), runtime);
    return runtime;
  }

  async initialize(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    let userId = args['user_id'];
    const conversationId = args['conversation_id'];
    if (userId !== undefined && (typeof userId !== 'string' || userId === '')) {
      if (!ctx.faults.has(F.initializeInvalidAccepted)) throw unprocessable('user_id must be a non-empty string', { parameter: 'user_id' });
      userId = String(userId);
    }
    if (conversationId !== undefined && conversationId !== null && (typeof conversationId !== 'string' || conversationId === '')) {
      if (!ctx.faults.has(F.initializeInvalidAccepted)) throw unprocessable('conversation_id must be a non-empty string or null', { parameter: 'conversation_id' });
    }
    for (const key of Object.keys(args)) {
      if (key !== 'user_id' && key !== 'conversation_id' && !ctx.faults.has(F.initializeInvalidAccepted)) {
        throw unprocessable(`initialize takes user_id and conversation_id only, not ${JSON.stringify(key)}`, { parameter: key });
      }
    }
    const runtime = await this.#bind(ctx, userId as string | undefined, typeof conversationId === 'string' ? conversationId : null);
    const info = structuredClone(WORKFLOW_INFO) as unknown as Record<string, unknown>;
    if (ctx.faults.has(F.initializeResultUnwrapped)) return info;
    // Members 004 does not name (rule 4): whom and which conversation the session is bound to.
    return this.settings.readings.extraMembers ? { workflow_info: info, user_id: runtime.userId, conversation_id: runtime.conversationId } : { workflow_info: info };
  }

  // ---- discovery --------------------------------------------------------------------------------

  async getWorkflowInfo(_args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const info: Record<string, unknown> = structuredClone(WORKFLOW_INFO) as unknown as Record<string, unknown>;
    if (ctx.faults.has(F.currentContextInWorkflowInfo)) info['current_context'] = runtime.workflow.context;
    if (this.settings.readings.extraMembers) info['workflow_version'] = '1.0';
    return info;
  }

  async getCommands(_args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const listed: Record<string, unknown>[] = runtime.workflow.commands().map((command) => ({ ...command }));
    if (this.settings.readings.extraMembers) for (const command of listed) command['context'] = runtime.workflow.context;
    return {
      display_text: runtime.workflow.displayText(),
      commands: ctx.faults.has(F.commandsWithoutParameters) ? listed.map(({ parameters: _p, ...rest }) => rest) : listed,
    };
  }

  // ---- turns ------------------------------------------------------------------------------------

  #environment(ctx: RequestContext, signal: AbortSignal, emit: (trace: TraceEvent) => Promise<void>): TurnEnvironment {
    return {
      signal,
      slowCommand: this.settings.slowCommand,
      now: this.settings.now,
      emit,
      timestampsInSeconds: ctx.faults.has(F.traceTimestampInSeconds),
    };
  }

  /**
   * CommandOutput as sent: the sketch or the canonical types (C-33), traces attached, null after
   * streaming (FW-STREAM-3 reading 2) or absent, fields dropped under command-response-fields-omitted.
   */
  #shape(output: CommandOutput, traces: TraceEvent[] | undefined | null, ctx: RequestContext): Record<string, unknown> {
    const shaped: Record<string, unknown> = this.settings.readings.dataContracts === 'canonical' ? canonicalOutput(output) : { ...output };
    if (traces !== undefined) shaped['traces'] = traces === null ? null : traces.map((trace) => this.#trace(trace));
    if (ctx.faults.has(F.commandResponseFieldsOmitted)) {
      delete shaped['command_parameters'];
      shaped['command_responses'] = output.command_responses.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)));
    }
    return shaped;
  }

  async #record(runtime: SessionRuntime, tool: string, query: string, outcome: TurnOutcome): Promise<void> {
    const { output } = outcome;
    const last = output.command_responses[output.command_responses.length - 1];
    const recorded = await runtime.store.appendTurn(
      runtime.userId,
      runtime.conversationId,
      { tool, query, command_name: output.command_name, success: output.success, response: last?.response ?? '' },
      true,
    );
    if (!recorded) throw internal('the active conversation disappeared from the store', runtime.context());
    runtime.actionLog.push(...outcome.traces);
  }

  /** Plans and runs an agent query clause by clause (server-side planning). */
  async #agentTurn(runtime: SessionRuntime, query: string, env: TurnEnvironment): Promise<TurnOutcome> {
    const recorder = new TurnRecorder(runtime.workflow, env);
    const clauses = splitClauses(query);
    for (const clause of clauses) {
      const plan = planClause(clause, runtime.workflow);
      if (!plan) {
        recorder.note({ response: `I could not map "${clause}" to a command of context ${runtime.workflow.context}.`, recommendations: runtime.workflow.commands().map((c) => c.examples[0]!) }, false);
        break;
      }
      let ok = true;
      for (const step of plan) {
        ok = await recorder.run(step);
        if (!ok) break;
      }
      if (!ok) break;
    }
    return recorder.outcome();
  }

  async invokeAgent(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const raw = this.#query(args, ctx, runtime);
    const timeoutSeconds = this.#timeout(args, ctx, runtime);
    const query = ctx.faults.has(F.leadingSlashKept) ? raw.trim() : raw.trim().replace(/^\/+/, '').trim();
    if (query === '') throw this.#badArgument(ctx, 'user_query is empty once the leading "/" is stripped', { ...runtime.context(), parameter: 'user_query' });
    const delivery = this.#delivery(ctx);
    let sent = 0;
    const lines: string[] = [];
    const emit = async (trace: TraceEvent): Promise<void> => {
      const event = { type: 'trace', data: this.#trace(trace) };
      if (delivery === 'notifications/progress') await ctx.reportProgress(++sent, undefined, JSON.stringify(event));
      else if (delivery === 'notifications/message') ctx.log('info', event, TRACE_LOGGER);
      else if (delivery === 'ndjson') lines.push(JSON.stringify(event));
    };
    const outcome = await runtime.turn(this.#turnOptions(ctx, timeoutSeconds), (signal) => this.#agentTurn(runtime, query, this.#environment(ctx, signal, emit)));
    await this.#record(runtime, 'invoke_agent', raw, outcome);
    if (delivery === 'attached') return this.#shape(outcome.output, ctx.faults.has(F.tracesNotAttached) ? undefined : outcome.traces, ctx);
    const afterStreaming = this.settings.readings.streamedTraces === 'null' ? null : undefined;
    const output = this.#shape(outcome.output, ctx.faults.has(F.tracesInStreamedOutput) ? outcome.traces : afterStreaming, ctx);
    const final = ctx.faults.has(F.outputEventMissing) ? output : { type: 'output', data: output };
    if (delivery === 'ndjson') return new RawText([...lines, JSON.stringify(final)].map((line) => `${line}\n`).join(''));
    return final;
  }

  #delivery(ctx: RequestContext): Exclude<TraceDelivery, 'auto'> {
    const configured = this.settings.readings.traceDelivery;
    // 2024-11-05 progress notifications carry no message, so there the traces are attached.
    const asked = ctx.progressToken !== undefined && ctx.protocolVersion !== '2024-11-05';
    if (configured === 'auto') return asked ? 'notifications/progress' : 'attached';
    if (configured === 'ndjson') return ctx.progressToken !== undefined ? 'ndjson' : 'attached';
    return configured;
  }

  /** A trace event as sent: with a member 004 does not name under extraMembers (FastWorkflow's turn_key). */
  #trace(trace: TraceEvent): Record<string, unknown> {
    return this.settings.readings.extraMembers ? { ...trace, turn_key: `turn-${trace.timestamp}` } : { ...trace };
  }

  #turnOptions(ctx: RequestContext, timeoutSeconds: number) {
    return {
      timeoutSeconds,
      cancelled: ctx.cancelled,
      allowConcurrent: ctx.faults.has(F.allowConcurrentTurns),
      noTimeout: ctx.faults.has(F.noTimeout),
    };
  }

  async invokeAssistant(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const query = this.#query(args, ctx, runtime).trim();
    const timeoutSeconds = this.#timeout(args, ctx, runtime);
    const outcome = await runtime.turn(this.#turnOptions(ctx, timeoutSeconds), async (signal) => {
      const recorder = new TurnRecorder(runtime.workflow, this.#environment(ctx, signal, async () => undefined));
      const plan = planClause(query, runtime.workflow);
      if (!plan) {
        recorder.note({ response: `I could not map "${query}" to a command of context ${runtime.workflow.context}.`, recommendations: runtime.workflow.commands().map((c) => c.examples[0]!) }, false);
      } else if (plan.length > 1) {
        // No planning in assistant mode: say which commands it would take.
        recorder.note(
          {
            response: `This takes ${plan.length} commands; run them one at a time or use invoke_agent.`,
            next_actions: plan.map((step) => ({ command_name: step.name, arguments: { ...step.parameters } })),
          },
          false,
        );
      } else {
        await recorder.run(plan[0]!);
      }
      return recorder.outcome();
    });
    await this.#record(runtime, 'invoke_assistant', query, outcome);
    if (ctx.faults.has(F.assistantReturnsCommandResult)) {
      return { response_text: outcome.output.command_responses.map((r) => r.response ?? '').join('\n'), success: outcome.output.success === true };
    }
    return this.#shape(outcome.output, ctx.faults.has(F.tracesNotAttached) ? undefined : outcome.traces, ctx);
  }

  async executeCommand(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const command = args['command'];
    if (typeof command !== 'string') throw this.#badArgument(ctx, 'command must be a string', { ...runtime.context(), parameter: 'command' });
    let parsed;
    try {
      parsed = parseCommand(command);
      runtime.workflow.resolve(parsed);
    } catch (error) {
      if (!(error instanceof CommandSyntaxError || error instanceof CommandRejectedError)) throw error;
      if (ctx.faults.has(F.malformedCommandAccepted)) return { response_text: error.message, success: false };
      const detail = error instanceof CommandSyntaxError ? { offset: error.offset } : { reason: error.code, ...(error.parameter ? { parameter: error.parameter } : {}) };
      throw unprocessable(`malformed command: ${error.message}`, { ...runtime.context(), ...detail });
    }
    const outcome = await runtime.turn(this.#turnOptions(ctx, DEFAULT_TIMEOUT_SECONDS), async (signal) => {
      const recorder = new TurnRecorder(runtime.workflow, this.#environment(ctx, signal, async () => undefined));
      await recorder.run(parsed);
      return recorder.outcome();
    });
    await this.#record(runtime, 'execute_command', command, outcome);
    return {
      response_text: outcome.output.command_responses.map((r) => r.response ?? '').join('\n'),
      success: outcome.output.success === true,
      traces: outcome.traces.map((trace) => this.#trace(trace)),
    };
  }

  // ---- conversations ----------------------------------------------------------------------------

  async newConversation(_args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    if (ctx.faults.has(F.newConversationKeepsId)) return { status: 'ok', new_conversation_id: runtime.conversationId };
    const distinct = !ctx.faults.has(F.duplicateTopics);
    try {
      await runtime.store.finalize(runtime.userId, runtime.conversationId, this.settings.summarize, distinct);
    } catch (error) {
      // FW-CONV-7: the summary failed, so the conversation does not rotate.
      throw internal(`could not summarise the conversation: ${error instanceof Error ? error.message : String(error)}`, runtime.context(), error);
    }
    const created = await runtime.store.create(runtime.userId, distinct);
    runtime.conversationId = created.conversation_id;
    return { status: 'ok', new_conversation_id: created.conversation_id };
  }

  async listConversations(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const limit = args['limit'] ?? 10;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      throw this.#badArgument(ctx, 'limit must be a positive integer', { ...runtime.context(), parameter: 'limit' });
    }
    const options = { storedOnly: this.settings.readings.listing === 'stored', withCreatedAt: this.settings.readings.extraMembers };
    const all = ctx.faults.has(F.conversationsVisibleAcrossUsers)
      ? await runtime.store.listEveryone(Number.POSITIVE_INFINITY, options)
      : await runtime.store.list(runtime.userId, Number.POSITIVE_INFINITY, options);
    const ordered = ctx.faults.has(F.conversationsOldestFirst) ? all.reverse() : all;
    return { conversations: ordered.slice(0, limit) };
  }

  async activateConversation(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const id = args['conversation_id'];
    if (typeof id !== 'string' || id === '') throw this.#badArgument(ctx, 'conversation_id must be a non-empty string', { ...runtime.context(), parameter: 'conversation_id' });
    const found = await runtime.store.get(runtime.userId, id);
    if (!found) {
      if (ctx.faults.has(F.activateUnknownConversationOk)) return { status: 'ok' };
      throw notFound(`conversation ${JSON.stringify(id)} not found for user ${JSON.stringify(runtime.userId)}`, { user_id: runtime.userId, conversation_id: id });
    }
    if (runtime.turnInProgress) throw new FastWorkflowFailure(409, 'a turn is in progress; activate the conversation after it', runtime.context());
    runtime.conversationId = id;
    return { status: 'ok' };
  }

  async postFeedback(args: Record<string, unknown>, ctx: RequestContext): Promise<unknown> {
    const runtime = await this.#require(ctx);
    const score = args['binary_or_numeric_score'] ?? null;
    const text = args['nl_feedback'] ?? null;
    if (score !== null && typeof score !== 'boolean' && (typeof score !== 'number' || !Number.isFinite(score))) {
      throw this.#badArgument(ctx, 'binary_or_numeric_score must be a boolean, a number or null', { ...runtime.context(), parameter: 'binary_or_numeric_score' });
    }
    if (text !== null && typeof text !== 'string') {
      throw this.#badArgument(ctx, 'nl_feedback must be a string or null', { ...runtime.context(), parameter: 'nl_feedback' });
    }
    if (score === null && text === null) {
      if (ctx.faults.has(F.feedbackBothNullAccepted)) return { status: 'ok' };
      throw unprocessable('binary_or_numeric_score and nl_feedback are both null; give at least one', runtime.context());
    }
    const attached = await runtime.store.attachFeedback(runtime.userId, runtime.conversationId, { binary_or_numeric_score: score, nl_feedback: text });
    if (attached === 'no-conversation') throw notFound('the active conversation no longer exists', runtime.context());
    return { status: 'ok' };
  }

  /**
   * The admin endpoint 004 keeps off MCP (dump_all_conversations), listed only under fault
   * admin-tool-exposed (FW-TOOL-2): every user's conversations, no initialize needed.
   */
  adminDumpTool(): FastWorkflowTool {
    return this.#tool(
      'dump_all_conversations',
      "Admin: every user's conversations.",
      { type: 'object', properties: {}, additionalProperties: false },
      async () => ({ conversations: await this.settings.store.listEveryone(Number.POSITIVE_INFINITY) }),
    );
  }

  // ---- the tool list ----------------------------------------------------------------------------

  tools(): FastWorkflowTool[] {
    const bind = (handler: (args: Record<string, unknown>, ctx: RequestContext) => Promise<unknown>) => handler.bind(this);
    const none = { type: 'object', properties: {}, additionalProperties: false };
    const query = {
      type: 'object',
      properties: {
        user_query: { type: 'string', minLength: 1, description: 'The request in natural language (or a command string).' },
        timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: DEFAULT_TIMEOUT_SECONDS, description: 'Fail with 504 when no output arrives in time.' },
      },
      required: ['user_query'],
      additionalProperties: false,
    };
    return [
      this.#tool(
        'initialize',
        'Create or resume a user session bound to the workflow; restores the given conversation, else the last one, else starts one.',
        {
          type: 'object',
          properties: {
            user_id: { type: 'string', minLength: 1, description: `The user (default "${DEFAULT_USER}").` },
            conversation_id: { type: ['string', 'null'], minLength: 1, description: 'The conversation to restore.' },
          },
          additionalProperties: false,
        },
        bind(this.initialize),
      ),
      this.#tool('get_workflow_info', "The workflow's name, description, purpose and contexts.", none, bind(this.getWorkflowInfo)),
      this.#tool('get_commands', 'Commands of the active context, as text and as structured metadata.', none, bind(this.getCommands)),
      this.#tool('invoke_agent', 'An agentic turn: the server plans and runs commands; trace events stream while it runs.', query, bind(this.invokeAgent)),
      this.#tool('invoke_assistant', 'A deterministic turn: the query is one instruction, run without planning.', query, bind(this.invokeAssistant)),
      this.#tool(
        'execute_command',
        'Run one command string: QualifiedName <param>value</param> ...',
        { type: 'object', properties: { command: { type: 'string', minLength: 1, description: 'The command.' } }, required: ['command'], additionalProperties: false },
        bind(this.executeCommand),
      ),
      this.#tool('new_conversation', 'Store the current conversation with its topic and summary and start a new one.', none, bind(this.newConversation)),
      this.#tool(
        'list_conversations',
        "The user's latest conversations, most recently updated first.",
        { type: 'object', properties: { limit: { type: 'integer', minimum: 1, default: 10 } }, additionalProperties: false },
        bind(this.listConversations),
      ),
      this.#tool(
        'activate_conversation',
        'Switch to another conversation of this user.',
        { type: 'object', properties: { conversation_id: { type: 'string', minLength: 1 } }, required: ['conversation_id'], additionalProperties: false },
        bind(this.activateConversation),
      ),
      this.#tool(
        'post_feedback',
        'Attach feedback to the latest turn of the active conversation; at least one field must be non-null.',
        {
          type: 'object',
          properties: {
            binary_or_numeric_score: { type: ['boolean', 'number', 'null'] },
            nl_feedback: { type: ['string', 'null'] },
          },
          additionalProperties: false,
        },
        bind(this.postFeedback),
      ),
    ];
  }
}
