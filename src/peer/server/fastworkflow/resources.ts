// FW-PROMPT-5: a FastWorkflow server exposes no workflow folders or action logs as resources. The
// profile declares no resources; only fault action-log-resource makes it declare them and list
// the session's action log (its trace events as NDJSON), which is what the requirement forbids.
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { RpcError, type RequestContext } from '../extension.js';
import { FW_FAULT as F } from './faults.js';

export const ACTION_LOG_URI = 'fastworkflow://workflow/action_log.jsonl';

function refuse(ctx: RequestContext): void {
  if (!ctx.faults.has(F.actionLogResource)) throw new RpcError(JSONRPC_ERROR.MethodNotFound, `Method not found: ${ctx.method}`);
}

export async function listResources(_params: unknown, ctx: RequestContext): Promise<unknown> {
  refuse(ctx);
  return { resources: [{ uri: ACTION_LOG_URI, name: 'action_log', mimeType: 'application/x-ndjson' }] };
}

export async function readResource(params: unknown, ctx: RequestContext, actionLog: () => string): Promise<unknown> {
  refuse(ctx);
  const uri = typeof params === 'object' && params !== null ? (params as Record<string, unknown>)['uri'] : undefined;
  if (uri !== ACTION_LOG_URI) throw new RpcError(-32002, `Resource not found: ${String(uri)}`, { uri: uri ?? null });
  return { contents: [{ uri: ACTION_LOG_URI, mimeType: 'application/x-ndjson', text: actionLog() }] };
}
