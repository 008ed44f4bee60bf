// Suite `framing`: the WebTransport binding's control stream (001 §1, §2.1, §4): length-prefixed
// frames however the bytes are cut into writes, the frames a receiver must refuse (empty, too
// long, undecodable, cut off by the end of the stream), the connection states around initialize,
// and which error codes the binding may use.
import fc from 'fast-check';
import { defineCase, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { ConnectionError } from '../../../src/transport/errors.js';
import { isRecord } from '../../../src/wire/index.js';
import { errorOf, initializeParams, isResponseTo, notification, openSession, request, type Message } from '../../support/session.js';
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
} from '../../support/webtransport.js';
import { takeQueued } from '../../support/quiet.js';

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
    await ctx.connection.send(request(initId, 'initialize', initializeParams(ctx)));
    // A length prefix that disagrees with its body shows as a frame the client cannot read.
    const init = await maybeNext(ctx, isAnswerTo(initId), 5_000);
    const faultsAfterInit = ctx.connection.faults().filter((f) => FRAMING_FAULT.test(f.code));
    ctx.check('WT-FRAME-1', init !== undefined && faultsAfterInit.length === 0, {
      message: 'the initialize answer (JSON) is one well-formed frame',
      expected: 'a readable initialize answer and no framing fault',
      actual: { answered: init !== undefined, faults: faultsAfterInit.map((f) => `${f.code}: ${f.message}`) },
    });
    if (!init) return;
    await ctx.connection.send(notification('notifications/initialized'));
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
    for (const id of ids) {
      // One missing answer decides (the next waits would only run the case past its limit).
      if (!(await maybeNext(ctx, isAnswerTo(id), 5_000))) break;
      answered.push(id);
    }
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
  title: 'WT-FRAME-2: a frame with length 0 is answered with an error, id null: -32600 Invalid Request or -32700 Parse error',
  requirements: ['WT-FRAME-2', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    await sendRawQuietly(ctx, lengthPrefix(0));
    const error = await maybeNext(ctx, (r) => isRecord(r.message) && !('method' in r.message) && 'error' in r.message, ERROR_WAIT_MS);
    const code = errorOf(error?.message as Message | undefined)?.code;
    const accepted = code === INVALID_REQUEST || code === PARSE_ERROR;
    ctx.check('WT-FRAME-2', error !== undefined && accepted, {
      message: 'the zero-length frame is answered with -32600 Invalid Request or -32700 Parse error (an empty body is malformed JSON/CBOR)',
      expected: { id: null, error: { code: [INVALID_REQUEST, PARSE_ERROR] } },
      actual: error?.message ?? (ctx.connection.isClosed ? 'the session closed without an answer' : 'no answer'),
    });
    if (accepted) ctx.reading('WT-FRAME-2', code === INVALID_REQUEST ? 1 : 2);
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
      if (closed) ctx.reading('WT-FRAME-7', 2);
      else ctx.info('WT-FRAME-7', `the body (${declared} bytes) is too large to send; the session stayed open`);
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
    if (outcome === 'real') ctx.reading('WT-FRAME-7', 1);
    if (outcome === 'closed') ctx.reading('WT-FRAME-7', 2);
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

/**
 * Undecodable bodies in the encoding in force, each carrying a request id that must not be served.
 * Only inputs every decoder refuses (rule 5 of docs/profile.md §2): a body cut short; in JSON, text
 * after the message or a missing colon; in CBOR, the reserved additional information 28 (RFC 8949
 * §3: not well-formed). Bytes after a CBOR item, and invalid UTF-8 in a JSON string, are left out:
 * decoders differ on them.
 */
function undecodableBody(ctx: CaseContext, kind: 'truncated' | 'trailing' | 'invalid', id: number, cut: number): Uint8Array {
  const ping = bodyOf(ctx, pingRequest(id));
  const json = wt(ctx).encoding === 'json';
  if (kind === 'truncated') return ping.subarray(0, 1 + (cut % (ping.byteLength - 1)));
  if (kind === 'trailing' && json) return concat([ping, new TextEncoder().encode(' x')]);
  if (json) return new TextEncoder().encode(`{"jsonrpc":"2.0","id":${id},"method" "ping"}`);
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
  if (answered) await bare.writer.write(frame(bodyOfJson(notification('notifications/initialized'))));
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
  title: 'WT-FRAME-5: a control stream that ends inside a frame (in the prefix or the body) leaves a partial message that is not served (-32700 or closing the session, reported)',
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
        const body = bodyOfJson(pingRequest(id));
        // Inside the body: the whole ping's JSON under a prefix that declares 3 bytes more, so a
        // receiver that takes what arrived as the message could serve it.
        const partial = where === 'body' ? concat([lengthPrefix(body.byteLength + 3), body]) : lengthPrefix(body.byteLength).subarray(0, 2);
        ctx.note(`second session: ${partial.byteLength} bytes of a frame (${where === 'body' ? `prefix ${body.byteLength + 3}, then the ${body.byteLength}-byte ping (id ${id})` : 'half a length prefix'}), then FIN on the control stream`);
        await bare.writer.write(partial);
        await bare.writer.close().catch(() => undefined); // FIN inside the frame
        let closed = false;
        void bare.closed.then(() => (closed = true));
        // Rule 6: the deadline decides; an answer, the session closing or the ping being served ends the wait early.
        await waitUntil(ctx, () => closed || jsonFramesIn(bare.received()).slice(1).length > 0, ERROR_WAIT_MS);
        const after = jsonFramesIn(bare.received()).slice(1);
        const served = after.some((m) => isResponseTo(m, id));
        ctx.check('WT-FRAME-5', !served, {
          message: `a control stream ending inside the frame's ${where} leaves an incomplete frame whose message is not served`,
          expected: 'no answer to the partial ping',
          actual: { received: after },
        });
        if (served) return;
        const parseError = after.some((m) => isErrorWithCode(m, [PARSE_ERROR]));
        if (parseError) ctx.reading('WT-FRAME-5', 1, `inside the ${where}`);
        else if (closed) ctx.reading('WT-FRAME-5', 2, `inside the ${where}`);
        else ctx.info('WT-FRAME-5', `inside the ${where}: no answer and the session still open ${ERROR_WAIT_MS} ms later (whether it closes is WT-CONN-6)`, after);
      } finally {
        bare.close();
      }
    };
    await Promise.all([tryEnd('body'), tryEnd('prefix')]);
  },
});

/** What a server made of a request it should not serve yet: its answer, the session closing, or nothing by the deadline. */
async function fateOf(ctx: CaseContext, id: number): Promise<{ answer?: Message; closed: boolean }> {
  const answer = await maybeNext(ctx, (r) => isResponseTo(r.message, id) || (isRecord(r.message) && !('method' in r.message) && r.message.id === null), ERROR_WAIT_MS);
  if (answer) return { answer: answer.message as Message, closed: false };
  return { closed: ctx.connection.isClosed };
}

/** The WT-CONN-4 verdict on a request other than initialize (and ping) before READY, with WT-ERR-3 on its refusal's id. */
function judgeRefusal(ctx: CaseContext, what: string, id: number, fate: { answer?: Message; closed: boolean }, servedWhenReady = false): void {
  const { answer, closed } = fate;
  const error = errorOf(answer);
  if (answer !== undefined && error === undefined) {
    if (servedWhenReady) {
      ctx.check('WT-CONN-4', true, { message: `${what} is served only once READY` });
      ctx.reading('WT-CONN-4', 4, what, answer);
      return;
    }
    ctx.check('WT-CONN-4', false, { message: `${what} is not served before READY`, expected: { id, error: { code: INVALID_REQUEST } }, actual: answer });
    return;
  }
  if (answer === undefined) {
    ctx.check('WT-CONN-4', closed, {
      message: `${what} is refused with an error, or the session closes`,
      expected: { id, error: { code: INVALID_REQUEST } },
      actual: `no answer, and the session still open ${ERROR_WAIT_MS} ms later`,
    });
    if (closed) ctx.reading('WT-CONN-4', 2, `${what}: the session closed without an answer`);
    return;
  }
  ctx.check('WT-CONN-4', true, { message: `${what} is refused with an error` });
  ctx.reading('WT-CONN-4', error!.code === INVALID_REQUEST ? 1 : 2, `${what}: error ${String(error!.code)}`, answer);
  // The request's id was read: its refusal carries it (JSON-RPC 2.0 §5; id null only when it cannot be read).
  ctx.check('WT-ERR-3', answer.id === id, { message: `the refusal of ${what} carries its id (it was readable)`, expected: { id }, actual: { id: answer.id } });
}

const firstMessageNotInitialize = defineCase({
  id: 'framing/first-message-not-initialize',
  suite: SUITE,
  title: 'WT-CONN-4: a request before initialize is refused (-32600 echoing its id recommended; another error or closing the session reported); a ping first may be answered',
  requirements: ['WT-CONN-4', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  // Two requests, each given its deadline (a server may leave both unanswered until then).
  timeLimitMs: 20_000,
  async run(ctx) {
    // A ping first: MCP lets ping through at any time, refusing it is the binding's recommended reading.
    const pingId = ctx.nextId();
    await ctx.connection.send(pingRequest(pingId));
    const ping = await fateOf(ctx, pingId);
    if (ping.answer && 'result' in ping.answer) ctx.reading('WT-CONN-4', 3, undefined, ping.answer);
    else if (ping.answer) ctx.reading('WT-CONN-4', errorOf(ping.answer)?.code === INVALID_REQUEST ? 1 : 2, `a ping before initialize refused with ${String(errorOf(ping.answer)?.code)}`, ping.answer);
    else ctx.info('WT-CONN-4', ping.closed ? 'a ping before initialize: the session closed' : 'a ping before initialize got no answer');
    if (ctx.connection.isClosed) {
      ctx.info('WT-CONN-4', 'the session closed after the ping: no other request could be sent before initialize');
      return;
    }
    const id = ctx.nextId();
    await ctx.connection.send(request(id, 'tools/list', {}));
    judgeRefusal(ctx, 'tools/list sent before initialize', id, await fateOf(ctx, id));
  },
});

const firstMessageNotification = defineCase({
  id: 'framing/first-message-notification',
  suite: SUITE,
  title: 'WT-CONN-4: a notification before initialize is never answered (JSON-RPC 2.0 §4.1): ignored, or the session closes',
  requirements: ['WT-CONN-4'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    await ctx.connection.send(notification('notifications/initialized'));
    // Silence by ordering (rule 6: silence is the recommended reading): the initialize sent next is
    // answered after anything owed for the notification before it, unless the session closes.
    const initId = ctx.nextId();
    const sent = await ctx.connection.send(request(initId, 'initialize', initializeParams(ctx))).then(
      () => true,
      (error: unknown) => {
        if (error instanceof ConnectionError) return false;
        throw error;
      },
    );
    const init = sent ? await maybeNext(ctx, (r) => isResponseTo(r.message, initId), ERROR_WAIT_MS) : undefined;
    const answer = (await takeQueued(ctx, (r) => isRecord(r.message) && !('method' in r.message) && !isResponseTo(r.message, initId)))[0];
    const closed = answer === undefined && (ctx.connection.isClosed || (init === undefined && (await closesWithin(ctx, 1_000))));
    ctx.check('WT-CONN-4', answer === undefined, {
      message: 'notifications/initialized sent as the first control message (before initialize) is not answered: it is a notification',
      expected: 'no response',
      actual: answer?.message,
    });
    if (answer === undefined) ctx.reading('WT-CONN-4', closed ? 2 : 1, closed ? 'the session closed after the notification' : 'the notification was ignored');
  },
});

const messageWhileInitializing = defineCase({
  id: 'framing/message-while-initializing',
  suite: SUITE,
  title: 'WT-CONN-4: a request written together with initialize is refused (-32600 recommended) or served only after the initialize result; a notification with it is never answered',
  requirements: ['WT-CONN-4', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  async run(ctx) {
    const initId = ctx.nextId();
    const listId = ctx.nextId();
    // One write: the server has all three frames before it can have sent the initialize result.
    await sendRawQuietly(
      ctx,
      concat([
        frame(bodyOfJson(jsonOnlyInitialize(ctx, initId))),
        frame(bodyOfJson(request(listId, 'tools/list', {}))),
        frame(bodyOfJson(notification('notifications/initialized'))),
      ]),
    );
    // Everything the server sends until both requests are answered (or the deadline), in order.
    const seen: Message[] = [];
    const deadline = Date.now() + ctx.scaled(ERROR_WAIT_MS);
    while (!(seen.some((m) => isResponseTo(m, initId)) && seen.some((m) => isResponseTo(m, listId)))) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const next = await maybeNext(ctx, (r) => isRecord(r.message) && !('method' in r.message), remaining / ctx.scaled(1));
      if (!next) break;
      seen.push(next.message as Message);
    }
    const listAt = seen.findIndex((m) => isResponseTo(m, listId));
    const initAt = seen.findIndex((m) => isResponseTo(m, initId));
    const list = listAt >= 0 ? seen[listAt] : undefined;
    const servedLate = list !== undefined && 'result' in list && initAt >= 0 && initAt < listAt;
    judgeRefusal(ctx, 'tools/list written together with initialize', listId, { ...(list ? { answer: list } : {}), closed: ctx.connection.isClosed }, servedLate);
    const others = seen.filter((m) => !isResponseTo(m, initId) && !isResponseTo(m, listId));
    ctx.check('WT-CONN-4', others.length === 0, {
      message: 'notifications/initialized written before the initialize result is not answered: it is a notification',
      expected: 'no response',
      actual: others,
    });
  },
});

const serverSpeaksAfterInitialize = defineCase({
  id: 'framing/states-follow-initialize',
  suite: SUITE,
  title: 'WT-CONN-1: the server answers initialize with its result (INITIALIZING -> READY) and serves requests once READY',
  requirements: ['WT-CONN-1'],
  transports: WT_ONLY,
  async run(ctx) {
    // MCP lets a server ping, or log, before initialization completes: what comes early is reported.
    const early = await maybeNext(ctx, () => true, 300);
    if (early) ctx.info('WT-CONN-1', 'the server sent a message before the client sent initialize', early.message);
    const initId = ctx.nextId();
    await ctx.connection.send(jsonOnlyInitialize(ctx, initId));
    const before: unknown[] = [];
    let init: Message | undefined;
    for (;;) {
      const next = await maybeNext(ctx, () => true, 5_000);
      if (!next) break;
      if (isResponseTo(next.message, initId)) {
        init = next.message as Message;
        break;
      }
      before.push(next.message);
    }
    if (before.length > 0) ctx.info('WT-CONN-1', `the server sent ${before.length} message(s) before the initialize result`, before);
    ctx.check('WT-CONN-1', init !== undefined && isRecord(init.result), {
      message: 'initialize is answered with its result (INITIALIZING -> READY)',
      expected: { id: initId, result: '...' },
      actual: init ?? 'no answer',
    });
    if (!init || !isRecord(init.result)) return;
    await ctx.connection.send(notification('notifications/initialized'));
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

/** Codes only the binding defines (001 §4.2): no MCP error may use them. -32001..-32003 also have 002 meanings (C-01). */
const BINDING_ONLY_CODES = [-32000, -32004];

const bindingCodesKeepMeaning = defineCase({
  id: 'framing/binding-codes-keep-their-meaning',
  suite: SUITE,
  title: 'WT-ERR-1: an unknown method is never answered with a binding code (-32000..-32004), an unknown tool never with one only the binding defines (-32000, -32004)',
  requirements: ['WT-ERR-1'],
  transports: WT_ONLY,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const unknown = ctx.nextId();
    await ctx.connection.send(request(unknown, 'conformance/no-such-method'));
    const methodAnswer = (await maybeNext(ctx, isAnswerTo(unknown), 5_000))?.message as Message | undefined;
    const methodCode = errorOf(methodAnswer)?.code;
    ctx.check('WT-ERR-1', !BINDING_CODES.includes(methodCode as number), {
      message: 'an unknown method is not answered with a binding code (-32000..-32004): JSON-RPC gives it -32601',
      expected: { error: { code: -32601 } },
      actual: methodAnswer ?? 'no answer',
    });
    if (!ctx.discovery.capabilities || !Object.hasOwn(ctx.discovery.capabilities, 'tools')) return;
    const id = ctx.nextId();
    await ctx.connection.send(request(id, 'tools/call', { name: 'conformance-no-such-tool', arguments: {} }));
    const toolAnswer = (await maybeNext(ctx, isAnswerTo(id), 5_000))?.message as Message | undefined;
    const toolCode = errorOf(toolAnswer)?.code as number | undefined;
    ctx.check('WT-ERR-1', !BINDING_ONLY_CODES.includes(toolCode as number), {
      message: 'tools/call of an unknown tool is not answered with a code only the binding defines (-32000, -32004)',
      expected: 'an MCP or JSON-RPC code (e.g. -32602), or one of 002\'s -32001..-32003',
      actual: toolAnswer ?? 'no answer',
    });
    if (toolCode !== undefined && BINDING_CODES.includes(toolCode) && !BINDING_ONLY_CODES.includes(toolCode)) {
      ctx.info('WT-ERR-1', `the unknown tool was answered with ${toolCode}, which 002's ErrorCode enum defines for MCP (C-01)`, toolAnswer);
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
