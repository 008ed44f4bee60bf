// Suite `robustness` (client side, WebTransport): a control frame from the server that does not
// decode is answered with -32700 (id null) and the client goes on with the next frame: it still
// answers a ping and finishes its scenario (001 §2.1, §4.1).
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { codecFor } from '../../../src/wire/index.js';
import { closesWithin, frame, frameOf, sendRawQuietly, wt } from '../../support/webtransport.js';
import { callInFlight, clientMessages, CODE, describe, ECHO_CALL, ending, errorOf, EXIT_WAIT_MS, exitText, isResponse, isResponseTo, offersCbor, QUIET_MS, request, stderrTail, type Message, type RequestId } from '../../support/scripted-server.js';

const SUITE = 'robustness';
/** How long the -32700 answer may take (before --timeout-scale). */
const PARSE_ERROR_WAIT_MS = 2_000;

const encoder = new TextEncoder();
/** Bodies that do not decode, per encoding in force: each is one complete frame. */
const GARBAGE: Record<'json' | 'cbor', readonly { what: string; body: Uint8Array }[]> = {
  json: [
    { what: 'truncated JSON', body: encoder.encode('{"jsonrpc": "2.0", "method": ') },
    { what: 'invalid UTF-8', body: new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]) },
  ],
  cbor: [
    { what: 'a lone CBOR break byte', body: new Uint8Array([0xff]) },
    { what: 'a CBOR map cut short', body: new Uint8Array([0xa2, 0x67, 0x6a, 0x73]) },
  ],
};

const garbageFrames = defineCase({
  id: 'robustness/garbage-frame-answered',
  suite: SUITE,
  title: 'WT-FRAME-4, WT-FRAME-8: a control frame that does not decode is answered -32700 (id null) and the next frame is still read',
  requirements: ['WT-FRAME-4', 'WT-FRAME-8'],
  transports: ['webtransport'],
  scenario: { name: 'tools-call', context: ECHO_CALL },
  sendsInvalid: true,
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    for (const garbage of GARBAGE[wt(ctx).encoding]) {
      const mark = server.mark();
      if (!(await sendRawQuietly(ctx, frame(garbage.body)))) break;
      const answer = await server.awaitNullIdResponse(PARSE_ERROR_WAIT_MS);
      if (!answer) server.absent('an answer to the undecodable frame', mark);
      ctx.check('WT-FRAME-4', answer !== undefined && errorOf(answer)?.code === CODE.parseError, {
        message: `a frame holding ${garbage.what} is answered with -32700 Parse error, id null`,
        expected: { id: null, error: { code: CODE.parseError } },
        actual: answer ?? `no answer within ${ctx.scaled(PARSE_ERROR_WAIT_MS)} ms: ${server.observed()}`,
      });
      const ping = await server.request('WT-FRAME-8', 'ping', undefined, PARSE_ERROR_WAIT_MS);
      if (!ping) break;
      ctx.check('WT-FRAME-8', 'result' in ping, { message: `after the frame holding ${garbage.what} the next frame (a ping) is still served`, expected: { result: {} }, actual: ping });
    }
    const exit = await server.finishCall(call);
    ctx.info('WT-FRAME-8', `after the garbage the client ${ending(exit)}`, exit);
  },
});

const INVALID_REQUEST = -32600;
const ENCODING_MISMATCH = -32003;
const WT_ONLY = ['webtransport'] as const;

const zeroLengthFrame = defineCase({
  id: 'robustness/zero-length-frame',
  suite: SUITE,
  title: 'WT-FRAME-2: a control frame of length 0 is answered -32600 Invalid Request (id null)',
  requirements: ['WT-FRAME-2'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: ECHO_CALL },
  sendsInvalid: true,
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    const mark = server.mark();
    if (await sendRawQuietly(ctx, new Uint8Array(4))) {
      const answer = await server.awaitNullIdResponse(PARSE_ERROR_WAIT_MS);
      if (!answer) server.absent('an answer to the zero-length frame', mark);
      const code = errorOf(answer)?.code;
      // An empty body is also a body that does not parse: -32700 is a reading the seeds allow (issue 12).
      ctx.check('WT-FRAME-2', answer !== undefined && (code === INVALID_REQUEST || code === CODE.parseError), {
        message: 'a zero-length frame is answered with -32600 Invalid Request (or -32700 Parse error), id null',
        expected: { id: null, error: { code: INVALID_REQUEST } },
        actual: answer ?? `no answer within ${ctx.scaled(PARSE_ERROR_WAIT_MS)} ms: ${server.observed()}`,
      });
      if (code === CODE.parseError) ctx.info('WT-FRAME-2', 'the zero-length frame was answered -32700 Parse error (an empty body does not decode), not -32600');
    }
    await server.finishCall(call);
  },
});

const wrongEncodingFrame = defineCase({
  id: 'robustness/frame-in-other-encoding',
  suite: SUITE,
  title: 'WT-ENC-5: with CBOR negotiated, a JSON frame from the server is answered -32003 Encoding Mismatch (id null) and not processed',
  requirements: ['WT-ENC-5'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: ECHO_CALL },
  applies: offersCbor,
  sendsInvalid: true,
  async run(ctx) {
    const { server, call } = await callInFlight(ctx, { result: { transport: { encoding: 'cbor' } } });
    const pingId = server.reserveRequestId();
    const mark = server.mark();
    if (await sendRawQuietly(ctx, frame(codecFor('json').encode(request(pingId, 'ping'))))) {
      // The error may carry id null or echo the ping's id, readable in the JSON body (issue 12).
      const received = await server.serveUntil((r) => isResponse(r.message) && (r.message.id === null || (r.message.id === pingId && 'error' in r.message)), PARSE_ERROR_WAIT_MS);
      const answer = received?.message as Message | undefined;
      if (!answer) server.absent('an answer to the JSON frame', mark);
      ctx.check('WT-ENC-5', answer !== undefined && errorOf(answer)?.code === ENCODING_MISMATCH, {
        message: 'a JSON frame after CBOR was negotiated is answered with -32003 Encoding Mismatch',
        expected: { id: null, error: { code: ENCODING_MISMATCH } },
        actual: answer ?? `no answer within ${ctx.scaled(PARSE_ERROR_WAIT_MS)} ms: ${server.observed()}`,
      });
      if (answer?.id === pingId) ctx.info('WT-ENC-5', `the -32003 error echoes the ping's id ${pingId} (readable in the JSON body) instead of id null`);
      const served = server.seen.some((s) => isResponseTo(s.received.message, pingId) && 'result' in (s.received.message as Message));
      ctx.check('WT-ENC-5', !served, { message: 'the ping in the wrong encoding is not processed (no result for it)', expected: 'no answer to the ping', actual: served ? 'the ping was answered' : 'not answered' });
    }
    await server.finishCall(call);
  },
});

const splitFrames = defineCase({
  id: 'robustness/split-and-coalesced-frames',
  suite: SUITE,
  title: 'WT-FRAME-6: a frame split across several writes is reassembled, and two frames in one write are both read',
  requirements: ['WT-FRAME-6'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: ECHO_CALL },
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    const ping = (id: number) => (request(id, 'ping'));
    const mark = server.mark();
    // One frame in three writes, cutting through the length prefix and the body.
    const splitId = server.reserveRequestId();
    const whole = frameOf(ctx, ping(splitId));
    for (const [from, to] of [[0, 2], [2, 7], [7, whole.byteLength]] as const) {
      if (!(await sendRawQuietly(ctx, whole.subarray(from, to)))) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const split = await server.serveUntil((r) => isResponseTo(r.message, splitId), PARSE_ERROR_WAIT_MS);
    if (!split) server.absent('an answer to the split ping', mark);
    ctx.check('WT-FRAME-6', split !== undefined, { message: 'a ping frame written in three pieces is answered', expected: `an answer to ${splitId}`, actual: split ? describe(split.message) : `no answer: ${server.observed()}` });
    // Two frames in one write.
    const [a, b] = [server.reserveRequestId(), server.reserveRequestId()];
    await sendRawQuietly(ctx, new Uint8Array([...frameOf(ctx, ping(a)), ...frameOf(ctx, ping(b))]));
    const first = await server.serveUntil((r) => isResponseTo(r.message, a), PARSE_ERROR_WAIT_MS);
    const second = await server.serveUntil((r) => isResponseTo(r.message, b), PARSE_ERROR_WAIT_MS);
    if (!first || !second) server.absent('answers to the two coalesced pings', mark);
    ctx.check('WT-FRAME-6', first !== undefined && second !== undefined, {
      message: 'two ping frames written at once are both answered',
      expected: `answers to ${a} and ${b}`,
      actual: [first ? describe(first.message) : `no answer to ${a}`, second ? describe(second.message) : `no answer to ${b}`],
    });
    await server.finishCall(call);
  },
});

const endInsideFrame = defineCase({
  id: 'robustness/control-stream-ends-inside-frame',
  suite: SUITE,
  title: 'WT-FRAME-5, WT-CONN-6: a control stream that ends inside a frame leaves a partial message that is not processed (-32700, or none) and closes the session',
  requirements: ['WT-FRAME-5', 'WT-CONN-6'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: ECHO_CALL },
  sendsInvalid: true,
  async run(ctx) {
    const { server } = await callInFlight(ctx);
    const mark = server.mark();
    const pingId = ctx.nextId();
    // A whole ping whose length prefix claims 3 bytes more than it has: the control stream ends
    // inside the frame, and what arrived would decode (a client that serves it answers the ping).
    const body = frameOf(ctx, request(pingId, 'ping')).subarray(4);
    const cut = new Uint8Array(4 + body.byteLength);
    new DataView(cut.buffer).setUint32(0, body.byteLength + 3);
    cut.set(body, 4);
    if (await sendRawQuietly(ctx, cut)) await wt(ctx).endControlStream();
    const answer = await server.awaitNullIdResponse(PARSE_ERROR_WAIT_MS);
    const served = clientMessages(ctx).some((m) => isResponseTo(m.message, pingId));
    if (served || answer !== undefined) {
      ctx.check('WT-FRAME-5', !served && errorOf(answer)?.code === CODE.parseError, {
        message: 'the frame cut short by the end of the control stream is not processed; an answer is -32700 (id null)',
        expected: { id: null, error: { code: CODE.parseError } },
        actual: served ? 'the partial ping was answered' : answer,
      });
    } else {
      server.absent('an answer to the frame cut short', mark);
      ctx.reading('WT-FRAME-5', 2, `no answer within ${ctx.scaled(PARSE_ERROR_WAIT_MS)} ms`);
    }
    const closed = await closesWithin(ctx, EXIT_WAIT_MS);
    ctx.check('WT-CONN-6', closed, {
      message: 'the end of the control stream closes the session',
      expected: 'the session closes',
      actual: closed ? 'closed' : `still open ${ctx.scaled(EXIT_WAIT_MS)} ms after the control stream ended`,
    });
  },
});

/** Datagrams a receiver drops without an answer (001 §2.3), with the requirement each tests. */
function strayDatagrams(ctx: CaseContext, callId: number): { requirement: string; what: string; bytes: Uint8Array }[] {
  const payload = codecFor(wt(ctx).encoding).encode({ progressToken: 'none', progress: 1 });
  const datagram = (channel: number, flags: number, requestId: number) => {
    const bytes = new Uint8Array(6 + payload.byteLength);
    const view = new DataView(bytes.buffer);
    view.setUint8(0, channel);
    view.setUint8(1, flags);
    view.setUint32(2, requestId);
    bytes.set(payload, 6);
    return bytes;
  };
  return [
    { requirement: 'WT-DGRAM-1', what: 'a 3-byte datagram (shorter than its header)', bytes: new Uint8Array([0x01, 0x00, 0x00]) },
    { requirement: 'WT-DGRAM-2', what: 'a datagram on the reserved channel 0x00', bytes: datagram(0x00, 0, callId) },
    { requirement: 'WT-DGRAM-3', what: 'a datagram with flags 0x01', bytes: datagram(0x01, 0x01, callId) },
    { requirement: 'WT-DGRAM-10', what: 'a progress datagram naming a request not in flight', bytes: datagram(0x01, 0, 4_000_000_000) },
  ];
}

/** Readings of the requirements where a report of the dropped datagram (id null) is one. */
const REPORT_READING: Readonly<Record<string, number>> = { 'WT-DGRAM-1': 2, 'WT-DGRAM-2': 2 };

const strayDatagramsDropped = defineCase({
  id: 'robustness/malformed-datagrams-dropped',
  suite: SUITE,
  title: 'WT-DGRAM-1/2/3/10/11: short, reserved-channel, flagged and not-in-flight datagrams are dropped (at most reported with id null); the session goes on and the call still completes',
  requirements: ['WT-DGRAM-1', 'WT-DGRAM-2', 'WT-DGRAM-3', 'WT-DGRAM-10', 'WT-DGRAM-11'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: ECHO_CALL },
  sendsInvalid: true,
  async run(ctx) {
    const { server, call } = await callInFlight(ctx);
    if (typeof call.id !== 'number') throw new TargetPreconditionError('the tools/call id is not a number (WT-ID-1)', { requirement: 'WT-ID-1' });
    for (const stray of strayDatagrams(ctx, call.id)) {
      try {
        await wt(ctx).sendRawDatagram(stray.bytes);
      } catch {
        continue;
      }
      const before = server.seen.length;
      // Over HTTP/2 the datagram and the ping travel on one stream, in order: once the ping is
      // answered the client has dealt with the datagram. No answer fails WT-DGRAM-11 (ScriptedServer.request).
      const ping = await server.request('WT-DGRAM-11', 'ping');
      if (ping) ctx.check('WT-DGRAM-11', 'result' in ping, { message: `after ${stray.what} the session goes on (ping answered with a result)`, actual: ping });
      await server.collectUnsolicited(QUIET_MS / 2);
      const answers = server.seen.slice(before).map((s) => s.received.message).filter((m) => isResponse(m) && !server.sentRequestIds.has(m.id as RequestId)) as Message[];
      const reports = answers.filter((m) => m.id === null && 'error' in m);
      const others = answers.filter((m) => !reports.includes(m));
      ctx.check(stray.requirement, others.length === 0, {
        message: `${stray.what} is dropped: no response, at most an error report with id null`,
        expected: 'nothing, or an error with id null',
        actual: others.length > 0 ? others : reports.length > 0 ? reports : 'nothing',
      });
      if (others.length === 0 && reports.length > 0) {
        const reading = REPORT_READING[stray.requirement];
        if (reading !== undefined) ctx.reading(stray.requirement, reading, `${stray.what}: ${JSON.stringify(errorOf(reports[0]))}`);
        else ctx.info(stray.requirement, `${stray.what} was dropped and reported with an error, id null`, reports);
      }
      if (ctx.connection.isClosed) break;
    }
    const exit = await server.finishCall(call);
    if (exit === undefined) {
      ctx.info('WT-DGRAM-10', `the client was still running ${ctx.scaled(EXIT_WAIT_MS)} ms after its call was answered: whether the call completed is not known`);
    } else {
      ctx.check('WT-DGRAM-10', exit.code === 0, {
        message: 'the call the stray datagrams came during still completes (the scenario succeeds)',
        expected: 'exit status 0',
        actual: { exit: exitText(exit), stderr: stderrTail(ctx) },
      });
    }
  },
});

export const cases: readonly ConformanceCase[] = [garbageFrames, zeroLengthFrame, wrongEncodingFrame, splitFrames, endInsideFrame, strayDatagramsDropped];
