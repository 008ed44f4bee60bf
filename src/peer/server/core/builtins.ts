// The requests the session itself serves for every extension: ping, logging/setLevel with the
// notifications/message it governs (CORE-LOG-*), and tools/list and tools/call over the tools of
// every extension (arguments checked against inputSchema, CORE-TOOLS-4; a failure inside a tool
// is an isError result, CORE-TOOLS-5; the result shaped for the negotiated version).
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { CORE_METHOD, declares } from '../../../protocol/methods.js';
import { LOG_LEVELS, RpcError, type ActiveFaults, type LogLevel, type RequestContext, type ServerTool, type ToolResult } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { schemaErrors } from './arguments.js';
import { LISTED_TOOL_REWRITES, LOG_PARAMS_REWRITES, TOOL_CONTENT_REWRITES, TOOL_LIST_REWRITES } from './fault-hooks.js';
import { isRecord, type RequestId } from './jsonrpc.js';
import { describe, type Outbox } from './outbox.js';
import type { CoreReadings } from './readings.js';
import type { SessionState } from './state.js';

const SEVERITY = new Map(LOG_LEVELS.map((level, index) => [level, index]));

export class BuiltinRequests {
  readonly #tools: ReadonlyMap<string, ServerTool>;
  readonly #state: SessionState;
  readonly #faults: ActiveFaults;
  readonly #readings: CoreReadings;
  readonly #outbox: Outbox;
  readonly #closed: () => boolean;

  constructor(options: { tools: ReadonlyMap<string, ServerTool>; state: SessionState; faults: ActiveFaults; readings: CoreReadings; outbox: Outbox; closed: () => boolean }) {
    this.#tools = options.tools;
    this.#state = options.state;
    this.#faults = options.faults;
    this.#readings = options.readings;
    this.#outbox = options.outbox;
    this.#closed = options.closed;
  }

  /** Under the unknown-params-member-refused fault: -32602 for a params member other than `known` (CORE-RPC-15). */
  #refuseUnknownMembers(method: string, params: unknown, known: readonly string[]): void {
    if (!this.#faults.has(F.unknownParamsMemberRefused) || !isRecord(params)) return;
    const unknown = Object.keys(params).find((key) => !known.includes(key));
    if (unknown !== undefined) throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: ${method} has no parameter ${JSON.stringify(unknown)}`);
  }

  async ping(params: unknown): Promise<unknown> {
    this.#refuseUnknownMembers(CORE_METHOD.ping, params, ['_meta']);
    return this.#faults.has(F.pingNonEmptyResult) ? { pong: true } : {};
  }

  async setLevel(params: unknown): Promise<unknown> {
    const level = isRecord(params) ? params['level'] : undefined;
    if (typeof level !== 'string' || !SEVERITY.has(level as LogLevel)) {
      if (this.#faults.has(F.setLevelInvalidAccepted)) return {};
      throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: level must be one of ${LOG_LEVELS.join(', ')}`, { level });
    }
    if (level === 'notice' && this.#faults.has(F.setLevelNoticeRefused)) {
      throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: level notice is not supported');
    }
    this.#state.logLevel = level as LogLevel;
    return {};
  }

  /** notifications/message, only with the logging capability and at or above the set level (CORE-LOG-3, -5). */
  async log(level: LogLevel, data: unknown, logger?: string, relatedTo?: RequestId): Promise<void> {
    if (!this.#state.initialized || this.#closed()) return;
    if (!declares(this.#state.capabilities, 'logging') && !this.#faults.has(F.logWithoutCapability)) return;
    const threshold = this.#state.logLevel === undefined ? 0 : SEVERITY.get(this.#state.logLevel)!;
    if ((SEVERITY.get(level) ?? 0) < threshold && !this.#faults.has(F.loggingLevelIgnored)) return;
    const built: Record<string, unknown> = { level, data };
    if (logger !== undefined) built['logger'] = logger;
    const params = this.#faults.rewrite(LOG_PARAMS_REWRITES, built);
    await this.#outbox.notify(CORE_METHOD.loggingMessage, params, relatedTo).catch((error: unknown) => this.#outbox.note(`log not sent: ${describe(error)}`));
  }

  async listTools(params: unknown): Promise<unknown> {
    this.#refuseUnknownMembers(CORE_METHOD.toolsList, params, ['cursor', '_meta']);
    if (isRecord(params) && params['cursor'] !== undefined) {
      throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown cursor ${JSON.stringify(params['cursor'])} (tools/list has one page)`);
    }
    const modern = this.#state.atLeast('2025-06-18');
    const tools = [...this.#tools.values()].map((tool) => {
      const listed: Record<string, unknown> = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
      if (modern && tool.title !== undefined) listed['title'] = tool.title;
      if (modern && tool.outputSchema !== undefined) listed['outputSchema'] = tool.outputSchema;
      return this.#faults.rewrite(LISTED_TOOL_REWRITES, listed);
    });
    return { tools: this.#faults.rewrite(TOOL_LIST_REWRITES, tools) };
  }

  async callTool(params: unknown, ctx: RequestContext): Promise<unknown> {
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
    const args =
      this.#readings.forbiddenArgumentMembers === 'ignore' ? withoutForbiddenMembers(tool.inputSchema, given, (key) => this.#outbox.note(`${tool.name}: unknown argument ${key} ignored`)) : given;
    const invalid = schemaErrors(tool.inputSchema, args);
    if (invalid !== undefined && !this.#faults.has(F.invalidArgumentsExecuted)) {
      if (tool.argumentsRejected) return this.#toolAnswer(tool.argumentsRejected(invalid, ctx));
      // CORE-TOOLS-4: -32602, or under 2025-11-25 (the readings' other choice) a tool execution error the model can correct.
      if (this.#readings.invalidArguments === 'tool-error-2025-11-25' && this.#state.protocolVersion === '2025-11-25') {
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
    const content = result.content.map((item) => this.#faults.rewrite(TOOL_CONTENT_REWRITES, item));
    const answer: Record<string, unknown> = { content };
    if (result.isError !== undefined) answer['isError'] = result.isError;
    if (result.structuredContent !== undefined && this.#state.atLeast('2025-06-18')) answer['structuredContent'] = result.structuredContent;
    return answer;
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
