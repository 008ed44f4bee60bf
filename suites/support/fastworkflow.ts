// What the FastWorkflow cases share (seed 004, docs/profile.md FW-*): applicability, MCP sessions
// on the case's connection and extra ones opened with raw HTTP (for cross-session checks), tool
// calls whose results are read the way FW-TOOL-3 allows, failures read the way FW-ERR-1 and
// FW-ERR-4 allow (C-26), shapes whose unnamed members are INFO notes (rule 4), and the commands a
// case can run on a workflow it does not know.
import { TargetPreconditionError, type Applicability, type CaseContext, type Discovery } from '../../src/harness/index.js';
import { detectFastWorkflowFailure, FAILURE_READING_NAMES, type FailureDetection } from '../../src/protocol/fastworkflow-errors.js';
import { SchemaRegistry } from '../../src/schema/registry.js';
import { isRecord } from '../../src/wire/index.js';
import { initializeParams, isResponseTo, notification, openSession, request, SETUP_ANSWER_MS, type Message } from './session.js';

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

/**
 * `value` against schemas/fastworkflow/<slug>.schema.json: the problems (a missing member, a wrong
 * type or constant: these fail), and the members the schema does not name (INFO notes, rule 4).
 */
export interface Shape {
  problems: string[];
  /** JSON pointers of members the documents do not name. */
  extras: string[];
}

export function shapeOf(slug: string, value: unknown): Shape {
  schemas ??= SchemaRegistry.load();
  const id = `fastworkflow/${slug}`;
  // The registry validates the required shape only; the members it does not name come apart (rule 4).
  return {
    problems: schemas.validate(id, value).map((issue) => JSON.stringify(issue)),
    extras: schemas.extraMembers(id, value).map((member) => member.pointer),
  };
}

/** Reports members the documents do not name as an INFO note (rule 4), when there are any. */
export function noteExtras(ctx: CaseContext, requirement: string, what: string, extras: readonly string[]): void {
  if (extras.length > 0) ctx.info(requirement, `${what}: members 004 does not name (an INFO note, not a failure): ${[...new Set(extras)].slice(0, 10).join(', ')}`);
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
      await ctx.connection.send(request(id, method, params));
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
      body: JSON.stringify(request(id, 'initialize', params)),
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
  await http.request({ method: 'POST', headers, body: JSON.stringify(notification('notifications/initialized')), omitSessionId: true }, { timeoutMs, signal: ctx.signal });
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
          { method: 'POST', headers, body: JSON.stringify(request(requestId, method, requestParams)), omitSessionId: true },
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
  /** `others`: content items besides the one holding the JSON (INFO notes). */
  | { ok: true; value: unknown; reading: PayloadReading; text?: string; others: number }
  /** `text`: the result's only text item, when it has one (NDJSON lines are read from it). */
  | { ok: false; why: string; text?: string };

function parsedJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * The documented JSON of a successful tools/call result: structuredContent, else the JSON text of
 * the one text item that holds JSON (further content items may accompany it, FW-TOOL-3).
 */
export function readPayload(response: Message | undefined): PayloadRead {
  if (!response) return { ok: false, why: 'no answer' };
  const result = response.result;
  if (!isRecord(result)) return { ok: false, why: 'the answer is not a result' };
  if (result.isError === true) return { ok: false, why: 'the result has isError: true' };
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.filter((item): item is { type: 'text'; text: string } => isRecord(item) && item.type === 'text' && typeof item.text === 'string').map((item) => item.text);
  const only = texts.length === 1 ? { text: texts[0]! } : {};
  if (result.structuredContent !== undefined && isRecord(result.structuredContent)) {
    return { ok: true, value: result.structuredContent, reading: 'structuredContent', ...only, others: 0 };
  }
  const json = texts.flatMap((text) => {
    const parsed = parsedJson(text);
    return parsed ? [{ text, value: parsed.value }] : [];
  });
  if (json.length === 1) return { ok: true, value: json[0]!.value, reading: 'one text content item holding the JSON', text: json[0]!.text, others: content.length - 1 };
  if (json.length === 0) return { ok: false, why: `no structuredContent and none of ${texts.length} text content item(s) holds JSON`, ...only };
  return { ok: false, why: `no structuredContent and ${json.length} text content items hold JSON (expected one)` };
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
 * Checks that `answer` is a failure (FW-ERR-1) and, where its HTTP-equivalent status can be read
 * (FW-ERR-4), that the status is `status` (004 §10's table, FW-ERR-2). A failure whose status
 * cannot be read passes with an INFO note: how MCP carries the status is open (C-26), and
 * FW-ERR-4 warns about it once, in fastworkflow/failure-data. A missing answer fails: a request
 * is owed a response. Returns the detection (undefined without an answer).
 */
export function checkFailure(ctx: CaseContext, requirement: string, answer: Answer, status: number, what: string): FailureDetection | undefined {
  const detection = failureOf(answer);
  if (detection === undefined) {
    ctx.check(requirement, false, { message: `${what} is answered (with a failure)`, expected: { httpStatus: status }, actual: 'no answer' });
    return undefined;
  }
  if (!detection.failed) {
    ctx.check(requirement, false, {
      message: `${what} fails (a JSON-RPC error or an isError result), with status ${status} where the status can be read`,
      expected: { httpStatus: status },
      actual: { success: answer.response },
    });
    return detection;
  }
  if (detection.status === undefined) {
    ctx.check(requirement, true, { message: `${what} fails` });
    ctx.info(requirement, `${what} fails, but its HTTP-equivalent status cannot be read back (FW-ERR-4), so the status is not judged`, answer.response);
    return detection;
  }
  if (detection.reading !== 'data.httpStatus') ctx.info(requirement, `${what}: status ${detection.status}, read as: ${FAILURE_READING_NAMES[detection.reading]}`);
  ctx.check(requirement, detection.status === status, {
    message: `${what} fails with status ${status}`,
    expected: { httpStatus: status },
    actual: { httpStatus: detection.status, reading: FAILURE_READING_NAMES[detection.reading], answer: answer.response },
  });
  return detection;
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

/** NDJSON lines in a tool result's text (profile C-27 reading 2), when there are several and every line is an event. */
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
  const payload = readPayload(answer.response);
  const notified = streamedEvents(answer).map((e) => e.event);
  // NDJSON text is no one JSON document: its lines are the result (the event stream).
  const lines = ndjsonEvents(payload.text);
  const read: PayloadRead = lines ? { ok: true, value: lines[lines.length - 1], reading: 'one text content item holding the JSON', text: payload.text!, others: 0 } : payload;
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

/**
 * Whether a CommandOutput reports success: its `success`, else (FastWorkflow's canonical type,
 * C-33, which serializes none) every CommandResponse's `success`; undefined when it says neither.
 */
export function outputSucceeded(output: unknown): boolean | undefined {
  if (!isRecord(output)) return undefined;
  if (typeof output.success === 'boolean') return output.success;
  const responses = Array.isArray(output.command_responses) ? output.command_responses : [];
  if (responses.length === 0 || !responses.every((r) => isRecord(r) && typeof r.success === 'boolean')) return undefined;
  return responses.every((r) => (r as { success: boolean }).success);
}

// ---- conversations ------------------------------------------------------------------------------

/** One entry of list_conversations (004 §5.8), as listed. */
export type ListedConversation = Record<string, unknown> & { conversation_id: unknown; updated_at: unknown };

/** list_conversations (limit 100) as a set-up step. */
export async function listConversations(session: McpSession, limit = 100): Promise<ListedConversation[]> {
  const payload = await useTool(session, 'list_conversations', { limit });
  return (Array.isArray(payload.conversations) ? payload.conversations : []).filter(isRecord) as ListedConversation[];
}

/** Conversation ids as listed (a string per 004; compared as given). */
export const idsOf = (conversations: readonly ListedConversation[]): unknown[] => conversations.map((c) => c.conversation_id);

/** Whether two conversation ids are the same one (ids are compared as JSON values). */
export const sameId = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * A turn, then new_conversation (as set-up steps): the conversation the turn ran in is then
 * stored under either reading of C-34. Returns the id of the conversation that became active.
 */
export async function turnAndRotate(session: McpSession, query: string): Promise<unknown> {
  await useTool(session, 'invoke_assistant', { user_query: query });
  const rotated = await useTool(session, 'new_conversation');
  return rotated.new_conversation_id;
}

/**
 * The conversation a new_conversation just stored (C-34): the most recently updated one listed
 * besides the new active conversation `rotatedTo`.
 */
export function justStored(conversations: readonly ListedConversation[], rotatedTo: unknown): unknown {
  const updated = (c: ListedConversation) => (typeof c.updated_at === 'number' ? c.updated_at : Number.NEGATIVE_INFINITY);
  return [...conversations].sort((a, b) => updated(b) - updated(a)).find((c) => !sameId(c.conversation_id, rotatedTo))?.conversation_id;
}

/**
 * Which conversation is active, observed the only way either reading of C-34 allows: a turn and
 * a new_conversation store it, then it is the one just stored. Returns it (undefined when none is
 * listed) and the conversation that became active.
 */
export async function storeActive(session: McpSession, query: string): Promise<{ stored: unknown; rotatedTo: unknown; listed: ListedConversation[] }> {
  const rotatedTo = await turnAndRotate(session, query);
  const listed = await listConversations(session);
  return { stored: justStored(listed, rotatedTo), rotatedTo, listed };
}
