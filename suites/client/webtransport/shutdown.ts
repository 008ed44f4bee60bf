// Suite `shutdown` (client side, WebTransport, 001 §7): after the server's `$/shutdown` the client
// sends no new request, opens no execution stream, and closes the session once its in-flight
// requests are answered.
import { defineCase, TargetPreconditionError, type ConformanceCase } from '../../../src/harness/index.js';
import { raceTimeout, wt } from '../../support/webtransport.js';
import type { CloseInfo } from '../../../src/transport/connection.js';
import { callInFlight, clientMessages, describe, ECHO_CALL, EXIT_WAIT_MS, exitText, isRequest, notification, QUIET_MS, resultResponse, ScriptedServer, sentSeq, stderrTail } from '../../support/scripted-server.js';

const SUITE = 'shutdown';

const honoursShutdown = defineCase({
  id: 'shutdown/honours-server-shutdown',
  suite: SUITE,
  title: 'WT-SHUT-5, WT-SHUT-2, WT-SHUT-4: after $/shutdown the client sends no new request, opens no stream, and the session closes once drained',
  requirements: ['WT-SHUT-5', 'WT-SHUT-2', 'WT-SHUT-4'],
  transports: ['webtransport'],
  // Three calls: the shutdown comes while the first is in flight, so the other two must never be sent.
  scenario: { name: 'tools-call', context: { ...ECHO_CALL, count: 3 } },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    await server.send(notification('$/shutdown'));
    const shutdownAt = sentSeq(ctx, (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === '$/shutdown');
    // The in-flight call is still answered (the control stream keeps its order: $/shutdown first).
    await server.answerCall(call);
    await server.collect(QUIET_MS);
    const closed = await raceTimeout(ctx, ctx.connection.closed, EXIT_WAIT_MS, undefined);
    // Every execution stream the client opened shows in the transcript by its header, whether the
    // harness took it or refused it (its call was answered meanwhile: no request is in flight).
    const opened = ctx.connection.transcript.entries().filter((e) => e.direction === 'received' && e.channel.kind === 'stream' && e.channel.header !== undefined && e.seq > shutdownAt);
    const header = opened[0]?.channel.kind === 'stream' ? opened[0].channel.header : undefined;
    const stream = header ? `an execution stream for request ${header.requestId} (tag ${header.streamTag})` : undefined;
    const later = clientMessages(ctx).filter((m) => m.seq > shutdownAt && isRequest(m.message));
    ctx.check('WT-SHUT-5', later.length === 0, {
      message: 'no new request after the server sent $/shutdown',
      expected: 'no request',
      actual: later.length > 0 ? later.map((m) => describe(m.message)) : 'none',
    });
    ctx.check('WT-SHUT-2', stream === undefined, {
      message: 'no execution stream is opened by the client after $/shutdown',
      expected: 'no stream',
      actual: stream ?? 'none',
    });
    await judgeClose(server, closed, 'the in-flight call was answered');
    await server.untilExit();
  },
});

/**
 * WT-SHUT-4 once drained: a close by the client must be a WebTransport session close, not a
 * transport failure. 001 §7 names no party that closes, so a client that leaves the close to the
 * server is reported and the harness closes the session, as the server that sent $/shutdown.
 */
async function judgeClose(server: ScriptedServer, closed: CloseInfo | undefined, drained: string): Promise<void> {
  const ctx = server.ctx;
  if (closed === undefined) {
    ctx.info('WT-SHUT-4', `the session was still open ${ctx.scaled(EXIT_WAIT_MS)} ms after ${drained}: the client leaves the close to the server (001 §7 names no party), so the harness closes it`);
    await ctx.connection.close('the harness closes the drained session ($/shutdown)').catch(() => undefined);
    return;
  }
  ctx.check('WT-SHUT-4', closed.initiator !== 'error', {
    message: `once ${drained} the session ends with a WebTransport session close`,
    expected: 'a session close (close code 0 recommended)',
    actual: closed.initiator === 'error' ? `the session failed: ${closed.error?.message ?? closed.reason ?? 'transport error'}: ${server.observed()}` : closed,
  });
  if (closed.initiator === 'remote' && closed.code !== 0) ctx.info('WT-SHUT-4', `the client closed the session with close code ${String(closed.code)} (0 is recommended)`, closed);
}

/** 32 KiB sent in two halves around the $/shutdown. */
const FILE = new TextEncoder().encode('drain '.repeat(5461) + 'end.\n');
/** How long a write may take before the case gives up on it (before --timeout-scale). */
const WRITE_WAIT_MS = 6_000;

const drainBeforeClose = defineCase({
  id: 'shutdown/streams-drain-before-close',
  suite: SUITE,
  title: 'WT-SHUT-3, WT-SHUT-4: after $/shutdown the client keeps the session until the in-flight execution stream finished (FIN), then closes it',
  requirements: ['WT-SHUT-3', 'WT-SHUT-4'],
  transports: ['webtransport'],
  scenario: { name: 'tools-call', context: { tool: 'download', arguments: {} } },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    if (typeof call.id !== 'number') throw new TargetPreconditionError('the tools/call id cannot name an execution stream (WT-ID-1)', { requirement: 'WT-ID-1' });
    const stream = await wt(ctx).openExecutionStream({ requestId: call.id, streamTag: 1 });
    const half = FILE.byteLength >>> 1;
    await raceTimeout(ctx, stream.write(FILE.subarray(0, half)), WRITE_WAIT_MS, undefined);
    await server.send(notification('$/shutdown'));
    await server.send(resultResponse(call.id, { content: [{ type: 'ref/stream', streamTag: 1, mimeType: 'text/plain' }] }));
    // The stream is still in flight: the client must not close the session yet.
    await server.collect(QUIET_MS);
    const stillOpen = 'the session stays open while an execution stream of the shutting-down session is still in flight';
    if (ctx.connection.isClosed) {
      ctx.check('WT-SHUT-3', false, { message: stillOpen, expected: 'open until the stream finished', actual: `closed before the stream finished: ${server.observed()}` });
      return;
    }
    const finished = await raceTimeout(ctx, stream.write(FILE.subarray(half)).then(() => stream.close()).then(() => true, () => false), WRITE_WAIT_MS, false);
    if (!finished && ctx.connection.isClosed) {
      ctx.check('WT-SHUT-3', false, { message: stillOpen, expected: 'open until the stream finished', actual: `closed before the stream's second half went out: ${server.observed()}` });
      return;
    }
    ctx.check('WT-SHUT-3', true, { message: stillOpen, actual: finished ? 'open until the stream finished' : 'still open' });
    if (!finished) ctx.info('WT-SHUT-3', `the client had not read the stream's second half within ${ctx.scaled(WRITE_WAIT_MS)} ms (the session stayed open): no drain to judge`);
    const closed = await raceTimeout(ctx, ctx.connection.closed, EXIT_WAIT_MS, undefined);
    await judgeClose(server, closed, 'the stream finished and the call was answered');
    const exit = await server.untilExit();
    if (!finished) return;
    // The stream came whole and the call was answered: the client's scenario should succeed.
    if (exit === undefined) {
      ctx.info('WT-SHUT-3', `the client was still running ${ctx.scaled(EXIT_WAIT_MS)} ms after the drain: the outcome of its call is not known`);
    } else {
      ctx.check('WT-SHUT-3', exit.code === 0, {
        message: 'the stream that was in flight at $/shutdown was read to its end (FIN) and the call succeeded',
        expected: 'exit status 0',
        actual: { exit: exitText(exit), stderr: stderrTail(ctx) },
      });
    }
  },
});

export const cases: readonly ConformanceCase[] = [honoursShutdown, drainBeforeClose];
