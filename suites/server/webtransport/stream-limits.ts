// Suite `stream-limits`: the limits a WebTransport server advertises and must hold to (001 §8, §9):
// maxConcurrentStreams (one stream more is refused with -32000 naming the limit), many requests
// at once (which need no stream and are never refused for it), a datagram flood, and
// maxMessageSize (advertised, finite, and a frame of exactly that size still served).
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { OutgoingExecutionStream } from '../../../src/transport/connection.js';
import { ConnectionError } from '../../../src/transport/errors.js';
import { isRecord } from '../../../src/wire/index.js';
import { errorOf, isResponseTo, openSession, request, type Message } from '../../support/session.js';
import { advertisedLimit, bodyOf, frame, maybeNext, pingAnswered, pingRequest, raceTimeout, sendRawQuietly, transportOf, wt } from '../../support/webtransport.js';

const SUITE = 'stream-limits';
const WT_ONLY = ['webtransport'] as const;
const STREAM_LIMIT_EXCEEDED = -32000;
/** The most streams the case opens to find the limit (a larger advertised limit is reported, not probed). */
const MAX_PROBED_STREAMS = 256;
/** The largest frame the case sends to check that maxMessageSize itself is served. */
const MAX_PROBED_FRAME = 16 * 1024 * 1024;

/** An error with id null whose data names a stream of `requestId` (how a refused stream is reported). */
function streamReport(message: unknown, requestId: number): Message | undefined {
  if (!isRecord(message) || 'method' in message || message.id !== null) return undefined;
  const data = errorOf(message)?.data;
  return isRecord(data) && data.requestId === requestId ? message : undefined;
}

const maxConcurrentStreamsPlusOne = defineCase({
  id: 'stream-limits/max-concurrent-streams-plus-one',
  suite: SUITE,
  title: 'WT-LIMIT-1: with maxConcurrentStreams execution streams open for a request in flight, one more is refused with -32000 Stream Limit Exceeded naming the limit',
  requirements: ['WT-LIMIT-1', 'WT-LIMIT-2'],
  transports: WT_ONLY,
  sleeps: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    const init = await openSession(ctx);
    const limit = advertisedLimit(init, 'maxConcurrentStreams');
    if (limit === undefined || limit > MAX_PROBED_STREAMS) {
      const why = limit === undefined ? 'the server advertised no maxConcurrentStreams (see WT-INIT-3)' : `maxConcurrentStreams ${limit} is above the ${MAX_PROBED_STREAMS} streams this case opens`;
      ctx.info('WT-LIMIT-1', why);
      ctx.info('WT-LIMIT-2', why);
      return;
    }
    // One request that names every stream the case opens: the streams belong to it while it is in
    // flight. A server may answer it at once; its streams then name a request no longer in flight
    // and are refused as injected (-32002, WT-EXEC-2), which tells nothing about the limit (rule 7).
    const requestId = ctx.nextId();
    const tags = Array.from({ length: limit + 1 }, (_, i) => i + 1);
    await ctx.connection.send(request(requestId, 'ping', { _meta: { inputs: tags.map((streamTag) => ({ type: 'ref/stream', streamTag })) } }));
    let ownerAnsweredAt: number | undefined;
    const owner = maybeNext(ctx, (r) => isResponseTo(r.message, requestId), 10_000).then((r) => {
      if (r) ownerAnsweredAt = Date.now();
      return r;
    });
    const streams: OutgoingExecutionStream[] = [];
    let withheld = false;
    try {
      for (const streamTag of tags) {
        try {
          // A transport that enforces the limit with its own stream credit never grants the stream:
          // a window from the target's speed decides (a grant takes a round trip).
          const opening = wt(ctx).openExecutionStream({ requestId, streamTag });
          const grantMs = Math.max(500, ctx.quietMs(2_000));
          const opened = await raceTimeout(ctx, opening, grantMs, undefined);
          if (opened === undefined) {
            void opening.then((late) => late.abort('not granted in time'), () => undefined);
            withheld = true;
            ctx.waited('silence', 'a stream grant beyond the limit', ctx.scaled(grantMs));
            ctx.note(`stream ${streamTag} was not granted within ${ctx.scaled(grantMs)} ms`);
            break;
          }
          streams.push(opened);
          // A few payload bytes, no FIN: the stream stays open.
          await opened.write(new Uint8Array([streamTag & 0xff])).catch(() => undefined);
        } catch (error) {
          if (!(error instanceof ConnectionError)) throw error;
          ctx.note(`stream ${streamTag} could not be opened: ${error.message}`);
          break;
        }
      }
      const lastOpenedAt = Date.now();
      const extra = streams.length === tags.length ? streams[streams.length - 1] : undefined;
      // Watch for reports of the streams and for the extra one being stopped (its writes failing).
      const reports: Message[] = [];
      let stopped = false;
      // The extra stream's refusal is owed once it is open; with none open (withheld), only reports of the others can still come.
      const deadline = Date.now() + ctx.scaled(extra ? 4_000 : ctx.quietMs(4_000));
      const chunk = new Uint8Array(1024).fill(0x5a);
      while (Date.now() < deadline && !stopped && !ctx.connection.isClosed && !reports.some((r) => errorOf(r)?.code === STREAM_LIMIT_EXCEEDED)) {
        const next = await maybeNext(ctx, (r) => streamReport(r.message, requestId) !== undefined, 200);
        if (next) reports.push(next.message as Message);
        if (extra) {
          try {
            await raceTimeout(ctx, extra.write(chunk), 200, undefined);
          } catch (error) {
            if (!(error instanceof ConnectionError)) throw error;
            stopped = true;
          }
        }
      }
      const refusal = reports.find((r) => errorOf(r)?.code === STREAM_LIMIT_EXCEEDED);
      const ownerInFlight = ownerAnsweredAt === undefined || ownerAnsweredAt > lastOpenedAt;
      const error = errorOf(refusal);
      if (refusal) {
        ctx.check('WT-LIMIT-1', true, { message: `stream ${limit + 1} over maxConcurrentStreams ${limit} is refused with -32000 Stream Limit Exceeded` });
        const data = error?.data;
        if (isRecord(data) && typeof data.streamTag === 'number') {
          ctx.check('WT-LIMIT-1', data.streamTag > limit, {
            message: `the refused stream is one beyond the advertised ${limit}, not one of the first ${limit}`,
            expected: { streamTag: limit + 1 },
            actual: data,
          });
        }
        const text = String(error?.message ?? '');
        ctx.check('WT-LIMIT-2', text.includes(String(limit)), { message: 'the Stream Limit Exceeded message names the limit', expected: `a message containing ${limit}`, actual: text });
      } else if (withheld) {
        ctx.check('WT-LIMIT-1', true, { message: `stream ${streams.length + 1} over maxConcurrentStreams ${limit} was never granted by the transport` });
        ctx.info('WT-LIMIT-1', 'reading: the transport withholds streams beyond the limit');
        ctx.info('WT-LIMIT-2', 'no -32000 was sent, so its message could not be checked');
      } else if (!ownerInFlight) {
        ctx.info('WT-LIMIT-1', `the ping owning the streams was answered before stream ${limit + 1} was opened: its streams name a request no longer in flight, so their refusals (-32002, WT-EXEC-2) tell nothing about the limit`, reports.slice(0, 3));
        ctx.info('WT-LIMIT-2', 'no -32000 was sent, so its message could not be checked');
      } else {
        const other = reports.find((r) => {
          const data = errorOf(r)?.data;
          return isRecord(data) && data.streamTag === limit + 1;
        });
        ctx.check('WT-LIMIT-1', other === undefined && stopped, {
          message: `stream ${limit + 1} over maxConcurrentStreams ${limit}, opened while its request was in flight, is refused with -32000 Stream Limit Exceeded`,
          expected: { id: null, error: { code: STREAM_LIMIT_EXCEEDED } },
          actual: other ?? (stopped ? 'stopped without a report' : 'the stream was read and nothing was reported'),
        });
        if (other === undefined && stopped) ctx.info('WT-LIMIT-1', 'reading: the extra stream was stopped (STOP_SENDING) without a -32000 report');
        ctx.info('WT-LIMIT-2', 'no -32000 was sent, so its message could not be checked');
      }
    } finally {
      await Promise.all(streams.map((s) => s.abort('conformance: limit probed').catch(() => undefined)));
    }
    // Whether the owner was still in flight is decided above; its answer (a target may hold it for
    // the refused stream's reference grace, -32001) is not waited for.
    void owner.catch(() => undefined);
    // A target that holds the owner for its streams' grace may answer this ping after it: the worker serves other cases meanwhile.
    const serving = await ctx.awaitTarget(pingAnswered(ctx, ctx.nextId()));
    ctx.check('WT-LIMIT-1', serving, { message: 'the session still serves requests after the refused stream', actual: serving ? 'ping answered' : 'no answer' });
  },
});

const manyConcurrentRequests = defineCase({
  id: 'stream-limits/many-concurrent-requests',
  suite: SUITE,
  title: 'WT-LIMIT-1: many requests in flight at once (no streams needed) are all answered, none with -32000',
  requirements: ['WT-LIMIT-1', 'WT-FRAME-6'],
  transports: WT_ONLY,
  timeLimitMs: 15_000,
  async run(ctx) {
    const init = await openSession(ctx);
    const count = Math.max(64, 4 * (advertisedLimit(init, 'maxConcurrentStreams') ?? 16));
    const ids = Array.from({ length: Math.min(count, 512) }, () => ctx.nextId());
    await Promise.all(ids.map((id) => ctx.connection.send(pingRequest(id))));
    const answers = new Map<number, Message>();
    for (const id of ids) {
      const answer = await maybeNext(ctx, (r) => isResponseTo(r.message, id), 8_000);
      if (!answer) break;
      answers.set(id, answer.message as Message);
    }
    ctx.check('WT-FRAME-6', answers.size === ids.length, {
      message: `${ids.length} pings sent back to back are all answered`,
      expected: ids.length,
      actual: answers.size,
    });
    const refused = [...answers.values()].filter((a) => errorOf(a)?.code === STREAM_LIMIT_EXCEEDED);
    ctx.check('WT-LIMIT-1', refused.length === 0, {
      message: 'requests that need no execution stream are never refused with Stream Limit Exceeded',
      expected: 'no -32000',
      actual: refused.slice(0, 3),
    });
  },
});

/** Datagrams sent in the flood (paced by the connection's send queue). */
const FLOOD_DATAGRAMS = 300;

const datagramFlood = defineCase({
  id: 'stream-limits/datagram-flood',
  suite: SUITE,
  title: 'WT-DGRAM-10: a flood of datagrams naming no request in flight (and unknown channels) is dropped; the session keeps serving',
  requirements: ['WT-DGRAM-10', 'WT-DGRAM-4'],
  transports: WT_ONLY,
  timeLimitMs: 15_000,
  applies: (discovery) =>
    discovery.transport?.datagramsSupported === true ? true : 'the target did not advertise datagramsSupported: true',
  async run(ctx) {
    await openSession(ctx);
    const payload = bodyOf(ctx, { progressToken: 1, progress: 1 });
    for (let i = 0; i < FLOOD_DATAGRAMS && !ctx.connection.isClosed; i++) {
      const channel = i % 3 === 0 ? 0x10 + (i % 0xe0) : i % 3 === 1 ? 0x01 : 0x03;
      try {
        await wt(ctx).sendDatagram({ channel, requestId: 100_000 + i, payload });
      } catch (error) {
        if (error instanceof ConnectionError) break;
        throw error;
      }
    }
    const serving = await pingAnswered(ctx, ctx.nextId());
    ctx.check('WT-DGRAM-10', serving && !ctx.connection.isClosed, {
      message: `after ${FLOOD_DATAGRAMS} datagrams naming no request in flight the session still serves a ping`,
      expected: 'ping answered, session open',
      actual: ctx.connection.isClosed ? 'the session closed' : serving ? 'answered' : 'no answer',
    });
    ctx.info('WT-DGRAM-4', ctx.connection.isClosed ? 'the session closed during the flood (unknown channels included)' : 'unknown channels were ignored: the session stayed open');
  },
});

/** A ping padded (in `params._meta`) so that its body in the encoding in force is exactly `size` bytes. */
function pingOfSize(ctx: CaseContext, id: number, size: number): Uint8Array | undefined {
  const base = bodyOf(ctx, { ...pingRequest(id), params: { _meta: { padding: '' } } }).byteLength;
  let pad = size - base;
  for (let attempt = 0; attempt < 8 && pad >= 0; attempt++) {
    const body = bodyOf(ctx, { ...pingRequest(id), params: { _meta: { padding: 'x'.repeat(pad) } } });
    if (body.byteLength === size) return body;
    pad -= body.byteLength - size;
  }
  return undefined;
}

const maxMessageSizeHonoured = defineCase({
  id: 'stream-limits/max-message-size-advertised-and-served',
  suite: SUITE,
  title: 'WT-SEC-3: the server advertises a finite maxMessageSize, and a frame of exactly that size is still served (WT-LIMIT-3)',
  requirements: ['WT-SEC-3', 'WT-LIMIT-3'],
  transports: WT_ONLY,
  timeLimitMs: 15_000,
  async run(ctx) {
    const init = await openSession(ctx);
    const advertised = transportOf(init)?.maxMessageSize;
    const max = advertisedLimit(init, 'maxMessageSize');
    ctx.check('WT-SEC-3', max !== undefined && max < 0xffff_ffff, {
      message: 'result.transport.maxMessageSize is a finite positive integer below the 2^32-1 a prefix can declare',
      expected: 'an integer in 1..4294967294',
      actual: advertised,
    });
    if (max === undefined || max > MAX_PROBED_FRAME) {
      ctx.info('WT-LIMIT-3', max === undefined ? 'no maxMessageSize advertised' : `maxMessageSize ${max} is above the ${MAX_PROBED_FRAME} bytes this case sends`);
      return;
    }
    const id = ctx.nextId();
    const body = pingOfSize(ctx, id, max);
    if (!body) {
      ctx.info('WT-LIMIT-3', `no ping of exactly ${max} bytes could be built in ${wt(ctx).encoding}`);
      return;
    }
    await sendRawQuietly(ctx, frame(body));
    const answer = await maybeNext(ctx, (r) => isResponseTo(r.message, id), 10_000);
    ctx.check('WT-LIMIT-3', answer !== undefined && isRecord(answer.message) && 'result' in answer.message, {
      message: `a frame of exactly maxMessageSize (${max}) bytes is served: the limit enforced is the one advertised`,
      expected: { id, result: {} },
      actual: answer?.message ?? (ctx.connection.isClosed ? 'the session closed' : 'no answer'),
    });
  },
});

export const cases: readonly ConformanceCase[] = [maxConcurrentStreamsPlusOne, manyConcurrentRequests, datagramFlood, maxMessageSizeHonoured];
