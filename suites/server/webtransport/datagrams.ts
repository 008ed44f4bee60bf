// Suite `datagrams` (seed 001 §2.3, §4.2, §9; profile C-08, C-20): the 6-byte header of the
// datagrams a server sends, progress and log payloads in the negotiated encoding tied to a request
// in flight, the final result always on the control stream, malformed or stray datagrams from the
// client dropped without an answer (the server keeps serving), and -32004 when the server said
// `datagramsSupported: false`. Datagrams are sent one at a time, each write awaited, so the
// client never has more than one queued (far below the library's ~256).
import fc from 'fast-check';
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { ReceivedDatagram } from '../../../src/transport/connection.js';
import { codecFor, encodeDatagram, isRecord } from '../../../src/wire/index.js';
import { errorOf, openSession, request, type Message } from '../../support/session.js';
import {
  callTool,
  collectDatagrams,
  faultsWithCode,
  maybeMessage,
  pendingNullIdErrors,
  progressCandidates,
  requiresDatagrams,
  requiresDatagramsAndTools,
  requiresNoDatagrams,
  requireToolList,
  STREAM_EVENT_MS,
  within,
  wtFacet,
  type PendingCall,
} from '../../support/streams.js';

const SUITE = 'datagrams';
const WT = ['webtransport'] as const;
const PROGRESS = 0x01;
const LOG = 0x03;
/** Longest wait for a progress call's answer (before --timeout-scale). */
const CALL_MS = 8_000;

/** Calls the first progress candidate with a progressToken; undefined when the target lists none. */
async function startProgressCall(ctx: CaseContext, token: string): Promise<PendingCall | undefined> {
  const tool = progressCandidates(ctx, await requireToolList(ctx))[0];
  return tool ? callTool(ctx, tool, {}, token) : undefined;
}

/** Settles with the call's answer, or after CALL_MS. */
function answerWithin(ctx: CaseContext, call: PendingCall): Promise<unknown> {
  return within(ctx, call.answer, ctx.scaled(CALL_MS));
}

/** What a progress (0x01) or log (0x03) payload holds: the params (reading 1) or the whole notification (reading 2). */
function payloadParams(datagram: ReceivedDatagram): { params?: Message; reading?: 'params' | 'notification' } {
  const decoded = datagram.decoded;
  if (!isRecord(decoded)) return {};
  const method = datagram.channel === PROGRESS ? 'notifications/progress' : 'notifications/message';
  if (decoded.method === method && isRecord(decoded.params)) return { params: decoded.params, reading: 'notification' };
  return { params: decoded, reading: 'params' };
}

function payloadProblem(datagram: ReceivedDatagram, token: string): string | undefined {
  if (datagram.channel !== PROGRESS && datagram.channel !== LOG) return undefined;
  const { params } = payloadParams(datagram);
  if (!params) return `payload does not decode as an object in the negotiated encoding`;
  if (datagram.channel === PROGRESS) {
    if (typeof params.progress !== 'number') return 'progress payload has no numeric progress';
    if (params.progressToken !== undefined && params.progressToken !== token) return `progress payload names token ${JSON.stringify(params.progressToken)}, not the request's`;
    return undefined;
  }
  if (typeof params.level !== 'string' || !('data' in params)) return 'log payload is not notifications/message params (level, data)';
  return undefined;
}

const progressDatagrams = defineCase({
  id: `${SUITE}/progress-datagrams`,
  suite: SUITE,
  title: 'progress and log datagrams have the 6-byte header (defined channel, flags 0x00), name the request in flight, carry params in the negotiated encoding; the result comes on the control stream',
  requirements: ['WT-DGRAM-1', 'WT-DGRAM-2', 'WT-DGRAM-3', 'WT-DGRAM-6', 'WT-DGRAM-7', 'WT-DGRAM-8'],
  transports: WT,
  applies: requiresDatagramsAndTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const token = 'conformance-progress';
    const call = await startProgressCall(ctx, token);
    if (!call) {
      ctx.info('WT-DGRAM-6', 'no tool the target lists mentions progress, so no datagram could be asked for');
      return;
    }
    const datagrams = await collectDatagrams(ctx, call.id, answerWithin(ctx, call));
    const malformed = (code: string) => faultsWithCode(ctx, [code]);
    ctx.check('WT-DGRAM-1', malformed('DATAGRAM_TOO_SHORT').length === 0, {
      message: 'every datagram from the server has the 6-byte header',
      actual: malformed('DATAGRAM_TOO_SHORT'),
    });
    ctx.check('WT-DGRAM-2', malformed('DATAGRAM_RESERVED_CHANNEL').length === 0, {
      message: 'no datagram from the server uses the reserved channel 0x00',
      actual: malformed('DATAGRAM_RESERVED_CHANNEL'),
    });
    ctx.check('WT-DGRAM-3', malformed('DATAGRAM_RESERVED_FLAGS').length === 0, {
      message: 'every datagram from the server has flags 0x00',
      actual: malformed('DATAGRAM_RESERVED_FLAGS'),
    });
    ctx.check('WT-DGRAM-7', malformed('DATAGRAM_NOT_IN_FLIGHT').length === 0, {
      message: 'the server sends datagrams only for requests in flight',
      actual: malformed('DATAGRAM_NOT_IN_FLIGHT'),
    });
    const answer = call.answered?.message as Message | undefined;
    ctx.check('WT-DGRAM-8', answer !== undefined && ('result' in answer || 'error' in answer), {
      message: `the final answer to tools/call ${call.tool.name} (request ${call.id}) comes on the control stream`,
      actual: answer ?? `no answer within ${ctx.scaled(CALL_MS)} ms (${datagrams.length} datagram(s) for the request)`,
    });
    const payloads = datagrams.filter((d) => d.channel === PROGRESS || d.channel === LOG);
    if (payloads.length === 0) {
      ctx.info('WT-DGRAM-6', `no progress or log datagram for request ${call.id}: progress travelled on the control stream (or not at all)`);
      return;
    }
    const problems = payloads.map((d) => ({ channel: d.channel, problem: payloadProblem(d, token), decoded: d.decoded })).filter((p) => p.problem);
    ctx.check('WT-DGRAM-6', problems.length === 0, {
      message: 'progress/log datagram payloads are notifications/progress / notifications/message params in the negotiated encoding (progressToken absent or the request\'s)',
      actual: problems.length > 0 ? problems : undefined,
    });
    const readings = new Set(payloads.map((d) => payloadParams(d).reading).filter(Boolean));
    if (readings.has('params')) ctx.reading('WT-DGRAM-6', 1);
    if (readings.has('notification')) ctx.reading('WT-DGRAM-6', 2);
  },
});

/**
 * A case sending datagrams the server drops, then checking it still serves (WT-DGRAM-11). Whether
 * it reports them (an error with id null) is a reading of the datagram's own requirement, reported
 * once at the end: nothing is owed for a datagram, so the generated input expects only the session
 * to go on.
 */
function droppedDatagramCase(options: {
  name: string;
  requirement: string;
  title: string;
  what: string;
  datagrams: () => fc.Arbitrary<Uint8Array[]>;
  /**
   * The requirement's accepted readings (their numbers in `accepts`) that no error coming back and an
   * error with id null show; undefined where the requirement's readings cannot tell them apart (noted).
   */
  readings: { silent: number | undefined; reported: number | undefined };
}): ConformanceCase {
  return defineCase({
    id: `${SUITE}/${options.name}`,
    suite: SUITE,
    title: options.title,
    requirements: [options.requirement, 'WT-DGRAM-11'],
    transports: WT,
    applies: requiresDatagrams,
    timeLimitMs: 15_000,
    async run(ctx) {
      await openSession(ctx);
      const wt = wtFacet(ctx);
      await ctx.property(
        'WT-DGRAM-11',
        options.datagrams(),
        async (datagrams) => {
          for (const bytes of datagrams) await wt.sendRawDatagram(bytes);
          await expectPong(ctx, options.what);
          return true;
        },
        { numRuns: 8 },
      );
      const reports = pendingNullIdErrors(ctx);
      const reading = reports.length > 0 ? options.readings.reported : options.readings.silent;
      const seen = reports.length > 0 ? `${options.what} was reported with an error (id null)` : `${options.what} got no answer`;
      if (reading !== undefined) ctx.reading(options.requirement, reading, seen, reports[0]);
      else ctx.info(options.requirement, `${seen}: the accepted readings look the same from outside`, reports[0]);
    },
  });
}

/** ping is answered; throws DatagramCheckFailed otherwise. */
async function expectPong(ctx: CaseContext, what: string): Promise<void> {
  const id = ctx.nextId();
  await ctx.connection.send(request(id, 'ping'));
  const pong = await maybeMessage(ctx, (m) => m.id === id && ('result' in m || 'error' in m), STREAM_EVENT_MS);
  if (!pong || !isRecord((pong.message as Message).result)) throw new DatagramCheckFailed(`after ${what} the server no longer answers ping`);
}

/** A property's reason for failing (shown as the counterexample's message). */
class DatagramCheckFailed extends Error {
  readonly code = 'DATAGRAM_CHECK_FAILED';
}

const payloadBytes = fc.uint8Array({ maxLength: 64 });
const u32 = fc.integer({ min: 0, max: 0xffff_ffff });

const shortDropped = droppedDatagramCase({
  name: 'short-dropped',
  requirement: 'WT-DGRAM-1',
  title: 'a datagram shorter than its 6-byte header is dropped (silently, or reported); the session goes on',
  what: 'a datagram shorter than 6 bytes',
  datagrams: () => fc.array(fc.uint8Array({ minLength: 0, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
  readings: { silent: 1, reported: 2 },
});

const reservedChannelDropped = droppedDatagramCase({
  name: 'reserved-channel-dropped',
  requirement: 'WT-DGRAM-2',
  title: 'a datagram on the reserved channel 0x00 is dropped (silently, or reported); the session goes on',
  what: 'a datagram on channel 0x00',
  readings: { silent: 1, reported: 2 },
  datagrams: () =>
    fc.array(
      fc.tuple(u32, payloadBytes).map(([requestId, payload]) => encodeDatagram({ channel: 0x00, requestId, payload })),
      { minLength: 1, maxLength: 3 },
    ),
});

const reservedFlagsDropped = droppedDatagramCase({
  name: 'reserved-flags-dropped',
  requirement: 'WT-DGRAM-3',
  title: 'a datagram with non-zero flags is dropped, or taken with its reserved flags ignored; the session goes on',
  what: 'a datagram with non-zero flags',
  // Dropped, or taken as usual: a client datagram taken by the server changes nothing a client can see.
  readings: { silent: undefined, reported: undefined },
  datagrams: () =>
    fc.array(
      fc
        .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 255 }), u32, payloadBytes)
        .map(([channel, flags, requestId, payload]) => encodeDatagram({ channel, flags, requestId, payload })),
      { minLength: 1, maxLength: 3 },
    ),
});

const notInFlightDropped = defineCase({
  id: `${SUITE}/not-in-flight-dropped`,
  suite: SUITE,
  title: 'a progress or log datagram naming a request that is not in flight is dropped without affecting any request (one in flight is answered as usual)',
  requirements: ['WT-DGRAM-10'],
  transports: WT,
  applies: requiresDatagrams,
  // Each generated run calls a progress tool and waits for its answer: four runs within the limit.
  timeLimitMs: 30_000,
  async run(ctx) {
    await openSession(ctx);
    const wt = wtFacet(ctx);
    const notInFlight = 0x7fff_0000 + ctx.nextId();
    const progressTool = ctx.discovery.tools?.length ? progressCandidates(ctx, await requireToolList(ctx))[0] : undefined;
    if (!progressTool) ctx.note('no progress tool listed: only ping (not in flight while the datagrams go out) shows the session is unaffected');
    const stray = fc.array(
      fc.tuple(fc.constantFrom(PROGRESS, LOG), fc.integer({ min: 0, max: 1000 })).map(([channel, n]) =>
        encodeDatagram({
          channel,
          requestId: notInFlight + n,
          payload: codecFor(wt.encoding).encode(channel === PROGRESS ? { progress: n + 1 } : { level: 'info', data: `stray ${n}` }),
        }),
      ),
      { minLength: 1, maxLength: 3 },
    );
    await ctx.property(
      'WT-DGRAM-10',
      stray,
      async (datagrams) => {
        // A request in flight while the stray datagrams arrive must be answered as usual.
        const call = progressTool ? await callTool(ctx, progressTool, {}, `stray-${ctx.nextId()}`) : undefined;
        // Datagrams overtake the control stream: the stray ones go out once the call is known to be
        // in flight at the server (its first progress datagram arrived), so they meet a running request.
        if (call) await wt.nextDatagram((d) => d.requestId === call.id, { timeoutMs: ctx.scaled(2_000), signal: ctx.signal }).catch(() => undefined);
        for (const bytes of datagrams) await wt.sendRawDatagram(bytes);
        if (call) {
          await answerWithin(ctx, call);
          const answer = call.answered?.message as Message | undefined;
          if (!answer || !isRecord(answer.result)) {
            throw new DatagramCheckFailed(`tools/call ${progressTool!.name} in flight was not answered with a result after datagrams naming requests not in flight: ${JSON.stringify(answer ?? 'no answer')}`);
          }
        }
        await expectPong(ctx, 'datagrams naming requests not in flight');
        return true;
      },
      { numRuns: 4 },
    );
  },
});

const unknownChannel = defineCase({
  id: `${SUITE}/unknown-channel`,
  suite: SUITE,
  title: 'a datagram on an unknown channel (0x04..0xFF) is ignored and the session goes on (reported)',
  requirements: ['WT-DGRAM-4', 'WT-DGRAM-11'],
  transports: WT,
  applies: requiresDatagrams,
  async run(ctx) {
    await openSession(ctx);
    const wt = wtFacet(ctx);
    for (const channel of [0x04, 0x7f, 0xff]) await wt.sendRawDatagram(encodeDatagram({ channel, requestId: 1, payload: new Uint8Array([1, 2, 3]) }));
    const id = ctx.nextId();
    await ctx.connection.send(request(id, 'ping'));
    const pong = await maybeMessage(ctx, (m) => m.id === id, STREAM_EVENT_MS);
    const errors = pendingNullIdErrors(ctx);
    ctx.check('WT-DGRAM-11', pong !== undefined, { message: 'the session goes on after datagrams on channels 0x04, 0x7F, 0xFF', actual: pong?.message ?? (ctx.connection.isClosed ? 'session closed' : 'ping unanswered') });
    if (!pong) return;
    ctx.reading('WT-DGRAM-4', errors.length === 0 ? 1 : 2, 'channels 0x04, 0x7F, 0xFF', errors[0]);
  },
});

const unsupportedRefused = defineCase({
  id: `${SUITE}/unsupported-refused`,
  suite: SUITE,
  title: 'after datagramsSupported: false, a client datagram is answered with -32004 (id null and data.requestId, or as the answer to the request it names), and the server sends no datagrams',
  requirements: ['WT-DGRAM-5', 'WT-DGRAM-7'],
  transports: WT,
  applies: requiresNoDatagrams,
  // Up to three refusal waits and the call's own answer, each with its deadline.
  timeLimitMs: 30_000,
  async run(ctx) {
    await openSession(ctx);
    const wt = wtFacet(ctx);
    const payload = () => codecFor(wt.encoding).encode({ progress: 1 });
    const stray = 0x7fff_0000 + ctx.nextId();
    await wt.sendRawDatagram(encodeDatagram({ channel: PROGRESS, requestId: stray, payload: payload() }));
    const refusal = await maybeMessage(ctx, (m) => m.id === null && isRecord(m.error), STREAM_EVENT_MS);
    checkRefusal(ctx, refusal?.message as Message | undefined, stray);

    const token = 'conformance-progress';
    const call = ctx.discovery.tools?.length ? await startProgressCall(ctx, token) : undefined;
    if (call) {
      await wt.sendRawDatagram(encodeDatagram({ channel: PROGRESS, requestId: call.id, payload: payload() }));
      // Reading 1: -32004 with id null, the request unaffected. Reading 2: the request itself answered with -32004.
      const first = await Promise.race([
        maybeMessage(ctx, (m) => m.id === null && isRecord(m.error), STREAM_EVENT_MS).then((r) => ({ kind: 'report' as const, message: r?.message as Message | undefined })),
        within(ctx, call.answer, ctx.scaled(STREAM_EVENT_MS)).then((r) => ({ kind: 'answer' as const, message: r === 'timeout' ? undefined : (r.message as Message) })),
      ]);
      const answeredWith32004 = first.kind === 'answer' && errorOf(first.message)?.code === -32004;
      if (answeredWith32004) {
        ctx.check('WT-DGRAM-5', true, { message: `the datagram naming request ${call.id} (in flight) is answered with -32004` });
        ctx.reading('WT-DGRAM-5', 2, undefined, first.message);
      } else {
        const report = first.kind === 'report' ? first.message : (await maybeMessage(ctx, (m) => m.id === null && isRecord(m.error), STREAM_EVENT_MS))?.message as Message | undefined;
        checkRefusal(ctx, report, call.id);
      }
      const datagrams = await collectDatagrams(ctx, undefined, answerWithin(ctx, call));
      const answer = call.answered?.message as Message | undefined;
      if (!answeredWith32004) {
        ctx.check('WT-DGRAM-5', answer !== undefined && errorOf(answer)?.code !== -32004, {
          message: `the request the datagram named (tools/call ${call.tool.name}, id ${call.id}) is answered as usual once the -32004 went out with id null`,
          actual: answer ?? 'no answer',
        });
      }
      ctx.check('WT-DGRAM-7', datagrams.length === 0 && faultsWithCode(ctx, ['DATAGRAM_TOO_SHORT', 'DATAGRAM_RESERVED_CHANNEL', 'DATAGRAM_RESERVED_FLAGS', 'DATAGRAM_UNKNOWN_CHANNEL', 'DATAGRAM_NOT_IN_FLIGHT']).length === 0, {
        message: 'a server that said datagramsSupported: false sends no datagrams (progress travels on the control stream)',
        actual: datagrams.map((d) => ({ channel: d.channel, requestId: d.requestId })),
      });
    } else {
      const datagrams = await collectDatagrams(ctx, undefined, Promise.resolve());
      ctx.check('WT-DGRAM-7', datagrams.length === 0, {
        message: 'a server that said datagramsSupported: false sends no datagrams',
        actual: datagrams.map((d) => ({ channel: d.channel, requestId: d.requestId })),
      });
    }
  },
});

/** Reading 1 of WT-DGRAM-5: -32004 with id null naming the header's request in data.requestId. */
function checkRefusal(ctx: CaseContext, message: Message | undefined, requestId: number): void {
  const error = errorOf(message);
  const data = isRecord(error?.data) ? error.data : undefined;
  ctx.check('WT-DGRAM-5', error?.code === -32004, {
    message: `a datagram naming request ${requestId} is answered with error -32004 Datagram Not Supported`,
    expected: { id: null, error: { code: -32004, data: { requestId } } },
    actual: message ?? 'no error with id null',
  });
  if (error?.code === -32004) {
    if (data?.requestId === requestId) ctx.reading('WT-DGRAM-5', 1, `request ${requestId}`, message);
    else ctx.info('WT-DGRAM-5', '-32004 with id null, without data.requestId naming the request', message);
  }
}

export const cases: readonly ConformanceCase[] = [
  progressDatagrams,
  shortDropped,
  reservedChannelDropped,
  reservedFlagsDropped,
  notInFlightDropped,
  unknownChannel,
  unsupportedRefused,
];
