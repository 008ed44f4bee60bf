// Suite `framing`: the WebTransport binding's control stream (001 §1, §2.1, §4): length-prefixed
// frames however the bytes are cut into writes, the frames a receiver must refuse (empty, too
// long, undecodable, cut off by the end of the stream), the connection states around initialize,
// and which error codes the binding may use.
import fc from 'fast-check';
import { defineCase, type CaseContext, type ConformanceCase } from '../../src/harness/index.js';
import { isRecord } from '../../src/wire/index.js';
import { errorOf, initializeParams, isResponseTo, openSession, type Message } from './support.js';
import {
  advertisedLimit,
  bareSession,
  bodyOf,
  closesWithin,
  concat,
  frame,
  frameOf,
  isErrorWithCode,
  jsonFramesIn,
  jsonOnlyInitialize,
  lengthPrefix,
  maybeNext,
  pingAnswered,
  pingRequest,
  raceTimeout,
  sendRawQuietly,
  wt,
  type BareSession,
} from './support/webtransport.js';

const SUITE = 'framing';
const WT_ONLY = ['webtransport'] as const;
/** How long a refusal of a bad frame may take before it counts as missing (before scaling). */
const ERROR_WAIT_MS = 5_000;
const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
/** The 001 §4.2 binding codes. */
const BINDING_CODES = [-32000, -32001, -32002, -32003, -32004];
/** Wire fault codes a client reader reports for frames it could not read. */
const FRAMING_FAULT = /^(FRAME_|INVALID_|CBOR_TRAILING|ENCODING_MISMATCH)/;

function isAnswerTo(id: number) {
  return (r: { message: unknown }) => isResponseTo(r.message, id);
}

/** Waits for an error with `code` (any id): the refusal of a frame that has no readable id. */
function refusal(ctx: CaseContext, code: number, timeoutMs = ERROR_WAIT_MS) {
  return maybeNext(ctx, (r) => isErrorWithCode(r.message, [code]), timeoutMs);
}

/** Records WT-ERR-3 for a binding error about a frame: it carries id null. */
function checkNullId(ctx: CaseContext, message: unknown, what: string): void {
  const id = isRecord(message) ? message.id : undefined;
  ctx.check('WT-ERR-3', id === null, { message: `the error for ${what} carries id null (no request is readable)`, expected: { id: null }, actual: { id } });
}

const serverFramesLengthPrefixed = defineCase({
  id: 'framing/server-frames-length-prefixed',
  suite: SUITE,
  title: 'WT-FRAME-1: every control frame the server writes is a 4-byte big-endian length followed by exactly that many body bytes',
  requirements: ['WT-FRAME-1'],
  transports: WT_ONLY,
  async run(ctx) {
    const initId = ctx.nextId();
    await ctx.connection.send({ jsonrpc: '2.0', id: initId, method: 'initialize', params: initializeParams(ctx) });
    // A length prefix that disagrees with its body shows as a frame the client cannot read.
    const init = await maybeNext(ctx, isAnswerTo(initId), 5_000);
    const faultsAfterInit = ctx.connection.faults().filter((f) => FRAMING_FAULT.test(f.code));
    ctx.check('WT-FRAME-1', init !== undefined && faultsAfterInit.length === 0, {
      message: 'the initialize answer (JSON) is one well-formed frame',
      expected: 'a readable initialize answer and no framing fault',
      actual: { answered: init !== undefined, faults: faultsAfterInit.map((f) => `${f.code}: ${f.message}`) },
    });
    if (!init) return;
    await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const ids = [ctx.nextId(), ctx.nextId(), ctx.nextId()];
    for (const id of ids) await ctx.connection.send(pingRequest(id));
    const answers = [];
    for (const id of ids) answers.push(await maybeNext(ctx, isAnswerTo(id), 5_000));
    const faults = ctx.connection.faults().filter((f) => FRAMING_FAULT.test(f.code));
    ctx.check('WT-FRAME-1', answers.every((a) => a !== undefined) && faults.length === 0, {
      message: `three ping answers in the negotiated encoding (${wt(ctx).encoding}) are well-formed frames`,
      expected: 'three readable answers and no framing fault',
      actual: { answered: answers.filter((a) => a !== undefined).length, faults: faults.map((f) => `${f.code}: ${f.message}`) },
    });
  },
});

const frameSplitAcrossWrites = defineCase({
  id: 'framing/frame-split-across-writes',
  suite: SUITE,
  title: 'WT-FRAME-6: a frame split across many writes (inside the length prefix too) is reassembled',
  requirements: ['WT-FRAME-6'],
  transports: WT_ONLY,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    let failed = false;
    await ctx.property(
      'WT-FRAME-6',
      fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 12 }),
      async (cuts) => {
        if (failed) return true; // one counterexample is enough: no shrinking against a live peer
        const id = ctx.nextId();
        const bytes = frameOf(ctx, pingRequest(id));
        const points = [...new Set(cuts.map((c) => c % bytes.byteLength).filter((c) => c > 0))].sort((a, b) => a - b);
        let start = 0;
        for (const point of [...points, bytes.byteLength]) {
          if (!(await sendRawQuietly(ctx, bytes.subarray(start, point)))) break;
          start = point;
        }
        const answer = await maybeNext(ctx, isAnswerTo(id), 5_000);
        const ok = answer !== undefined && isRecord(answer.message) && 'result' in answer.message;
        if (!ok) failed = true;
        return ok;
      },
      { numRuns: 8 },
    );
    // The extreme cut: one byte per write.
    const id = ctx.nextId();
    const bytes = frameOf(ctx, pingRequest(id));
    for (let i = 0; i < bytes.byteLength; i++) if (!(await sendRawQuietly(ctx, bytes.subarray(i, i + 1)))) break;
    const answer = await maybeNext(ctx, isAnswerTo(id), 5_000);
    ctx.check('WT-FRAME-6', answer !== undefined, {
      message: `a ping frame written one byte per write (${bytes.byteLength} writes) is answered`,
      expected: `an answer to request ${id}`,
      actual: answer?.message ?? 'no answer',
    });
  },
});

const framesCoalescedInOneWrite = defineCase({
  id: 'framing/frames-coalesced-in-one-write',
  suite: SUITE,
  title: 'WT-FRAME-6: several frames arriving in one write are separated and each is served',
  requirements: ['WT-FRAME-6'],
  transports: WT_ONLY,
  async run(ctx) {
    await openSession(ctx);
    const ids = Array.from({ length: 5 }, () => ctx.nextId());
    // The last frame is split: its first half ends the write, the rest follows in the next one.
    const frames = ids.map((id) => frameOf(ctx, pingRequest(id)));
    const all = concat(frames);
    const cut = all.byteLength - Math.floor(frames[frames.length - 1]!.byteLength / 2);
    await sendRawQuietly(ctx, all.subarray(0, cut));
    await sendRawQuietly(ctx, all.subarray(cut));
    const answered: number[] = [];
    for (const id of ids) if (await maybeNext(ctx, isAnswerTo(id), 5_000)) answered.push(id);
    ctx.check('WT-FRAME-6', answered.length === ids.length, {
      message: 'five ping frames written in one write (the last one completed by a second write) get five answers',
      expected: ids,
      actual: answered,
    });
  },
});

const zeroLengthFrame = defineCase({
  id: 'framing/zero-length-frame',
  suite: SUITE,
  title: 'WT-FRAME-2: a frame with length 0 is answered with -32600 Invalid Request, id null',
  requirements: ['WT-FRAME-2', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    await sendRawQuietly(ctx, lengthPrefix(0));
    const error = await maybeNext(ctx, (r) => isRecord(r.message) && !('method' in r.message) && 'error' in r.message, ERROR_WAIT_MS);
    ctx.check('WT-FRAME-2', error !== undefined && isErrorWithCode(error.message, [INVALID_REQUEST]), {
      message: 'the zero-length frame is answered with -32600',
      expected: { id: null, error: { code: INVALID_REQUEST } },
      actual: error?.message ?? (ctx.connection.isClosed ? 'the session closed without an answer' : 'no answer'),
    });
    if (error) checkNullId(ctx, error.message, 'a zero-length frame');
    else ctx.info('WT-ERR-3', 'no error was sent for the zero-length frame, so its id could not be checked');
  },
});

const oversizedLengthRejectedBeforeBody = defineCase({
  id: 'framing/oversized-length-rejected-before-body',
  suite: SUITE,
  title: 'WT-FRAME-3: a length prefix above maxMessageSize is refused with -32600 (id null) before any body byte arrives',
  requirements: ['WT-FRAME-3', 'WT-LIMIT-3', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    const init = await openSession(ctx);
    const max = advertisedLimit(init, 'maxMessageSize');
    if (max === undefined || max >= 0xffff_ffff) {
      ctx.info('WT-FRAME-3', 'the server advertised no finite maxMessageSize below 2^32-1, so no prefix can exceed it', isRecord(init.transport) ? init.transport : undefined);
      ctx.info('WT-LIMIT-3', 'no finite maxMessageSize advertised (see WT-SEC-3)');
      ctx.info('WT-ERR-3', 'no oversized frame could be sent');
      return;
    }
    // Only the 4-byte prefix goes out: a server that waits for the body before refusing never answers.
    await sendRawQuietly(ctx, lengthPrefix(max + 1));
    const error = await refusal(ctx, INVALID_REQUEST);
    const details = {
      expected: { id: null, error: { code: INVALID_REQUEST } },
      actual: error?.message ?? (ctx.connection.isClosed ? 'the session closed without an answer' : 'no answer while the body was withheld'),
    };
    ctx.check('WT-FRAME-3', error !== undefined, { message: `a prefix declaring ${max + 1} bytes (maxMessageSize ${max}) is refused with -32600 from the prefix alone`, ...details });
    ctx.check('WT-LIMIT-3', error !== undefined, { message: `the advertised maxMessageSize (${max}) is enforced on the control stream`, ...details });
    if (error) checkNullId(ctx, error.message, 'an oversized frame');
    else ctx.info('WT-ERR-3', 'no error was sent for the oversized frame, so its id could not be checked');
  },
});

/** Largest declared body the case actually sends to see whether the receiver skips it. */
const MAX_SKIPPED_BODY = 64 * 1024 * 1024;
/** Bytes per write when sending a large body. */
const WRITE_SLICE = 64 * 1024;

const oversizedFrameSkippedOrClosed = defineCase({
  id: 'framing/oversized-frame-skipped-or-session-closed',
  suite: SUITE,
  title: 'WT-FRAME-7: after refusing an oversized frame the server skips exactly its body and reads on, or closes the session',
  requirements: ['WT-FRAME-7'],
  transports: WT_ONLY,
  sendsInvalid: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    const init = await openSession(ctx);
    const max = advertisedLimit(init, 'maxMessageSize');
    if (max === undefined || max >= 0xffff_ffff) {
      ctx.info('WT-FRAME-7', 'the server advertised no finite maxMessageSize below 2^32-1, so no frame can exceed it');
      return;
    }
    const declared = max + 1;
    if (declared > MAX_SKIPPED_BODY) {
      await sendRawQuietly(ctx, lengthPrefix(declared));
      const closed = await closesWithin(ctx, ERROR_WAIT_MS);
      ctx.info('WT-FRAME-7', closed ? 'reading: close the session' : `the body (${declared} bytes) is too large to send; the session stayed open`);
      return;
    }
    // The declared body is made of complete ping frames (a trap): a receiver that parses it instead
    // of skipping it answers them. The real ping follows right after the declared length.
    const trapId = ctx.nextId();
    const realId = ctx.nextId();
    const trap = frameOf(ctx, pingRequest(trapId));
    const body = new Uint8Array(declared);
    for (let offset = 0; offset + trap.byteLength <= declared; offset += trap.byteLength) body.set(trap, offset);
    // Written in slices, stopping once the session is gone: a multi-megabyte write in one piece
    // would keep the event loop (and every other case of the run) busy for a long time.
    const bytes = concat([lengthPrefix(declared), body, frameOf(ctx, pingRequest(realId))]);
    void (async () => {
      for (let offset = 0; offset < bytes.byteLength && !ctx.connection.isClosed && !ctx.signal.aborted; offset += WRITE_SLICE) {
        if (!(await sendRawQuietly(ctx, bytes.subarray(offset, offset + WRITE_SLICE)))) return;
      }
    })();
    const outcome = await raceTimeout(
      ctx,
      Promise.race([
        maybeNext(ctx, (r) => isResponseTo(r.message, trapId) || isResponseTo(r.message, realId), 10_000).then((r) =>
          r === undefined ? (ctx.connection.isClosed ? 'closed' : 'nothing') : isResponseTo(r.message, trapId) ? 'trap' : 'real',
        ),
        ctx.connection.closed.then(() => 'closed'),
      ]),
      10_000,
      'nothing',
    );
    if (outcome === 'real') ctx.info('WT-FRAME-7', 'reading: skip the declared body and continue');
    if (outcome === 'closed') ctx.info('WT-FRAME-7', 'reading: close the session');
    ctx.check('WT-FRAME-7', outcome === 'real' || outcome === 'closed', {
      message: `after the oversized frame (${declared} bytes declared) the next frame is served or the session closes`,
      expected: `an answer to request ${realId} (skip) or the session closing`,
      actual:
        outcome === 'trap'
          ? `request ${trapId}, inside the oversized body, was answered: the body was parsed instead of skipped`
          : 'neither an answer nor the session closing',
    });
  },
});

/** Undecodable bodies in the encoding in force, each carrying a request id that must not be served. */
function undecodableBody(ctx: CaseContext, kind: 'truncated' | 'trailing' | 'invalid', id: number, cut: number): Uint8Array {
  const ping = bodyOf(ctx, pingRequest(id));
  const json = wt(ctx).encoding === 'json';
  if (kind === 'truncated') return ping.subarray(0, 1 + (cut % (ping.byteLength - 1)));
  if (kind === 'trailing') return concat([ping, json ? new TextEncoder().encode(' x') : new Uint8Array([0x00])]);
  // JSON: invalid UTF-8 inside a string; CBOR: a map whose key uses the reserved additional information 28.
  if (json) return concat([new TextEncoder().encode(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"_meta":{"k":"`), new Uint8Array([0xff, 0xfe]), new TextEncoder().encode('"}}}')]);
  return new Uint8Array([0xa1, 0x1c, 0x00]);
}

const undecodableBodyParseError = defineCase({
  id: 'framing/undecodable-body-parse-error',
  suite: SUITE,
  title: 'WT-FRAME-4: a body that does not decode as one message is answered with -32700 (id null), not served, and the next frame is read',
  requirements: ['WT-FRAME-4', 'WT-FRAME-8', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    let failed = false;
    let lastError: unknown;
    let servedAfterwards = true;
    await ctx.property(
      'WT-FRAME-4',
      fc.record({ kind: fc.constantFrom<'truncated' | 'trailing' | 'invalid'>('truncated', 'trailing', 'invalid'), cut: fc.nat() }),
      async ({ kind, cut }) => {
        if (failed || ctx.connection.isClosed) return true;
        const id = ctx.nextId();
        await sendRawQuietly(ctx, frame(undecodableBody(ctx, kind, id, cut)));
        const error = await refusal(ctx, PARSE_ERROR);
        if (error) lastError = error.message;
        // The next ping is read (WT-FRAME-8) and the bad body's request was not served before it.
        const followId = ctx.nextId();
        const followed = await pingAnswered(ctx, followId);
        if (!followed) servedAfterwards = false;
        const served = ctx.connection.pending().some((r) => isResponseTo(r.message, id) && 'result' in (r.message as Message));
        const ok = error !== undefined && !served;
        if (!ok) failed = true;
        return ok;
      },
      { numRuns: 6 },
    );
    ctx.check('WT-FRAME-8', servedAfterwards && !ctx.connection.isClosed, {
      message: 'after each -32700 the next frame on the control stream is read and served',
      expected: 'every following ping answered',
      actual: ctx.connection.isClosed ? 'the session closed' : servedAfterwards ? 'answered' : 'a following ping was not answered',
    });
    if (lastError !== undefined) checkNullId(ctx, lastError, 'an undecodable body');
    else ctx.info('WT-ERR-3', 'no -32700 was sent, so its id could not be checked');
  },
});

/** Initializes a bare session (JSON only) and waits for the result; false when it did not come. */
async function initializeBare(ctx: CaseContext, bare: BareSession): Promise<boolean> {
  await bare.writer.write(frame(bodyOfJson(jsonOnlyInitialize(ctx, 1))));
  const answered = await waitUntil(ctx, () => jsonFramesIn(bare.received()).some((m) => isResponseTo(m, 1)), 5_000);
  if (answered) await bare.writer.write(frame(bodyOfJson({ jsonrpc: '2.0', method: 'notifications/initialized' })));
  return answered;
}

function bodyOfJson(message: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(message));
}

/** Polls `condition` every 20 ms until it holds or `timeoutMs` (scaled) passes. */
async function waitUntil(ctx: CaseContext, condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + ctx.scaled(timeoutMs);
  while (!condition()) {
    if (Date.now() > deadline) return false;
    ctx.signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

const streamEndsInsideFrame = defineCase({
  id: 'framing/stream-ends-inside-frame',
  suite: SUITE,
  title: 'WT-FRAME-5: a control stream that ends inside a frame (in the prefix or the body) gets -32700 and the partial message is not served',
  requirements: ['WT-FRAME-5'],
  transports: WT_ONLY,
  sendsInvalid: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    // Both ends are tried at once, each on its own session.
    const tryEnd = async (where: 'body' | 'prefix') => {
      const bare = await bareSession(ctx);
      try {
        if (!(await initializeBare(ctx, bare))) {
          ctx.info('WT-FRAME-5', `the second session's initialize was not answered; the end inside the ${where} could not be tried`);
          return;
        }
        const id = 77;
        const ping = frame(bodyOfJson(pingRequest(id)));
        const partial = where === 'body' ? ping.subarray(0, ping.byteLength - 3) : ping.subarray(0, 2);
        ctx.note(`second session: ${partial.byteLength} of the ${ping.byteLength} bytes of a ping frame (id ${id}), then FIN on the control stream`);
        await bare.writer.write(partial);
        await bare.writer.close().catch(() => undefined); // FIN inside the frame
        const errored = await waitUntil(ctx, () => jsonFramesIn(bare.received()).some((m) => isErrorWithCode(m, [PARSE_ERROR])), ERROR_WAIT_MS);
        const served = jsonFramesIn(bare.received()).some((m) => isResponseTo(m, id));
        ctx.check('WT-FRAME-5', errored && !served, {
          message: `a control stream ending inside the frame's ${where} is answered with -32700 and the partial ping is not served`,
          expected: { error: { code: PARSE_ERROR } },
          actual: { parseError: errored, partialPingServed: served, received: jsonFramesIn(bare.received()).slice(1) },
        });
      } finally {
        bare.close();
      }
    };
    await Promise.all([tryEnd('body'), tryEnd('prefix')]);
  },
});

const firstMessageNotInitialize = defineCase({
  id: 'framing/first-message-not-initialize',
  suite: SUITE,
  title: 'WT-CONN-4: a request before initialize is answered with -32600 Invalid Request (its id, or null)',
  requirements: ['WT-CONN-4'],
  transports: WT_ONLY,
  async run(ctx) {
    const id = ctx.nextId();
    await ctx.connection.send(pingRequest(id));
    const answer = await maybeNext(ctx, (r) => isResponseTo(r.message, id) || isErrorWithCode(r.message, [INVALID_REQUEST]), ERROR_WAIT_MS);
    const error = errorOf(answer?.message as Message | undefined);
    const answerId = isRecord(answer?.message) ? answer.message.id : undefined;
    ctx.check('WT-CONN-4', error?.code === INVALID_REQUEST && (answerId === id || answerId === null), {
      message: 'a ping sent as the first control message is answered with -32600 echoing its id or with id null',
      expected: { id: [id, null], error: { code: INVALID_REQUEST } },
      actual: answer?.message ?? (ctx.connection.isClosed ? 'the session closed without an answer' : 'no answer'),
    });
    if (error?.code === INVALID_REQUEST) {
      const closed = await closesWithin(ctx, 500);
      ctx.info('WT-CONN-4', closed ? 'reading: -32600 and the session closed' : 'reading: -32600 and the session kept open');
    }
  },
});

const firstMessageNotification = defineCase({
  id: 'framing/first-message-notification',
  suite: SUITE,
  title: 'WT-CONN-4: a notification before initialize is answered with -32600 Invalid Request, id null',
  requirements: ['WT-CONN-4'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const answer = await maybeNext(ctx, (r) => isErrorWithCode(r.message, [INVALID_REQUEST]), ERROR_WAIT_MS);
    const message = answer?.message as Message | undefined;
    ctx.check('WT-CONN-4', message !== undefined && message.id === null, {
      message: 'notifications/initialized sent as the first control message (before initialize) is answered with -32600, id null',
      expected: { id: null, error: { code: INVALID_REQUEST } },
      actual: message ?? (ctx.connection.isClosed ? 'the session closed without an answer' : 'no answer'),
    });
  },
});

const messageWhileInitializing = defineCase({
  id: 'framing/message-while-initializing',
  suite: SUITE,
  title: 'WT-CONN-4: a request that arrives with initialize, before its result, is answered with -32600 and not served',
  requirements: ['WT-CONN-4'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    const initId = ctx.nextId();
    const pingId = ctx.nextId();
    // One write: the server has both frames before it can have sent the initialize result.
    await sendRawQuietly(ctx, concat([frame(bodyOfJson(jsonOnlyInitialize(ctx, initId))), frame(bodyOfJson(pingRequest(pingId)))]));
    const answer = await maybeNext(ctx, isAnswerTo(pingId), ERROR_WAIT_MS);
    const error = errorOf(answer?.message as Message | undefined);
    ctx.check('WT-CONN-4', error?.code === INVALID_REQUEST, {
      message: 'a ping written together with initialize (before READY) is answered with -32600',
      expected: { id: pingId, error: { code: INVALID_REQUEST } },
      actual: answer?.message ?? (ctx.connection.isClosed ? 'the session closed without an answer' : 'no answer'),
    });
  },
});

const serverSpeaksAfterInitialize = defineCase({
  id: 'framing/states-follow-initialize',
  suite: SUITE,
  title: 'WT-CONN-1: the server sends nothing before initialize, answers it first, and serves requests once READY',
  requirements: ['WT-CONN-1'],
  transports: WT_ONLY,
  async run(ctx) {
    const early = await maybeNext(ctx, () => true, 300);
    ctx.check('WT-CONN-1', early === undefined, {
      message: 'nothing arrives on the control stream before the client has sent initialize (CONTROL_STREAM_OPENED)',
      expected: 'no message',
      actual: early?.message,
    });
    const initId = ctx.nextId();
    await ctx.connection.send(jsonOnlyInitialize(ctx, initId));
    const first = await maybeNext(ctx, () => true, 5_000);
    ctx.check('WT-CONN-1', first !== undefined && isResponseTo(first.message, initId) && isRecord((first.message as Message).result), {
      message: 'the first message the server sends is the initialize result (INITIALIZING -> READY)',
      expected: { id: initId, result: '...' },
      actual: first?.message ?? 'nothing',
    });
    await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const served = await pingAnswered(ctx, ctx.nextId());
    ctx.check('WT-CONN-1', served, { message: 'in READY a ping is served', expected: 'a result', actual: served ? 'a result' : 'no result' });
  },
});

const controlStreamEndCloses = defineCase({
  id: 'framing/control-stream-end-closes-session',
  suite: SUITE,
  title: 'WT-CONN-6: the control stream ending (FIN) or being reset closes the session',
  requirements: ['WT-CONN-6'],
  transports: WT_ONLY,
  timeLimitMs: 15_000,
  async run(ctx) {
    // Both ways are tried at once, each on its own session.
    const tryEnd = async (how: 'ended (FIN)' | 'reset') => {
      const bare = await bareSession(ctx);
      try {
        const ready = await initializeBare(ctx, bare);
        ctx.note(`second session${ready ? ' (READY)' : ''}: control stream ${how} by the client`);
        if (how === 'reset') await bare.writer.abort('conformance: control stream reset').catch(() => undefined);
        else await bare.writer.close().catch(() => undefined);
        const closed = await raceTimeout(ctx, bare.closed, ERROR_WAIT_MS, false);
        ctx.check('WT-CONN-6', closed, {
          message: `the session closes when the control stream is ${how}${ready ? ' in READY' : ''}`,
          expected: 'the session closed',
          actual: closed ? 'closed' : `still open ${ERROR_WAIT_MS} ms later`,
        });
      } finally {
        bare.close();
      }
    };
    await Promise.all([tryEnd('ended (FIN)'), tryEnd('reset')]);
  },
});

const bindingCodesKeepMeaning = defineCase({
  id: 'framing/binding-codes-keep-their-meaning',
  suite: SUITE,
  title: 'WT-ERR-1: the binding codes -32000..-32004 answer only binding failures, never an ordinary MCP error',
  requirements: ['WT-ERR-1'],
  transports: WT_ONLY,
  async run(ctx) {
    await openSession(ctx);
    const answers: Array<[string, Message | undefined]> = [];
    const unknown = ctx.nextId();
    await ctx.connection.send({ jsonrpc: '2.0', id: unknown, method: 'conformance/no-such-method' });
    answers.push(['an unknown method', (await maybeNext(ctx, isAnswerTo(unknown), 5_000))?.message as Message | undefined]);
    if (ctx.discovery.capabilities && Object.hasOwn(ctx.discovery.capabilities, 'tools')) {
      const id = ctx.nextId();
      await ctx.connection.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'conformance-no-such-tool', arguments: {} } });
      answers.push(['tools/call of an unknown tool', (await maybeNext(ctx, isAnswerTo(id), 5_000))?.message as Message | undefined]);
    }
    for (const [what, answer] of answers) {
      const code = errorOf(answer)?.code;
      ctx.check('WT-ERR-1', !BINDING_CODES.includes(code as number), {
        message: `${what} is not answered with a binding code (-32000..-32004)`,
        expected: 'a JSON-RPC or MCP code (e.g. -32601, -32602)',
        actual: answer ?? 'no answer',
      });
    }
  },
});

export const cases: readonly ConformanceCase[] = [
  serverFramesLengthPrefixed,
  frameSplitAcrossWrites,
  framesCoalescedInOneWrite,
  zeroLengthFrame,
  oversizedLengthRejectedBeforeBody,
  oversizedFrameSkippedOrClosed,
  undecodableBodyParseError,
  streamEndsInsideFrame,
  firstMessageNotInitialize,
  firstMessageNotification,
  messageWhileInitializing,
  serverSpeaksAfterInitialize,
  controlStreamEndCloses,
  bindingCodesKeepMeaning,
];
