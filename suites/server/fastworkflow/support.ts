// What the FastWorkflow cases share (seed 004, docs/profile.md FW-*): applicability, MCP sessions
// on the case's connection and extra ones opened with raw HTTP (for cross-session checks), tool
// calls whose results are read the way FW-TOOL-3 allows, failures read the way FW-ERR-1 allows,
// and the commands a case can run on a workflow it does not know.
import { TargetPreconditionError, type Applicability, type CaseContext, type Discovery } from '../../../src/harness/index.js';
import { detectFastWorkflowFailure, type FailureDetection } from '../../../src/protocol/fastworkflow-errors.js';
import { SchemaRegistry } from '../../../src/schema/registry.js';
import { isRecord } from '../../../src/wire/index.js';
import { initializeParams, isResponseTo, openSession, SETUP_ANSWER_MS, type Message } from '../support.js';

export const SUITE = 'fastworkflow';

/** The ten tools of 004 §5 (FW-TOOL-1). */
export const FASTWORKFLOW_TOOLS = [
  'initialize',
  'get_workflow_info',
  'get_commands',
  'invoke_agent',
  'invoke_assistant',
  'execute_command',
  'new_conversation',
  'list_conversations',
  'activate_conversation',
  'post_feedback',
] as const;

/**
 * Agent-internal and admin tools 004 keeps off the MCP surface (FW-TOOL-2). Export tools are the
 * admin dump/export of conversations (004 §5, §8); an unrelated tool that exports a file is not one.
 */
export const INTERNAL_TOOLS = ['ask_user', 'intent_misunderstood', 'perform_action', 'dump_all_conversations'] as const;
export const EXPORT_TOOL = /(export|dump)[_-]?(all[_-]?)?(user[_-]?)?conversations?|conversations?[_-]?(export|dump)/i;

/** The session-id header of MCP Streamable HTTP. */
export const SESSION_HEADER = 'Mcp-Session-Id';

/** Applicability: the target lists the 004 tool surface (at least get_workflow_info and invoke_agent). */
export function requiresFastWorkflow(discovery: Discovery): Applicability {
  const tools = discovery.tools ?? [];
  return tools.includes('get_workflow_info') && tools.includes('invoke_agent')
    ? true
    : 'the target does not look like a FastWorkflow server (tools/list has no get_workflow_info and invoke_agent)';
}

let schemas: SchemaRegistry | undefined;
/** Problems of `value` against schemas/fastworkflow/<slug>.schema.json, as readable strings ([] when valid). */
export function schemaProblems(slug: string, value: unknown): string[] {
  schemas ??= SchemaRegistry.load();
  return schemas.validate(`fastworkflow/${slug}`, value).map((issue) => JSON.stringify(issue));
}

/** A unique user id per case run, so parallel cases never share conversations. */
export function uniqueUser(ctx: CaseContext, role = 'user'): string {
  return `conformance-${ctx.caseId.replace(/[^a-z0-9]+/g, '-')}-${role}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

// ---- MCP sessions -------------------------------------------------------------------------------

/** One MCP session a case talks through: the case's own connection, or one opened with raw HTTP. */
export interface McpSession {
  readonly label: string;
  /**
   * Sends a request and waits for its answer; `undefined` when none came in time (the caller
   * decides whether that is a failed check or a broken precondition). `sentAt`/`answeredAt` in ms.
   */
  ask(method: string, params?: Message, options?: { timeoutMs?: number }): Promise<Answer>;
}

export interface Answer {
  /** The JSON-RPC response, or undefined when none came in time. */
  response: Message | undefined;
  sentAt: number;
  answeredAt: number;
  /** Notifications that arrived with the answer (progress, log messages). */
  notifications: Message[];
}

const isNotification = (message: unknown): message is Message => isRecord(message) && typeof message.method === 'string' && !('id' in message);

/** Takes every queued notification off the case's connection, in arrival order. */
async function takeNotifications(ctx: CaseContext): Promise<Message[]> {
  const taken: Message[] = [];
  for (const queued of ctx.connection.pending()) {
    if (!isNotification(queued.message)) continue;
    taken.push((await ctx.next((r) => r === queued, { timeoutMs: 1_000 })).message as Message);
  }
  return taken;
}

/** The case's own connection, after `openSession`. */
export function mainSession(ctx: CaseContext): McpSession {
  return {
    label: 'the case session',
    async ask(method, params, options = {}) {
      await takeNotifications(ctx); // stale ones belong to earlier calls
      const id = ctx.nextId();
      const sentAt = Date.now();
      await ctx.connection.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
      let response: Message | undefined;
      try {
        response = (await ctx.next((r) => isResponseTo(r.message, id), { timeoutMs: options.timeoutMs ?? SETUP_ANSWER_MS })).message as Message;
      } catch (error) {
        if (ctx.signal.aborted) throw error;
      }
      const answeredAt = Date.now();
      return { response, sentAt, answeredAt, notifications: await takeNotifications(ctx) };
    },
  };
}

/** Opens the case's own MCP session (initialize + initialized) and returns it. */
export async function openMainSession(ctx: CaseContext): Promise<McpSession> {
  await openSession(ctx);
  return mainSession(ctx);
}

/**
 * A second MCP session on the same endpoint, driven with raw HTTP requests through the case's
 * connection (its transcript records them). Streamable HTTP only.
 */
export async function openSideSession(ctx: CaseContext, label = 'a second session'): Promise<McpSession & { sessionId: string; close(): Promise<void> }> {
  const http = ctx.connection.http;
  if (!http) throw new TargetPreconditionError('a second MCP session needs the Streamable HTTP transport');
  const timeoutMs = ctx.scaled(SETUP_ANSWER_MS);
  const id = `side-${ctx.nextId()}`;
  const params = initializeParams(ctx);
  const opened = await http.request(
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params }),
      omitSessionId: true,
    },
    { timeoutMs, signal: ctx.signal },
  );
  const sessionId = opened.headers['mcp-session-id'];
  const answer = opened.messages.find((m) => isResponseTo(m, id)) as Message | undefined;
  if (!answer || !isRecord(answer.result)) throw new TargetPreconditionError(`${label}: initialize was answered with HTTP ${opened.status} and no result`, { actual: answer ?? opened.text });
  if (sessionId === undefined) throw new TargetPreconditionError(`${label}: the initialize response carried no ${SESSION_HEADER} header`, { requirement: 'FW-TRANSPORT-3' });
  const version = typeof answer.result.protocolVersion === 'string' ? answer.result.protocolVersion : String(params.protocolVersion);
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    [SESSION_HEADER]: sessionId,
    'MCP-Protocol-Version': version,
  };
  await http.request({ method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), omitSessionId: true }, { timeoutMs, signal: ctx.signal });
  let next = 1;
  return {
    label,
    sessionId,
    async ask(method, requestParams, options = {}) {
      const requestId = `${id}-${next++}`;
      const sentAt = Date.now();
      let response: Message | undefined;
      let notifications: Message[] = [];
      try {
        const raw = await http.request(
          { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: requestId, method, ...(requestParams !== undefined ? { params: requestParams } : {}) }), omitSessionId: true },
          { timeoutMs: ctx.scaled(options.timeoutMs ?? SETUP_ANSWER_MS), signal: ctx.signal },
        );
        response = raw.messages.find((m) => isResponseTo(m, requestId)) as Message | undefined;
        notifications = raw.messages.filter(isNotification);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
      }
      return { response, sentAt, answeredAt: Date.now(), notifications };
    },
    async close() {
      await http.request({ method: 'DELETE', headers: { [SESSION_HEADER]: sessionId }, omitSessionId: true }, { timeoutMs, signal: ctx.signal }).catch(() => undefined);
    },
  };
}

// ---- tool calls ---------------------------------------------------------------------------------

export interface ToolCallOptions {
  /** Adds `_meta.progressToken` (asks for streamed progress). */
  progressToken?: string | number;
  timeoutMs?: number;
}

/** `tools/call` of one FastWorkflow tool. */
export function callTool(session: McpSession, name: string, args: Message = {}, options: ToolCallOptions = {}): Promise<Answer> {
  const params: Message = { name, arguments: args };
  if (options.progressToken !== undefined) params['_meta'] = { progressToken: options.progressToken };
  return session.ask('tools/call', params, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {});
}

/** How a successful tool result carried its JSON object (FW-TOOL-3). */
export type PayloadReading = 'structuredContent' | 'one text content item holding the JSON';

export type PayloadRead =
  | { ok: true; value: unknown; reading: PayloadReading; text?: string }
  | { ok: false; why: string };

/** The documented JSON of a successful tools/call result: structuredContent, else the JSON text of one text item. */
export function readPayload(response: Message | undefined): PayloadRead {
  if (!response) return { ok: false, why: 'no answer' };
  const result = response.result;
  if (!isRecord(result)) return { ok: false, why: 'the answer is not a result' };
  if (result.isError === true) return { ok: false, why: 'the result has isError: true' };
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.filter((item): item is { type: 'text'; text: string } => isRecord(item) && item.type === 'text' && typeof item.text === 'string');
  if (result.structuredContent !== undefined && isRecord(result.structuredContent)) {
    return { ok: true, value: result.structuredContent, reading: 'structuredContent', ...(texts.length === 1 ? { text: texts[0]!.text } : {}) };
  }
  if (texts.length !== 1) return { ok: false, why: `no structuredContent and ${texts.length} text content items (expected one holding the JSON)` };
  try {
    return { ok: true, value: JSON.parse(texts[0]!.text), reading: 'one text content item holding the JSON', text: texts[0]!.text };
  } catch {
    return { ok: false, why: 'no structuredContent and the text content item is not JSON' };
  }
}

/** The failure reading of an answer (FW-ERR-1); a missing answer is `undefined`. */
export function failureOf(answer: Answer): FailureDetection | undefined {
  return answer.response === undefined ? undefined : detectFastWorkflowFailure(answer.response);
}

/** Calls a tool as a set-up step: a failure or a non-object payload is the target's broken precondition. */
export async function useTool(session: McpSession, name: string, args: Message = {}, requirement?: string, options: ToolCallOptions = {}): Promise<Record<string, unknown>> {
  const answer = await callTool(session, name, args, options);
  const read = readPayload(answer.response);
  if (!read.ok || !isRecord(read.value)) {
    const why = read.ok ? 'its JSON is not an object' : read.why;
    throw new TargetPreconditionError(`${name} on ${session.label} did not succeed (${why})`, {
      ...(requirement !== undefined ? { requirement } : {}),
      actual: answer.response ?? 'no answer',
    });
  }
  return read.value;
}

/** The `initialize` tool (user_id when given) as a set-up step; returns its payload. */
export function initializeTool(session: McpSession, args: Message = {}, requirement?: string): Promise<Record<string, unknown>> {
  return useTool(session, 'initialize', args, requirement);
}

/**
 * Checks that `answer` is a failure whose HTTP-equivalent status is `status` (FW-ERR-1/2 readings).
 * A missing answer is a failed check too.
 */
export function checkStatus(ctx: CaseContext, requirement: string, answer: Answer, status: number, what: string): boolean {
  const detection = failureOf(answer);
  return ctx.check(requirement, detection !== undefined && detection.failed && detection.status === status, {
    message: `${what} fails with a ${status}-equivalent error`,
    expected: { httpStatus: status },
    actual: detection === undefined ? 'no answer' : detection.failed ? { httpStatus: detection.status ?? 'unreadable', answer: answer.response } : { success: answer.response },
  });
}

// ---- the workflow's commands ------------------------------------------------------------------

export interface CommandInfo {
  name: string;
  description: string;
  parameters: { name: string; required: boolean }[];
}

/** get_commands as a set-up step, read leniently (its shape is FW-TOOL-5's business). */
export async function workflowCommands(session: McpSession): Promise<CommandInfo[]> {
  const payload = await useTool(session, 'get_commands');
  const commands = Array.isArray(payload.commands) ? payload.commands : [];
  return commands.filter(isRecord).flatMap((c) =>
    typeof c.name === 'string'
      ? [{
          name: c.name,
          description: typeof c.description === 'string' ? c.description : '',
          parameters: (Array.isArray(c.parameters) ? c.parameters : []).filter(isRecord).map((p) => ({ name: String(p.name), required: p.required === true })),
        }]
      : [],
  );
}

const takesNoArguments = (command: CommandInfo) => command.parameters.every((p) => !p.required);

/**
 * A query every workflow answers without side effects: 004's `what_is_current_context` command
 * when get_commands lists it, else the first command without required parameters.
 */
export function harmlessCommand(commands: readonly CommandInfo[]): string {
  const found = commands.find((c) => /(^|\/)what_is_current_context$/.test(c.name)) ?? commands.find(takesNoArguments);
  if (!found) throw new TargetPreconditionError('get_commands lists neither what_is_current_context nor any command without required parameters');
  return found.name;
}

/**
 * A command without required parameters that says it takes a while (slow, sync, long-running),
 * to hold a turn in progress; undefined when the workflow has none (turns of an LLM-backed agent
 * are slow anyway).
 */
export function slowCommand(commands: readonly CommandInfo[]): string | undefined {
  return commands.find((c) => takesNoArguments(c) && /\bslow\b|long[- ]running|sync/i.test(`${c.name} ${c.description}`))?.name;
}

// ---- turns and trace events -------------------------------------------------------------------

/** A `{"type": ..., "data": ...}` stream event (004 §6.1), or undefined. */
export function streamEvent(value: unknown): { type: string; data: unknown } | undefined {
  return isRecord(value) && typeof value.type === 'string' && 'data' in value ? { type: value.type, data: value.data } : undefined;
}

/**
 * Trace events streamed during a call (profile C-27 reading 1): notifications/progress whose
 * message is the JSON of an event, and notifications/message whose data is an event.
 */
export function streamedEvents(answer: Answer): { via: string; event: unknown }[] {
  const events: { via: string; event: unknown }[] = [];
  for (const notification of answer.notifications) {
    const params = isRecord(notification.params) ? notification.params : {};
    if (notification.method === 'notifications/progress' && typeof params.message === 'string') {
      try {
        const event = JSON.parse(params.message);
        if (streamEvent(event)) events.push({ via: 'notifications/progress', event });
      } catch {
        // A plain progress message is not a trace event.
      }
    } else if (notification.method === 'notifications/message' && streamEvent(params.data)) {
      events.push({ via: 'notifications/message', event: params.data });
    }
  }
  return events;
}

/** NDJSON lines in a tool result's text (profile C-27 reading 2), when every line is an event. */
export function ndjsonEvents(text: string | undefined): unknown[] | undefined {
  if (text === undefined) return undefined;
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length < 2) return undefined;
  const events: unknown[] = [];
  for (const line of lines) {
    try {
      const event = JSON.parse(line);
      if (!streamEvent(event)) return undefined;
      events.push(event);
    } catch {
      return undefined;
    }
  }
  return events;
}

/** A case's view of one invoke_agent/invoke_assistant turn: how its output came back. */
export interface TurnView {
  answer: Answer;
  /** Streamed events in order (notifications, or NDJSON lines), including the final output event when it was one. */
  events: unknown[];
  /** How partial events travelled (a C-27 reading). */
  delivery: 'trace events as notifications/progress or notifications/message during the call' | 'NDJSON lines in the tool result' | 'only the final output';
  /** The final CommandOutput, unwrapped from an output event when it was one. */
  output: unknown;
  /** The tool result's JSON as read (an output event or a bare CommandOutput). */
  final: unknown;
  read: PayloadRead;
}

/** Runs a turn and sorts out its events and output (nothing is checked here). */
export async function runTurn(session: McpSession, tool: 'invoke_agent' | 'invoke_assistant', args: Message, options: ToolCallOptions = {}): Promise<TurnView> {
  const answer = await callTool(session, tool, args, options);
  const read = readPayload(answer.response);
  const notified = streamedEvents(answer).map((e) => e.event);
  const lines = read.ok ? ndjsonEvents(read.text) : undefined;
  let events: unknown[] = [];
  let delivery: TurnView['delivery'] = 'only the final output';
  let final: unknown = read.ok ? read.value : undefined;
  if (lines) {
    events = lines;
    delivery = 'NDJSON lines in the tool result';
    final = lines[lines.length - 1];
  } else if (notified.length > 0) {
    events = [...notified, ...(final !== undefined ? [final] : [])];
    delivery = 'trace events as notifications/progress or notifications/message during the call';
  }
  const wrapped = streamEvent(final);
  const output = wrapped?.type === 'output' ? wrapped.data : final;
  return { answer, events, delivery, output, final, read };
}
