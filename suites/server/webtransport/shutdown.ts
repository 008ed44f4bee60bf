// Suite `shutdown` (seed 001 §1, §7): `$/shutdown` from the client. The server treats it as a
// notification (no answer), opens no new execution stream after it, lets streams in flight finish
// with FIN, then closes the WebTransport session (close code 0 recommended), and sends no new
// requests meanwhile. What the server does with a request that arrives after `$/shutdown` is open
// in 001 and is reported as INFO.
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { CloseInfo } from '../../../src/transport/connection.js';
import { isRecord } from '../../../src/wire/index.js';
import { notification, openSession, type Message } from '../../support/session.js';
import {
  callTool,
  collectStreams,
  readStream,
  requiresTools,
  startStreamingCall,
  STREAM_EVENT_MS,
  within,
} from '../../support/streams.js';

const SUITE = 'shutdown';
const WT = ['webtransport'] as const;
/** How long the server may take to close after draining (before --timeout-scale). */
const CLOSE_MS = 8_000;
/**
 * A transfer larger than the client's read-ahead, so it is still under way when $/shutdown goes
 * out, yet small enough to finish well within a server's drain deadline (the mock's is 5 s).
 */
const DRAIN_TRANSFER = 4 * 1024 * 1024;
/** A transfer left unread: the session stays draining while a request sent after $/shutdown arrives. */
const UNREAD_TRANSFER = 32 * 1024 * 1024;

async function sendShutdown(ctx: CaseContext): Promise<number> {
  const sentAt = Date.now();
  await ctx.connection.send(notification('$/shutdown'));
  return sentAt;
}

/** The session's end, or undefined when it is still open after CLOSE_MS. */
async function sessionEnd(ctx: CaseContext): Promise<CloseInfo | undefined> {
  const end = await within(ctx, ctx.connection.closed, ctx.scaled(CLOSE_MS));
  return end === 'timeout' ? undefined : end;
}

function checkClosed(ctx: CaseContext, end: CloseInfo | undefined, what: string): void {
  ctx.check('WT-SHUT-4', end !== undefined && end.initiator !== 'local', {
    message: `after $/shutdown ${what} the server closes the WebTransport session`,
    expected: 'the session closed by the server',
    actual: end ?? `still open ${ctx.scaled(CLOSE_MS)} ms later`,
  });
  if (end && end.initiator !== 'local' && end.code !== undefined && end.code !== 0) {
    ctx.info('WT-SHUT-4', `the session was closed with code ${end.code} (0 is recommended)`, end);
  }
}

/** Messages from the server received after `since` (left queued). */
function receivedSince(ctx: CaseContext, since: number): Message[] {
  return ctx.connection
    .pending()
    .filter((r) => r.at >= since && isRecord(r.message))
    .map((r) => r.message as Message);
}

const idleClose = defineCase({
  id: `${SUITE}/idle-close`,
  suite: SUITE,
  title: '$/shutdown on an idle session is taken as a notification (no answer) and the server closes the session without new requests',
  requirements: ['WT-SHUT-1', 'WT-SHUT-4', 'WT-SHUT-5'],
  transports: WT,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const sentAt = await sendShutdown(ctx);
    const end = await sessionEnd(ctx);
    const after = receivedSince(ctx, sentAt);
    const answers = after.filter((m) => !('method' in m) && ('result' in m || 'error' in m));
    const shutdowns = after.filter((m) => m.method === '$/shutdown');
    ctx.check('WT-SHUT-1', answers.length === 0 && shutdowns.every((m) => !('id' in m)), {
      message: '$/shutdown is a notification: the server sends no response to it, and its own $/shutdown (if any) has no id',
      actual: { responses: answers, serverShutdowns: shutdowns },
    });
    checkClosed(ctx, end, 'on an idle session');
    const requests = after.filter((m) => typeof m.method === 'string' && 'id' in m);
    ctx.check('WT-SHUT-5', requests.length === 0, {
      message: 'after $/shutdown the server sends no new requests',
      actual: requests,
    });
  },
});

const drainInFlight = defineCase({
  id: `${SUITE}/drain-in-flight`,
  suite: SUITE,
  title: 'after $/shutdown an execution stream in flight finishes with FIN before the server closes the session',
  requirements: ['WT-SHUT-3', 'WT-SHUT-4'],
  transports: WT,
  applies: requiresTools,
  timeLimitMs: 20_000,
  async run(ctx) {
    await openSession(ctx);
    const call = await startStreamingCall(ctx, { bytes: DRAIN_TRANSFER });
    if (!call?.stream) {
      ctx.info('WT-SHUT-3', 'no tool the target lists opened an execution stream, so no stream could be in flight during $/shutdown');
      return;
    }
    await sendShutdown(ctx);
    const payload = await readStream(ctx, call.stream);
    const end = await sessionEnd(ctx);
    ctx.check('WT-SHUT-3', payload.end === 'fin' && (call.bytes === undefined || payload.bytes === call.bytes), {
      message: `the execution stream in flight (request ${call.id}) finishes with FIN, complete, before the session is closed`,
      expected: { end: 'fin', ...(call.bytes !== undefined ? { bytes: call.bytes } : {}) },
      actual: { end: payload.end, bytes: payload.bytes, ...(payload.error !== undefined ? { error: payload.error } : {}) },
    });
    checkClosed(ctx, end, 'and the drain');
    const answer = call.answered?.message as Message | undefined;
    ctx.info(
      'WT-SHUT-3',
      answer ? `the in-flight tools/call was answered before the close (${'error' in answer ? 'error' : 'result'})` : 'the in-flight tools/call was not answered before the close',
      answer,
    );
  },
});

const noNewStreams = defineCase({
  id: `${SUITE}/no-new-streams`,
  suite: SUITE,
  title: 'after $/shutdown the server opens no new execution stream, even for a request that would get one',
  requirements: ['WT-SHUT-2'],
  transports: WT,
  applies: requiresTools,
  timeLimitMs: 20_000,
  async run(ctx) {
    await openSession(ctx);
    // A transfer left unread keeps the session draining while the second request arrives.
    const first = await startStreamingCall(ctx, { bytes: UNREAD_TRANSFER });
    if (!first?.stream) {
      ctx.info('WT-SHUT-2', 'no tool the target lists opened an execution stream, so there was no stream to withhold');
      return;
    }
    await sendShutdown(ctx);
    const second = await callTool(ctx, first.tool, { bytes: 1024 });
    const streams = await collectStreams(ctx, second.id, within(ctx, second.answer, ctx.scaled(STREAM_EVENT_MS)));
    for (const stream of streams) await stream.cancel('opened after $/shutdown');
    await first.stream.cancel('case finished');
    ctx.check('WT-SHUT-2', streams.length === 0, {
      message: `no execution stream is opened for tools/call ${first.tool.name} (request ${second.id}) sent after $/shutdown`,
      actual: streams.map((s) => s.header),
    });
    const answer = second.answered?.message as Message | undefined;
    ctx.info(
      'WT-SHUT-2',
      answer ? `the request sent after $/shutdown was answered with ${'error' in answer ? `an error (${JSON.stringify(answer.error)})` : 'a result'}` : 'the request sent after $/shutdown was not answered',
    );
  },
});

export const cases: readonly ConformanceCase[] = [idleClose, drainInFlight, noNewStreams];
