// fastWorkflowExtension: the FastWorkflow server profile (seed 004, docs/profile.md FW-*) as a
// mock-server extension. Served over Streamable HTTP, one MCP session is one runtime, keyed by
// the connection id (the Mcp-Session-Id); conversations persist per user in a directory.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext, ServerExtension } from '../extension.js';
import { ConversationStore, deriveSummary, type Summarizer } from './conversation-store.js';
import { FAILURE_STYLES, FastWorkflowOptionsError, type FailureStyle } from './errors.js';
import { FASTWORKFLOW_FAULTS, FW_FAULT as F } from './faults.js';
import { completePrompt, getPrompt, listPrompts } from './prompts.js';
import { listResources, readResource } from './resources.js';
import { FastWorkflowProfile, type FastWorkflowTool, type TraceDelivery } from './tools.js';

export const DEFAULT_SLOW_COMMAND_MS = 2_000;
const TRACE_DELIVERIES: readonly TraceDelivery[] = ['auto', 'notifications/progress', 'notifications/message', 'attached'];

export interface FastWorkflowOptions {
  /** Directory of the conversation files (one JSON file per user); created when missing. */
  storeDir?: string;
  /** A store to use instead of storeDir (tests, or several servers sharing one). */
  store?: ConversationStore;
  /** How invoke_agent delivers trace events (default `auto`; see TraceDelivery). */
  traceDelivery?: TraceDelivery;
  /** How failures are reported (default `data.httpStatus`; every style is an accepted reading of FW-ERR-1). */
  failureStyle?: FailureStyle;
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
  if (options.traceDelivery !== undefined && !TRACE_DELIVERIES.includes(options.traceDelivery)) {
    throw new FastWorkflowOptionsError('traceDelivery', `must be one of ${TRACE_DELIVERIES.join(', ')}, not ${JSON.stringify(options.traceDelivery)}`);
  }
  if (options.failureStyle !== undefined && !FAILURE_STYLES.includes(options.failureStyle)) {
    throw new FastWorkflowOptionsError('failureStyle', `must be one of ${FAILURE_STYLES.join(', ')}, not ${JSON.stringify(options.failureStyle)}`);
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
}

export function fastWorkflowExtension(options: FastWorkflowOptions): FastWorkflowExtension {
  checkOptions(options);
  const now = options.now ?? Date.now;
  const slowMs = options.slowCommandMs ?? DEFAULT_SLOW_COMMAND_MS;
  const profile = new FastWorkflowProfile({
    store: options.store ?? new ConversationStore(options.storeDir!, { now }),
    traceDelivery: options.traceDelivery ?? 'auto',
    failureStyle: options.failureStyle ?? 'data.httpStatus',
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
  ];
  return {
    name: 'fastworkflow',
    profile,
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
