// tools/call from the client's side: the call, its outcome (an error answer or a result with
// isError: true is a failure), and over WebTransport every execution stream its result names,
// which must have arrived complete and as long as announced (WT-EXEC-3, WT-EXEC-7).
import type { ClientContext } from './context.js';
import { MOCK_CLIENT_FAULT as F } from './faults.js';
import { checkLength, refStreamItems, type StreamOutcome } from './streams.js';
import { record, type CallOptions, type CallOutcome, type Message } from './types.js';

/** tools/call; over WebTransport every execution stream its result names is read and checked. */
export async function callTool(ctx: ClientContext, name: string, args: Message, options: CallOptions): Promise<CallOutcome> {
  const outcome: CallOutcome = { ok: false, requestId: -1, streams: [], failures: [] };
  const download = options.download;
  // FAULT positional-params: the params go out as the positional array [name, arguments].
  const params = (ctx.faults.has(F.positionalParams) ? [name, args] : { name, arguments: args }) as unknown as Message;
  try {
    const response = await ctx.request('tools/call', params, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      beforeSend: (id) => {
        outcome.requestId = id;
        // Before the request goes out: a stream may arrive before the result naming it (WT-EXEC-7).
        if (download && typeof id === 'number') ctx.streams?.setSink(id, download);
      },
    });
    // The sink stays set until the streams are resolved: one may arrive after the result (WT-EXEC-7).
    return await callOutcome(ctx, outcome, response);
  } catch (error) {
    if (options.signal?.aborted) {
      outcome.cancelled = true;
      outcome.failures.push(`tools/call ${name} was aborted${ctx.faults.has(F.noCancelOnAbort) ? '' : ' and cancelled'}`);
      return outcome;
    }
    throw error;
  } finally {
    if (typeof outcome.requestId === 'number') ctx.streams?.clearSink(outcome.requestId);
  }
}

async function callOutcome(ctx: ClientContext, outcome: CallOutcome, response: Message): Promise<CallOutcome> {
  const result = record(response['result']);
  if (!result) {
    const error = record(response['error']) ?? {};
    outcome.error = error as CallOutcome['error'] & object;
    outcome.failures.push(`error ${String(error['code'] ?? '?')}: ${String(error['message'] ?? '')}`);
    return outcome;
  }
  outcome.result = result;
  // FAULT is-error-succeeds: a result with isError: true counts as a success.
  if (result['isError'] === true && !ctx.faults.has(F.isErrorSucceeds)) outcome.failures.push('the tool result has isError: true');
  if (typeof outcome.requestId === 'number') {
    outcome.streams = await resolveStreams(ctx, outcome.requestId, refStreamItems(result['content']), outcome.failures);
  }
  outcome.ok = outcome.failures.length === 0;
  return outcome;
}

/** The streams `items` name for `requestId`: each must have arrived complete (and as long as announced). */
async function resolveStreams(ctx: ClientContext, requestId: number, items: ReturnType<typeof refStreamItems>, failures: string[]): Promise<StreamOutcome[]> {
  const streams = ctx.streams;
  if (!streams || items.length === 0) return [];
  const outcomes: StreamOutcome[] = [];
  for (const item of items) {
    const outcome = await streams.take(requestId, item.streamTag, ctx.options.streamGraceMs ?? 1000);
    if (outcome === undefined) {
      // FAULT dangling-stream-ref-ignored: the result counts as complete.
      if (!ctx.faults.has(F.danglingStreamRefIgnored)) failures.push(`ref/stream names stream tag ${item.streamTag} of request ${requestId}, but no such stream came`);
      continue;
    }
    if (item.mimeType !== undefined) outcome.mimeType = item.mimeType;
    if (item.size !== undefined) checkLength(outcome, item.size);
    if (!outcome.complete || outcome.failure) failures.push(outcome.failure ?? `stream tag ${item.streamTag} did not complete`);
    outcomes.push(outcome);
  }
  return outcomes;
}
