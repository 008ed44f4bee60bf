// Suite `execution-streams` (seed 001 §2.2, §4.2, §4.3, §5): the 8-byte header of the streams a
// server opens, the `ref/stream` items that name them, raw payloads ended by FIN, the control
// stream staying usable during a big transfer, `$/streamError` with a reset for a failed transfer,
// and the server's side of client-opened streams (truncated headers, injected request ids,
// references to streams that never came). Streams come from a tool the target lists whose answer
// travels on one (discovered, never named); without one the stream cases report INFO. An MCP Flow
// session that ends with a file sends it on a stream of the completing interaction.respond (C-32).
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { IncomingExecutionStream } from '../../../src/transport/connection.js';
import { isRecord, isU32 } from '../../../src/wire/index.js';
import { errorOf, openSession, requiresInteractiveTool, type Message } from '../../support/session.js';
import { runToCompletion, startInteraction } from '../../support/flow.js';
import {
  collectStreams,
  faultsWithCode,
  firstCallableTool,
  maybeMessage,
  QUIET_MS,
  readStream,
  refStreamItems,
  requiresTools,
  startStreamingCall,
  STREAM_EVENT_MS,
  within,
  wtFacet,
  type StreamEnd,
} from '../../support/streams.js';

const SUITE = 'execution-streams';
const WT = ['webtransport'] as const;

/** Size asked of a streaming tool for the header/payload checks. */
const SMALL_TRANSFER = 200_000;
/** Size asked for the "control stream not blocked" check: far more than any read-ahead window. */
const LARGE_TRANSFER = 256 * 1024 * 1024;
/** Size and failure point asked for the stream-error check. */
const FAILING_TRANSFER = 1024 * 1024;
const FAIL_AFTER = 256 * 1024;

/** Time between two writes to a stream the server should refuse. */
const WRITE_PACE_MS = 20;

/** Client-side refusals of a server stream header (the header was malformed or named no request in flight). */
const HEADER_FAULTS = ['EXEC_HEADER_TRUNCATED', 'STREAM_INJECTION'];

function noStreamingTool(ctx: CaseContext, requirement: string, what = 'answered on an execution stream'): void {
  ctx.info(requirement, `no tool the target lists ${what} (looked for tools whose name or description mention streams, downloads or files)`);
}

const headerAndReference = defineCase({
  id: `${SUITE}/header-reference-payload`,
  suite: SUITE,
  title: 'a server execution stream starts with the 8-byte header (request id, tag), is named by a ref/stream item, carries raw bytes ended by FIN, and its tag is unique',
  requirements: ['WT-EXEC-1', 'WT-EXEC-4', 'WT-EXEC-5', 'WT-EXEC-6'],
  transports: WT,
  applies: requiresTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const call = await startStreamingCall(ctx, { bytes: SMALL_TRANSFER });
    if (!call) return noStreamingTool(ctx, 'WT-EXEC-4');
    const reading: Promise<StreamEnd> | undefined = call.stream ? readStream(ctx, call.stream, { keep: true }) : undefined;
    const more = await collectStreams(ctx, call.id, call.answer.then(() => reading));
    const streams: IncomingExecutionStream[] = [...(call.stream ? [call.stream] : []), ...more];
    const payload = await reading;
    for (const extra of more) await extra.cancel('not read by this case');
    const refused = faultsWithCode(ctx, HEADER_FAULTS);

    ctx.check('WT-EXEC-1', call.stream !== undefined && refused.length === 0, {
      message: `the execution stream of request ${call.id} (tools/call ${call.tool.name}) starts with an 8-byte header naming that request id (u32 big-endian) and a tag`,
      expected: { header: { requestId: call.id, streamTag: 'u32' } },
      actual: { headers: streams.map((s) => s.header), refusedStreams: refused },
    });

    if (payload) {
      const complete = call.bytes === undefined || payload.bytes === call.bytes;
      ctx.check('WT-EXEC-6', payload.end === 'fin' && complete, {
        message: `after the header the stream carries the content as raw bytes ended by FIN${call.bytes !== undefined ? ` (${call.bytes} bytes were asked for)` : ''}`,
        expected: { end: 'fin', ...(call.bytes !== undefined ? { bytes: call.bytes } : {}) },
        actual: { end: payload.end, bytes: payload.bytes, ...(payload.error !== undefined ? { error: payload.error } : {}) },
      });
      if (call.bytes === undefined) ctx.info('WT-EXEC-6', `the tool takes no size, so only the FIN was checked (${payload.bytes} bytes received)`);
    }

    const answer = call.answered?.message as Message | undefined;
    if (answer === undefined) {
      ctx.check('WT-EXEC-4', false, { message: `tools/call ${call.tool.name} (request ${call.id}) is answered on the control stream`, actual: 'no answer' });
    } else {
      const items = refStreamItems(answer.result);
      const tags = new Set(streams.map((s) => s.header.streamTag));
      const badItems = items.filter(
        (item) => !isU32(item.streamTag) || (item.mimeType !== undefined && typeof item.mimeType !== 'string') || !tags.has(item.streamTag as number),
      );
      ctx.check('WT-EXEC-4', items.length > 0 && badItems.length === 0 && faultsWithCode(ctx, ['INVALID_STREAM_REFERENCE']).length === 0, {
        message: 'the answer names each stream with {"type": "ref/stream", "streamTag": <u32>, "mimeType"?: string} whose tag is a stream of the same request',
        expected: { refStreamTags: [...tags] },
        actual: { result: answer.result ?? null, error: answer.error, streamHeaders: streams.map((s) => s.header) },
      });
    }

    const seen = streams.map((s) => s.header.streamTag);
    ctx.check('WT-EXEC-5', new Set(seen).size === seen.length, {
      message: `the stream tags of request ${call.id} are unique`,
      actual: { streamTags: seen },
    });
  },
});

const controlNotBlocked = defineCase({
  id: `${SUITE}/control-not-blocked`,
  suite: SUITE,
  title: 'a large payload on an execution stream does not block the control stream: ping is answered mid-transfer',
  requirements: ['WT-EXEC-8'],
  transports: WT,
  applies: requiresTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const call = await startStreamingCall(ctx, { bytes: LARGE_TRANSFER });
    if (!call?.stream) return noStreamingTool(ctx, 'WT-EXEC-8', 'opened an execution stream');
    const reader = call.stream.readable.getReader();
    try {
      // Take one chunk so the transfer is known to be under way, then leave the rest unread.
      const first = await within(ctx, reader.read(), ctx.scaled(STREAM_EVENT_MS));
      const transferring = first !== 'timeout' && !first.done;
      const answer = await ctx.request('WT-EXEC-8', 'ping', undefined, { timeoutMs: STREAM_EVENT_MS, what: 'ping sent while the execution stream is transferring' });
      if (!answer) return;
      if (transferring && call.answered === undefined) {
        ctx.check('WT-EXEC-8', true, {
          message: `ping is answered while the execution stream of request ${call.id} (${call.bytes ?? 'size unknown'}, bytes, mostly unread) is still transferring`,
          actual: { ping: answer },
        });
      } else {
        ctx.info('WT-EXEC-8', `ping was answered, but the transfer had already ended (stream started: ${transferring}, tools/call answered: ${call.answered !== undefined}); the tool's size could not be made large`);
      }
    } finally {
      await reader.cancel('case finished').catch(() => undefined);
    }
  },
});

const streamError = defineCase({
  id: `${SUITE}/stream-error`,
  suite: SUITE,
  title: 'a stream failing mid-transfer gets $/streamError (requestId, streamTag, error) and is reset, never ended with FIN',
  requirements: ['WT-STREAMERR-1', 'WT-STREAMERR-2'],
  transports: WT,
  applies: requiresTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const call = await startStreamingCall(ctx, { bytes: FAILING_TRANSFER, failAfterBytes: FAIL_AFTER });
    if (!call?.stream) {
      return noStreamingTool(ctx, 'WT-STREAMERR-1', 'opens an execution stream and takes an argument that makes it fail mid-transfer (a property named like "fail...")');
    }
    const stream = call.stream;
    const reading = readStream(ctx, stream);
    const notice = await maybeMessage(ctx, (m) => m.method === '$/streamError', STREAM_EVENT_MS);
    const end = await reading;
    if (end.end === 'fin' && (call.bytes === undefined || end.bytes >= call.bytes)) {
      ctx.info('WT-STREAMERR-1', `the stream did not fail: it carried all ${end.bytes} bytes and ended with FIN (arguments ${JSON.stringify(call.arguments)})`);
      return;
    }
    ctx.check('WT-STREAMERR-2', end.end === 'reset', {
      message: `the failed stream (request ${call.id}, tag ${stream.header.streamTag}) is reset, not ended with FIN`,
      expected: { end: 'reset' },
      actual: { end: end.end, bytes: end.bytes, askedFor: call.bytes },
    });
    const params = isRecord(notice?.message) && isRecord(notice.message.params) ? notice.message.params : undefined;
    ctx.check(
      'WT-STREAMERR-1',
      params !== undefined && params.requestId === call.id && params.streamTag === stream.header.streamTag && typeof params.error === 'string',
      {
        message: 'the server sends $/streamError naming the request id and stream tag, with a string error',
        expected: { method: '$/streamError', params: { requestId: call.id, streamTag: stream.header.streamTag, error: 'string' } },
        actual: notice?.message ?? 'no $/streamError',
      },
    );
  },
});

const truncatedHeader = defineCase({
  id: `${SUITE}/truncated-header`,
  suite: SUITE,
  title: 'a client stream that ends before its 8-byte header is dropped (reported with -32600, or silently) and the session goes on',
  requirements: ['WT-EXEC-1', 'WT-EXEC-11'],
  transports: WT,
  async run(ctx) {
    await openSession(ctx);
    const stream = await wtFacet(ctx).openRawStream(new Uint8Array([0x00, 0x00, 0x00]));
    await stream.close();
    // Nothing is owed for a stream (it is no request): the ping decides, then a short look for a report.
    const ping = await ctx.request('WT-EXEC-11', 'ping', undefined, { timeoutMs: STREAM_EVENT_MS, what: 'ping after a stream too short for its header' });
    if (ping) ctx.check('WT-EXEC-11', isRecord(ping.result), { message: 'the session goes on after the refused stream: ping is served', actual: ping });
    // A stream is not ordered with the control stream: a window from the target's speed.
    const answer = await maybeMessage(ctx, (m) => m.id === null && isRecord(m.error), ctx.quietMs(QUIET_MS));
    const code = errorOf(answer?.message as Message | undefined)?.code;
    if (answer === undefined) ctx.reading('WT-EXEC-1', 2, 'the stream too short for its header');
    else if (code === -32600) ctx.reading('WT-EXEC-1', 1, 'the stream too short for its header', answer.message);
    else ctx.info('WT-EXEC-1', `the stream too short for its header was reported with ${String(code)}`, answer.message);
  },
});

const injectedStream = defineCase({
  id: `${SUITE}/injected-stream`,
  suite: SUITE,
  title: 'a client stream whose header names no request in flight is refused: stopped (STOP_SENDING) and/or reported with -32002',
  requirements: ['WT-EXEC-2', 'WT-EXEC-9'],
  transports: WT,
  sleeps: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const requestId = ctx.nextId(); // never sent: not in flight
    const streamTag = 1;
    const stream = await wtFacet(ctx).openExecutionStream({ requestId, streamTag });
    let reported: Message | undefined;
    const report = maybeMessage(ctx, (m) => m.id === null && isRecord(m.error) && errorOf(m)?.code !== -32600, STREAM_EVENT_MS).then((r) => (reported = r?.message as Message | undefined));
    // Keep writing until the server stops the stream (a write fails), reports it, or the deadline passes.
    const chunk = new Uint8Array(16 * 1024).fill(0x5a);
    const deadline = Date.now() + ctx.scaled(STREAM_EVENT_MS);
    let written = 0;
    let stopped: string | undefined;
    let stalled = false;
    /** One write: written, stalled until `until`, or refused (the stream was stopped). */
    const writeOnce = async (until: number) => {
      const outcome = await within(
        ctx,
        stream.write(chunk).then(
          () => 'written' as const,
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        ),
        Math.max(0, until - Date.now()),
      );
      if (outcome === 'written') written += chunk.byteLength;
      else if (outcome === 'timeout') stalled = true;
      else stopped = outcome;
      return outcome;
    };
    const pause = (ms: number) => Promise.race([report, new Promise((resolve) => setTimeout(resolve, ms))]);
    const writeUntilRefused = async () => {
      // Paced: a stop shows at the next write; flooding the grace period would only cost both sides
      // CPU (tens of megabytes through TLS and HTTP/2 in a second).
      while (stopped === undefined && reported === undefined && !stalled && Date.now() < deadline && !ctx.signal.aborted) {
        if ((await writeOnce(deadline)) === 'written') await pause(WRITE_PACE_MS);
      }
      // The report may be seen before the stop: writing on for a quiet window shows whether the
      // stream was stopped too (WT-EXEC-2 reading 1) or only reported (reading 2).
      const settle = Date.now() + ctx.scaled(ctx.quietMs(QUIET_MS));
      while (reported !== undefined && stopped === undefined && !stalled && Date.now() < settle && !ctx.signal.aborted) {
        if ((await writeOnce(settle)) === 'written') await new Promise((resolve) => setTimeout(resolve, WRITE_PACE_MS));
      }
      await report;
    };
    // The server may keep a grace period for the request to show up before it refuses the stream:
    // the worker serves other cases meanwhile.
    await ctx.awaitTarget(writeUntilRefused());
    await stream.abort('case finished').catch(() => undefined);
    const error = errorOf(reported);
    const data = isRecord(error?.data) ? error.data : undefined;
    const injectionReport = error?.code === -32002 && data?.requestId === requestId;
    ctx.check('WT-EXEC-2', stopped !== undefined || injectionReport, {
      message: `the stream naming request ${requestId} (not in flight) is refused: the server stops reading it (STOP_SENDING) or reports it with -32002`,
      expected: 'a write fails because the server stopped the stream, or an error -32002 naming it',
      actual: { writtenBytes: written, report: reported ?? 'none', ...(stalled ? { writes: 'stalled without the stream being stopped' } : {}) },
    });
    if (stopped !== undefined) ctx.reading('WT-EXEC-2', 1, injectionReport ? undefined : 'stopped; no -32002 report (WT-EXEC-9)');
    else if (injectionReport) ctx.reading('WT-EXEC-2', 2);
    ctx.check('WT-EXEC-9', injectionReport && data?.streamTag === streamTag, {
      message: 'the rejection is also reported on the control stream: error -32002, id null, data naming requestId and streamTag',
      expected: { id: null, error: { code: -32002, data: { requestId, streamTag } } },
      actual: reported ?? 'no error with id null',
    });
  },
});

const danglingReference = defineCase({
  id: `${SUITE}/dangling-stream-ref`,
  suite: SUITE,
  title: 'a request carrying a ref/stream item that names no execution stream is answered: -32001 Invalid Stream Reference (recommended), or on its own terms by a server that takes no stream input',
  requirements: ['WT-EXEC-3'],
  transports: WT,
  sleeps: true,
  applies: requiresTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const tool = firstCallableTool(ctx);
    if (tool === undefined) {
      ctx.info('WT-EXEC-3', 'every listed tool is interactive or named for changing something, so none was called with a dangling ref/stream');
      return;
    }
    // The server may wait a while for the stream before it answers: the worker serves other cases meanwhile.
    const answer = await ctx.awaitTarget(
      ctx.request(
        'WT-EXEC-3',
        'tools/call',
        { name: tool, arguments: { attachment: { type: 'ref/stream', streamTag: 7, mimeType: 'application/octet-stream' } } },
        { timeoutMs: 10_000, what: 'tools/call whose arguments name stream tag 7, never opened' },
      ),
    );
    if (!answer) return;
    const code = errorOf(answer)?.code;
    ctx.check('WT-EXEC-3', true, { message: `tools/call ${tool} naming a ref/stream tag no stream carries is answered` });
    ctx.reading('WT-EXEC-3', code === -32001 ? 1 : 2, code === -32001 ? undefined : code === undefined ? 'a result' : `error ${String(code)}`, answer);
  },
});

/** The file an interaction.complete result carries (C-32: `result.data.file`), if any. */
function completedFile(params: Message): Message | undefined {
  const result = isRecord(params.result) ? params.result : undefined;
  const data = result && isRecord(result.data) ? result.data : undefined;
  return data && isRecord(data.file) ? data.file : undefined;
}

const interactiveExport = defineCase({
  id: `${SUITE}/interactive-export`,
  suite: SUITE,
  title: 'an interactive session ending with a file sends it on an execution stream of the completing interaction.respond, named by ref/stream and by interaction.complete',
  requirements: ['WT-EXEC-10'],
  transports: WT,
  applies: requiresInteractiveTool,
  timeLimitMs: 20_000,
  async run(ctx) {
    await openSession(ctx);
    const wt = wtFacet(ctx);
    for (const toolName of (ctx.discovery.interactiveTools ?? []).slice(0, 4)) {
      const session = await startInteraction(ctx, { toolName });
      const run = await runToCompletion(ctx, session);
      const file = completedFile(run.complete.params);
      if (!file) continue;
      const respond = run.turns.at(-1)!.answer;
      const items = refStreamItems(respond.result);
      const named = isRecord(file.stream) ? file.stream : undefined;
      if (!named) {
        const shown = { file: { ...file, content: typeof file.content === 'string' ? `${file.content.length} characters` : file.content } };
        // Inline is the rule's own fallback only where the completing request cannot carry a stream (an id no header can hold).
        if (items.length === 0 && isU32(respond.id)) {
          ctx.check('WT-EXEC-10', false, {
            message: `${toolName}: the completing interaction.respond (id ${String(respond.id)}) could carry an execution stream, yet the file travels inline in interaction.complete`,
            expected: 'the file on an execution stream of that request, named by ref/stream and by interaction.complete',
            actual: shown,
          });
          return;
        }
        ctx.info(
          'WT-EXEC-10',
          items.length > 0
            ? `${toolName}: the completing respond names a stream (ref/stream), but interaction.complete carries the file without naming it (accepted reading)`
            : `${toolName}: the file travels inline in interaction.complete (the completing request's id ${JSON.stringify(respond.id)} cannot name a stream)`,
          shown,
        );
        return;
      }
      const stream = await wt
        .nextExecutionStream((s) => s.header.requestId === named.requestId && s.header.streamTag === named.streamTag, { timeoutMs: ctx.scaled(STREAM_EVENT_MS), signal: ctx.signal })
        .catch(() => undefined);
      const payload = stream ? await readStream(ctx, stream) : undefined;
      const sizeMatches = typeof file.size !== 'number' || payload?.bytes === file.size;
      ctx.check(
        'WT-EXEC-10',
        named.requestId === respond.id && items.some((item) => item.streamTag === named.streamTag) && payload?.end === 'fin' && sizeMatches,
        {
          message: `${toolName}: interaction.complete names the stream (requestId, streamTag) of the completing interaction.respond, whose answer has the matching ref/stream item, and the stream carries the file to FIN`,
          expected: { stream: { requestId: respond.id, streamTag: 'the tag of the ref/stream item' }, end: 'fin', ...(typeof file.size === 'number' ? { bytes: file.size } : {}) },
          actual: { named, refStream: items, payload: payload ?? 'no such execution stream' },
        },
      );
      return;
    }
    ctx.info('WT-EXEC-10', 'no interactive session of the target ended with a file (interaction.complete result.data.file)');
  },
});

export const cases: readonly ConformanceCase[] = [
  headerAndReference,
  controlNotBlocked,
  streamError,
  truncatedHeader,
  injectedStream,
  danglingReference,
  interactiveExport,
];
