// Suite `execution-streams` (client side, WebTransport): the client correlates execution streams
// with the result that names them whatever comes first, refuses a stream whose request id it never
// sent, fails a call whose `ref/stream` names no stream, and ignores a `$/streamError` about nothing
// it knows (001 §2.2, §4.2, §4.3, §5).
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { OutgoingExecutionStream } from '../../../src/transport/connection.js';
import { ConnectionError } from '../../../src/transport/errors.js';
import { isRecord } from '../../../src/wire/index.js';
import { raceTimeout, wt } from '../../support/webtransport.js';
import {
  callInFlight,
  clientMessages,
  CODE,
  describe,
  ending,
  errorOf,
  EXIT_WAIT_MS,
  exitText,
  isResponse,
  notification,
  QUIET_MS,
  resultResponse,
  ScriptedServer,
  servedCall,
  stderrTail,
  type Message,
  type RequestId,
  type ServedSession,
} from '../../support/scripted-server.js';

const SUITE = 'execution-streams';
const WT_ONLY = ['webtransport'] as const;
const DOWNLOAD_CALL = { name: 'tools-call', context: { tool: 'download', arguments: {} } } as const;
/** The file the download tool sends: 64 KiB of text, so it spans many stream reads. */
const FILE = new TextEncoder().encode('conformance '.repeat(5462) + 'end.\n');
/** A request id no client sends in these scenarios (they send a handful of requests). */
const NEVER_SENT_ID = 4_000_000_000;
/** How long the rejection of an injected stream may take (before --timeout-scale). */
const REJECTION_WAIT_MS = 4_000;

/** The client's request id as the stream header carries it; a string or out-of-range id cannot be. */
function headerId(request: { id: RequestId }): number {
  if (typeof request.id !== 'number' || !Number.isInteger(request.id) || request.id < 0 || request.id > 0xffff_ffff) {
    throw new TargetPreconditionError(`the client's tools/call id ${JSON.stringify(request.id)} cannot be named in an execution-stream header (WT-ID-1)`, { requirement: 'WT-ID-1' });
  }
  return request.id;
}

/** How long after the result naming it the stream-after-result case opens the stream. */
const STREAM_AFTER_RESULT_MS = 100;

/** How long sending the file may take (before --timeout-scale): the client must read it. */
const SEND_WAIT_MS = 6_000;

/**
 * Opens an execution stream for the request and sends the file on it (FIN at the end). Returns
 * false when that did not finish in time: the client did not read it, or the session ended.
 */
async function sendFile(ctx: CaseContext, requestId: number, streamTag: number, bytes: Uint8Array = FILE): Promise<boolean> {
  const send = async (): Promise<boolean> => {
    try {
      const stream = await wt(ctx).openExecutionStream({ requestId, streamTag });
      for (let offset = 0; offset < bytes.byteLength; offset += 16_384) await stream.write(bytes.subarray(offset, offset + 16_384));
      await stream.close();
      return true;
    } catch (error) {
      if (error instanceof ConnectionError) return false;
      throw error;
    }
  };
  return raceTimeout(ctx, send(), SEND_WAIT_MS, false);
}

function refStreamResult(id: RequestId, streamTag: number): Message {
  return resultResponse(id, { content: [{ type: 'text', text: 'report.txt follows on an execution stream' }, { type: 'ref/stream', streamTag, mimeType: 'text/plain' }] });
}

/** Errors the client sent on the control stream that are not answers to the harness's requests. */
function unsolicitedErrors(server: ScriptedServer): Message[] {
  return clientMessages(server.ctx)
    .map((m) => m.message)
    .filter((m) => isResponse(m) && 'error' in m && !server.sentRequestIds.has(m.id as RequestId));
}

/**
 * WT-EXEC-7: the stream was read to its end, the client raised no stream error, and its scenario
 * succeeded (exit status 0). A client still running at the deadline has not said: reported only.
 */
function checkCorrelated(ctx: CaseContext, { server, exit }: ServedSession, order: string, sent: boolean | undefined): void {
  const errors = unsolicitedErrors(server);
  const message = `a stream sent ${order} the result naming it is read as that call's content (the scenario succeeds)`;
  const expected = 'the stream read to its end, exit status 0, no stream error reported';
  if (errors.length > 0) {
    ctx.check('WT-EXEC-7', false, { message, expected, actual: { reported: errors.map((e) => errorOf(e)) } });
    return;
  }
  if (sent !== true) {
    ctx.check('WT-EXEC-7', false, { message, expected, actual: `the client did not read the stream to its end within ${ctx.scaled(SEND_WAIT_MS)} ms: ${server.observed()}` });
    return;
  }
  if (exit === undefined) {
    ctx.info('WT-EXEC-7', `the client read the stream but was still running ${ctx.scaled(EXIT_WAIT_MS)} ms after the result: its scenario's outcome is not known`);
    return;
  }
  ctx.check('WT-EXEC-7', exit.code === 0, { message, expected, actual: { exit: exitText(exit), stderr: stderrTail(ctx) } });
}

const streamBeforeResult = defineCase({
  id: 'execution-streams/stream-before-result',
  suite: SUITE,
  title: 'WT-EXEC-7: an execution stream that arrives before the result naming it is correlated by (request id, stream tag)',
  requirements: ['WT-EXEC-7'],
  transports: WT_ONLY,
  scenario: DOWNLOAD_CALL,
  async run(ctx) {
    let sent: boolean | undefined;
    const session = await servedCall(ctx, async (request, s) => {
      sent = await sendFile(ctx, headerId(request), 1);
      await s.send(refStreamResult(request.id, 1));
      return true;
    });
    checkCorrelated(ctx, session, 'before', sent);
  },
});

const streamAfterResult = defineCase({
  id: 'execution-streams/stream-after-result',
  suite: SUITE,
  title: 'WT-EXEC-7: an execution stream that arrives after the result naming it is correlated by (request id, stream tag)',
  requirements: ['WT-EXEC-7'],
  transports: WT_ONLY,
  scenario: DOWNLOAD_CALL,
  async run(ctx) {
    let sent: boolean | undefined;
    const session = await servedCall(ctx, async (request, s) => {
      const id = headerId(request);
      await s.send(refStreamResult(request.id, 1));
      // A moment for the client to take the result first. Not scaled: the client's own wait for the
      // stream a result names (2 s in this project's client) does not grow with --timeout-scale.
      await new Promise((resolve) => setTimeout(resolve, STREAM_AFTER_RESULT_MS));
      sent = await sendFile(ctx, id, 1);
      return true;
    });
    checkCorrelated(ctx, session, 'after', sent);
  },
});

/** Does `message` report the injected stream (an error naming its request id)? */
function reportsStream(message: unknown, requestId: number): boolean {
  const data = errorOf(message)?.data;
  return isResponse(message) && isRecord(data) && data.requestId === requestId;
}

const injectedStream = defineCase({
  id: 'execution-streams/injected-stream-refused',
  suite: SUITE,
  title: 'WT-EXEC-2, WT-EXEC-9: a server-opened stream naming a request the client never sent is refused and reported (-32002, id null)',
  requirements: ['WT-EXEC-2', 'WT-EXEC-9', 'WT-ERR-1', 'WT-ERR-3'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: { tool: 'echo', arguments: { text: 'injection' } } },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    const mark = server.mark();
    const header = { requestId: NEVER_SENT_ID, streamTag: 1 };
    let stream: OutgoingExecutionStream | undefined;
    let stopped = false;
    try {
      stream = await raceTimeout(ctx, wt(ctx).openExecutionStream(header), SEND_WAIT_MS, undefined);
      if (!stream) stopped = true;
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      stopped = true;
    }
    // Keep writing until the client stops the stream (STOP_SENDING), reports it, or the deadline passes.
    let report: Message | undefined;
    const deadline = Date.now() + ctx.scaled(REJECTION_WAIT_MS);
    const chunk = new Uint8Array(1024).fill(0x5a);
    while (stream && !stopped && report === undefined && Date.now() < deadline && !ctx.connection.isClosed) {
      try {
        await raceTimeout(ctx, stream.write(chunk), 200, undefined);
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        stopped = true;
      }
      const got = await server.take(50);
      if (got && reportsStream(got.message, header.requestId)) report = got.message as Message;
      else if (got) await server.serve(got.message);
    }
    // A report may still be on its way when the writes failed first.
    if (!report) {
      const got = await server.serveUntil((r) => reportsStream(r.message, header.requestId), QUIET_MS);
      report = got?.message as Message | undefined;
    }
    await stream?.abort('conformance: injected stream done').catch(() => undefined);
    // A session that ended meanwhile refused nothing in particular: the case could not judge.
    if (report === undefined && ctx.connection.isClosed) throw server.precondition('the session ended while the injected stream was open, before the client refused or reported it');
    if (report === undefined) server.absent('a report of the injected stream', mark);
    ctx.check('WT-EXEC-2', stopped || report !== undefined, {
      message: `the stream naming request ${header.requestId} (never sent by the client) is refused`,
      expected: 'STOP_SENDING on the stream, or an error -32002 naming it',
      actual: 'the client kept reading the stream and reported nothing',
    });
    const error = errorOf(report);
    const data = isRecord(error?.data) ? error.data : undefined;
    ctx.check('WT-EXEC-9', report !== undefined && report.id === null && error?.code === CODE.streamInjection && data?.requestId === header.requestId && data.streamTag === header.streamTag, {
      message: 'the refusal is reported on the control stream: id null, -32002, data {requestId, streamTag}',
      expected: { id: null, error: { code: CODE.streamInjection, data: header } },
      actual: report ?? 'no report',
    });
    if (report) {
      ctx.check('WT-ERR-1', error?.code === CODE.streamInjection, { message: 'the injected stream is reported with the binding code for it, -32002 Stream Injection', expected: CODE.streamInjection, actual: error?.code });
      ctx.check('WT-ERR-3', report.id === null, { message: 'the report about a stream of no request carries id null', expected: null, actual: report.id });
    } else {
      ctx.info('WT-ERR-3', 'the client did not report the injected stream on the control stream: no error code or id to judge');
      ctx.info('WT-ERR-1', 'the client did not report the injected stream on the control stream: no error code to judge');
    }
    await server.finishCall(call);
  },
});

const danglingRef = defineCase({
  id: 'execution-streams/dangling-stream-ref',
  suite: SUITE,
  title: 'WT-EXEC-3: a result whose ref/stream names no execution stream fails the call (the scenario exits non-zero)',
  requirements: ['WT-EXEC-3'],
  transports: WT_ONLY,
  scenario: DOWNLOAD_CALL,
  async run(ctx) {
    const { server, exit } = await servedCall(ctx, async (request, s) => {
      headerId(request);
      await s.send(refStreamResult(request.id, 7));
      return true;
    });
    // Success claimed for a call whose stream never came breaks the rule; a client still waiting
    // for the stream at the deadline has not claimed anything (001 sets no wait).
    if (exit === undefined) {
      ctx.info('WT-EXEC-3', `the client was still running ${ctx.scaled(EXIT_WAIT_MS)} ms after the result naming stream 7 (which never came): no outcome to judge`);
    } else {
      ctx.check('WT-EXEC-3', exit.code !== 0, {
        message: 'a ref/stream naming a stream that never came is an error the client reports (non-zero exit status)',
        expected: 'a non-zero exit status',
        actual: exitText(exit),
      });
    }
    const reports = unsolicitedErrors(server).map((m) => ({ id: m.id, error: errorOf(m) }));
    ctx.info('WT-EXEC-3', reports.length > 0 ? `the client reported it on the control stream: ${JSON.stringify(reports)}` : 'the client sent no error about it on the control stream', reports);
  },
});

const streamError = defineCase({
  id: 'execution-streams/stream-error',
  suite: SUITE,
  title: 'WT-STREAMERR-4: a $/streamError naming an unknown request is ignored (no answer, session goes on); a known one fails the call',
  requirements: ['WT-STREAMERR-4'],
  transports: WT_ONLY,
  scenario: DOWNLOAD_CALL,
  async run(ctx) {
    const { exit } = await servedCall(ctx, async (request, s) => {
      const id = headerId(request);
      // Unknown first: nothing may answer it, and the session goes on (ping).
      // An answer that came after the quiet window, up to the ping's answer, counts too.
      const { answers, ping } = await s.unansweredThenPing('WT-STREAMERR-4', notification('$/streamError', { requestId: NEVER_SENT_ID, streamTag: 3, error: 'a stream the client never had' }), QUIET_MS);
      if (answers.length > 0 || ping) {
        ctx.check('WT-STREAMERR-4', answers.length === 0 && ping !== undefined && 'result' in ping, {
          message: 'a $/streamError naming an unknown request gets no response and the session goes on (ping answered)',
          expected: 'no response; ping answered',
          actual: answers.length > 0 ? answers.map((m) => describe(m)) : describe(ping),
        });
      }
      // Then the known one: the stream is reset mid-transfer and reported.
      const stream = await wt(ctx).openExecutionStream({ requestId: id, streamTag: 1 });
      await raceTimeout(ctx, stream.write(FILE.subarray(0, 4096)).catch(() => undefined), SEND_WAIT_MS, undefined);
      await stream.abort('conformance: stream failed mid-transfer').catch(() => undefined);
      await s.send(notification('$/streamError', { requestId: id, streamTag: 1, error: 'Connection reset by peer' }));
      await s.send(refStreamResult(request.id, 1));
      return true;
    });
    // WT-STREAMERR-3 (content of a failed stream not delivered as complete) is not visible on the wire: reported only.
    ctx.info('WT-STREAMERR-4', `after a $/streamError for its download the client ${ending(exit)} (the driver contract asks for non-zero)`, exit);
  },
});

const truncatedHeader = defineCase({
  id: 'execution-streams/truncated-header',
  suite: SUITE,
  title: 'WT-EXEC-1, WT-EXEC-11: an execution stream that ends before its 8-byte header is no stream (reported -32600 with id null, or dropped) and the session goes on',
  requirements: ['WT-EXEC-1', 'WT-EXEC-11'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: { tool: 'echo', arguments: { text: 'header' } } },
  sendsInvalid: true,
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    const mark = server.mark();
    const id = headerId(call);
    // The first 3 bytes of a header naming the call, then FIN.
    const header = new Uint8Array([(id >>> 24) & 0xff, (id >>> 16) & 0xff, (id >>> 8) & 0xff]);
    await raceTimeout(ctx, wt(ctx).openRawStream(header).then((stream) => stream.close()), SEND_WAIT_MS, undefined);
    const answer = await server.awaitNullIdResponse(REJECTION_WAIT_MS / 2);
    if (answer === undefined) {
      server.absent('an answer to the truncated stream', mark);
      // Nothing on the control stream: the stream was dropped silently (001 asks for no report).
      ctx.reading('WT-EXEC-1', 2, `no report within ${ctx.scaled(REJECTION_WAIT_MS / 2)} ms`);
    } else {
      // A report uses the code 001 §4.1 gives a message missing required fields.
      ctx.check('WT-EXEC-1', errorOf(answer)?.code === -32600, {
        message: 'a stream that ends inside its 8-byte header is reported with -32600 Invalid Request, id null',
        expected: { id: null, error: { code: -32600 } },
        actual: answer,
      });
    }
    const ping = await server.request('WT-EXEC-11', 'ping');
    // No answer at all is already a failed check (ScriptedServer.request).
    if (ping) ctx.check('WT-EXEC-11', 'result' in ping, { message: 'the session goes on after the truncated stream (ping answered with a result)', actual: ping });
    await server.finishCall(call);
  },
});

const controlNotBlocked = defineCase({
  id: 'execution-streams/control-not-blocked',
  suite: SUITE,
  title: 'WT-EXEC-8: while an execution stream is still transferring, the client still answers on the control stream',
  requirements: ['WT-EXEC-8'],
  transports: WT_ONLY,
  scenario: DOWNLOAD_CALL,
  async run(ctx) {
    await servedCall(ctx, async (request, s) => {
      const stream = await wt(ctx).openExecutionStream({ requestId: headerId(request), streamTag: 1 });
      const half = FILE.byteLength >>> 1;
      await raceTimeout(ctx, stream.write(FILE.subarray(0, half)), SEND_WAIT_MS, undefined);
      // The stream is open (no FIN yet): the control stream must not wait for it. No answer at all
      // is already a failed check of WT-EXEC-8 (ScriptedServer.request).
      const ping = await s.request('WT-EXEC-8', 'ping');
      if (ping) {
        ctx.check('WT-EXEC-8', 'result' in ping, {
          message: 'a ping is answered with a result while an execution stream of the client\'s call is still open',
          expected: { result: {} },
          actual: ping,
        });
      }
      await raceTimeout(ctx, stream.write(FILE.subarray(half)).then(() => stream.close()), SEND_WAIT_MS, undefined);
      await s.send(refStreamResult(request.id, 1));
      return true;
    });
  },
});

export const cases: readonly ConformanceCase[] = [streamBeforeResult, streamAfterResult, injectedStream, danglingRef, streamError, truncatedHeader, controlNotBlocked];
