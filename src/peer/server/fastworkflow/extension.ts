// fastWorkflowExtension: the FastWorkflow server profile (seed 004, docs/profile.md FW-*) as a
// mock-server extension. Served over Streamable HTTP, one MCP session is one runtime, keyed by
// the connection id (the Mcp-Session-Id); conversations persist per user in a directory. Where
// 004 leaves a choice, `readings` picks the preset and the individual switches override it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext, ServerExtension } from '../extension.js';
import type { MockReadings } from '../readings.js';
import { ConversationStore, deriveSummary, type Summarizer } from './conversation-store.js';
import { FastWorkflowOptionsError } from './errors.js';
import { FASTWORKFLOW_FAULTS, FW_FAULT as F } from './faults.js';
import { completePrompt, getPrompt, listPrompts } from './prompts.js';
import { resolveReadings, type FastWorkflowReadings } from './readings.js';
import { listResources, readResource } from './resources.js';
import { FastWorkflowProfile, type FastWorkflowTool } from './tools.js';

export const DEFAULT_SLOW_COMMAND_MS = 2_000;

export interface FastWorkflowOptions extends Partial<FastWorkflowReadings> {
  /** Directory of the conversation files (one JSON file per user); created when missing. */
  storeDir?: string;
  /** A store to use instead of storeDir (tests, or several servers sharing one). */
  store?: ConversationStore;
  /**
   * The readings preset (readings.ts): 'recommended' (default) or 'alternate', another accepted
   * reading at every switch. traceDelivery, failureStyle, resultEncoding, dataContracts,
   * extraMembers, listing, streamedTraces and unknownSession override it one by one.
   */
  readings?: MockReadings;
  /** How long TodoList/sync_with_server takes (default 2000 ms); ignored when slowCommand is given. */
  slowCommandMs?: number;
  /** The slow command's remote round trip; resolves when done, rejects when `signal` aborts. */
  slowCommand?: (signal: AbortSignal) => Promise<void>;
  /** Topic and summary at new_conversation (FastWorkflow's LLM step); throwing fails with 500 and does not rotate. */
  summarize?: Summarizer;
  /** Clock for trace timestamps and updated_at (epoch ms). */
  now?: () => number;
  /**
   * The server's fault names, for what is fixed when the extension is built: the tool list
   * (post-feedback-unlisted, admin-tool-exposed). Every other fault is read from each request's context.
   */
  faults?: readonly string[];
}

function checkOptions(options: FastWorkflowOptions): void {
  if (options.store === undefined && (typeof options.storeDir !== 'string' || options.storeDir === '')) {
    throw new FastWorkflowOptionsError('storeDir', 'give a directory for the conversation files (or a store)');
  }
  if (options.readings !== undefined && options.readings !== 'recommended' && options.readings !== 'alternate') {
    throw new FastWorkflowOptionsError('readings', `must be "recommended" or "alternate", not ${JSON.stringify(options.readings)}`);
  }
  if (options.faults !== undefined && (!Array.isArray(options.faults) || !options.faults.every((f) => typeof f === 'string'))) {
    throw new FastWorkflowOptionsError('faults', 'must be an array of fault names');
  }
  if (options.slowCommandMs !== undefined && (!Number.isFinite(options.slowCommandMs) || options.slowCommandMs < 0)) {
    throw new FastWorkflowOptionsError('slowCommandMs', `must be a non-negative number of milliseconds, not ${String(options.slowCommandMs)}`);
  }
}

/** The FastWorkflow extension plus the profile object behind it (for tests and embedding). */
export interface FastWorkflowExtension extends ServerExtension {
  readonly profile: FastWorkflowProfile;
  readonly tools: readonly FastWorkflowTool[];
  /** The readings it takes (the HTTP front reads unknownSession from here). */
  readonly readings: FastWorkflowReadings;
}

/** Fault input-schema-type-widened (FW-TOOL-10): execute_command's command declared as a string or a number. */
function widenedCommand(tool: FastWorkflowTool): FastWorkflowTool {
  const schema = tool.inputSchema as { properties?: Record<string, object> };
  const properties = { ...schema.properties, command: { ...schema.properties?.['command'], type: ['string', 'number'] } };
  return { ...tool, inputSchema: { ...schema, properties } };
}

export function fastWorkflowExtension(options: FastWorkflowOptions): FastWorkflowExtension {
  checkOptions(options);
  const now = options.now ?? Date.now;
  const slowMs = options.slowCommandMs ?? DEFAULT_SLOW_COMMAND_MS;
  const { traceDelivery, failureStyle, resultEncoding, dataContracts, extraMembers, listing, streamedTraces, unknownSession } = options;
  const readings = resolveReadings(options.readings, { traceDelivery, failureStyle, resultEncoding, dataContracts, extraMembers, listing, streamedTraces, unknownSession });
  const profile = new FastWorkflowProfile({
    store: options.store ?? new ConversationStore(options.storeDir!, { now }),
    readings,
    slowCommand: options.slowCommand ?? ((signal) => sleep(slowMs, undefined, { signal })),
    summarize: options.summarize ?? deriveSummary,
    now,
  });
  /** Fault prompt-starts-conversation (FW-PROMPT-4): getting a prompt rotates the conversation. */
  const afterPrompt = (ctx: RequestContext) => async (): Promise<void> => {
    const runtime = profile.runtimeOf(ctx);
    if (!ctx.faults.has(F.promptStartsConversation) || !runtime) return;
    runtime.conversationId = (await runtime.store.create(runtime.userId)).conversation_id;
  };
  const faults = new Set(options.faults ?? []);
  const tools = [
    ...profile.tools().filter((tool) => !(faults.has(F.postFeedbackUnlisted) && tool.name === 'post_feedback')),
    ...(faults.has(F.adminToolExposed) ? [profile.adminDumpTool()] : []),
  ].map((tool) => (faults.has(F.inputSchemaTypeWidened) && tool.name === 'execute_command' ? widenedCommand(tool) : tool));
  return {
    name: 'fastworkflow',
    profile,
    readings,
    capabilities: (ctx) => ({
      prompts: { listChanged: false },
      ...(ctx.faults.has(F.actionLogResource) ? { resources: {} } : {}),
    }),
    requests: {
      'prompts/list': listPrompts,
      'prompts/get': (params, ctx) => getPrompt(params, ctx, afterPrompt(ctx)),
      'completion/complete': completePrompt,
      'resources/list': listResources,
      'resources/read': (params, ctx) =>
        readResource(params, ctx, () => (profile.runtimeOf(ctx)?.actionLog ?? []).map((t) => JSON.stringify(t)).join('\n')),
    },
    tools,
    faults: FASTWORKFLOW_FAULTS,
    onSessionEnd: (ctx) => profile.endSession(ctx),
  };
}
