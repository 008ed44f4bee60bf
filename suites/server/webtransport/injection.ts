// Suite `injection` (WebTransport part; the MCP Flow part is flow-injection.ts): what a hostile
// client can try against the binding's correlation and admission rules: execution-stream headers
// naming requests that are not in flight (never sent, already answered, another session's, a
// server-to-client request's), request ids the 32-bit headers cannot carry, a foreign Origin on
// the CONNECT, and a TLS version below 1.3 (001 §9 security checklist).
import fc from 'fast-check';
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { OutgoingExecutionStream } from '../../../src/transport/connection.js';
import { ConnectionError } from '../../../src/transport/errors.js';
import { probeWebTransportSession } from '../../../src/transport/webtransport/index.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  errorOf,
  initializeParams,
  interactiveTool,
  isRequestFromTarget,
  isResponseTo,
  notification,
  openSession,
  request,
  requiresInteractiveTool,
  type Message,
} from '../../support/session.js';
import { maybeNext, pingAnswered, probeTls, raceTimeout, secondConnection, targetUrl, wt } from '../../support/webtransport.js';

const SUITE = 'injection';
const WT_ONLY = ['webtransport'] as const;
const STREAM_INJECTION = -32002;
const INVALID_REQUEST = -32600;
/** How long a rejection of an injected stream may take (the server may wait a grace period for the id). */
const REJECTION_WAIT_MS = 4_000;

interface StreamVerdict {
  /** The stream was reported on the control stream (an error naming its request id and tag). */
  report?: Message;
  /** Writes on the stream failed (the server stopped reading it). */
  stopped: boolean;
}

/** Does `message` name this stream (an error whose data carries its request id)? */
function namesStream(message: unknown, requestId: number): boolean {
  if (!isRecord(message) || 'method' in message) return false;
  const data = errorOf(message)?.data;
  return isRecord(data) && data.requestId === requestId;
}

/**
 * Opens an execution stream with `header` and watches how the server treats it: an error report
 * naming it on the control stream, or STOP_SENDING (our writes start failing). Keeps writing small
 * payload chunks until one of those happens or the deadline passes.
 */
async function injectStream(ctx: CaseContext, header: { requestId: number; streamTag: number }): Promise<StreamVerdict> {
  // The server may take a grace period for the request to show up before it decides (a slow
  // trickle meanwhile): the worker serves other cases.
  return ctx.awaitTarget(injectAndWatch(ctx, header));
}

async function injectAndWatch(ctx: CaseContext, header: { requestId: number; streamTag: number }): Promise<StreamVerdict> {
  let stream: OutgoingExecutionStream;
  try {
    stream = await wt(ctx).openExecutionStream(header);
  } catch (error) {
    if (error instanceof ConnectionError) return { stopped: true };
    throw error;
  }
  const reportWait = maybeNext(ctx, (r) => namesStream(r.message, header.requestId), REJECTION_WAIT_MS);
  let stopped = false;
  let reported: Message | undefined;
  // Settles by itself (report, deadline or close); a case aborted meanwhile must not leave it unhandled.
  void reportWait.then((r) => (reported = r?.message as Message | undefined)).catch(() => undefined);
  const deadline = Date.now() + ctx.scaled(REJECTION_WAIT_MS);
  const chunk = new Uint8Array(1024).fill(0x5a);
  while (!stopped && reported === undefined && Date.now() < deadline && !ctx.connection.isClosed) {
    ctx.signal.throwIfAborted();
    try {
      await raceTimeout(ctx, stream.write(chunk), 200, undefined);
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      stopped = true;
    }
    // The next chunk in 50 ms, unless the report comes first.
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), reportWait.catch(() => undefined)]);
  }
  if (reported === undefined && !stopped) reported = (await reportWait)?.message as Message | undefined;
  await stream.abort('conformance: injected stream done').catch(() => undefined);
  return { ...(reported !== undefined ? { report: reported } : {}), stopped };
}

/** Records the checks every injected stream gets: rejected (WT-EXEC-2), and a report uses -32002 with id null. */
function checkRejected(ctx: CaseContext, what: string, header: { requestId: number; streamTag: number }, verdict: StreamVerdict): void {
  ctx.check('WT-EXEC-2', verdict.report !== undefined || verdict.stopped, {
    message: `an execution stream naming ${what} (request ${header.requestId}, tag ${header.streamTag}) is rejected`,
    expected: 'STOP_SENDING on the stream, or an error -32002 naming it',
    actual: 'the stream was read and nothing was reported',
  });
  if (verdict.report !== undefined) {
    const error = errorOf(verdict.report);
    ctx.check('WT-ERR-1', error?.code === STREAM_INJECTION, {
      message: `the report of the stream naming ${what} uses -32002 Stream Injection`,
      expected: { error: { code: STREAM_INJECTION } },
      actual: verdict.report,
    });
    ctx.check('WT-ERR-3', verdict.report.id === null, {
      message: `the report of the stream naming ${what} carries id null (the stream belongs to no request)`,
      expected: { id: null },
      actual: { id: verdict.report.id },
    });
  }
}

const streamForRequestNotInFlight = defineCase({
  id: 'injection/stream-header-request-not-in-flight',
  suite: SUITE,
  title: 'WT-EXEC-2: execution streams whose header names a request never sent, or one already answered, are rejected (-32002, id null)',
  requirements: ['WT-EXEC-2', 'WT-ERR-1', 'WT-ERR-3'],
  transports: WT_ONLY,
  sleeps: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    // An id that was in flight: a ping, answered.
    const answeredId = ctx.nextId();
    if (await pingAnswered(ctx, answeredId)) {
      const header = { requestId: answeredId, streamTag: 1 };
      checkRejected(ctx, 'an already answered request', header, await injectStream(ctx, header));
    }
    let failed = false;
    await ctx.property(
      'WT-EXEC-2',
      fc.uniqueArray(fc.record({ requestId: fc.integer({ min: 10_000, max: 0xffff_ffff }), streamTag: fc.integer({ min: 0, max: 0xffff_ffff }) }), {
        minLength: 2,
        maxLength: 3,
        selector: (h) => h.requestId,
      }),
      async (headers) => {
        if (failed || ctx.connection.isClosed) return true;
        const verdicts = await Promise.all(headers.map((header) => injectStream(ctx, header)));
        headers.forEach((header, i) => checkRejected(ctx, 'a request never sent', header, verdicts[i]!));
        const ok = verdicts.every((v) => v.report !== undefined || v.stopped);
        if (!ok) failed = true;
        return ok;
      },
      { numRuns: 2 },
    );
    const serving = await pingAnswered(ctx, ctx.nextId());
    ctx.check('WT-EXEC-2', serving, { message: 'the session still serves requests after the injected streams', actual: serving ? 'ping answered' : 'no answer' });
  },
});

const streamForAnotherSessionsRequest = defineCase({
  id: 'injection/stream-header-names-another-sessions-request',
  suite: SUITE,
  title: "WT-EXEC-2: an execution stream naming a request in flight on another session is rejected on this one",
  requirements: ['WT-EXEC-2', 'WT-ERR-1', 'WT-ERR-3'],
  transports: WT_ONLY,
  sleeps: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const other = await secondConnection(ctx);
    try {
      const otherInit = 1;
      await other.send(request(otherInit, 'initialize', initializeParams(ctx)));
      await other.next((r) => isResponseTo(r.message, otherInit), { timeoutMs: ctx.scaled(5_000), signal: ctx.signal }).catch(() => undefined);
      await other.send(notification('notifications/initialized'));
      // A request on the other session that names a stream it will send: it stays in flight there
      // while it waits (a server that answers at once leaves the id in flight nowhere; either way
      // the stream on this session must be rejected).
      const foreignId = 4242;
      await other.send(request(foreignId, 'ping', { _meta: { input: { type: 'ref/stream', streamTag: 1 } } }));
      const header = { requestId: foreignId, streamTag: 1 };
      checkRejected(ctx, "another session's request", header, await injectStream(ctx, header));
    } finally {
      await other.close('case finished');
    }
  },
});

const streamForServerRequest = defineCase({
  id: 'injection/stream-header-names-server-request',
  suite: SUITE,
  title: 'WT-ID-4: only client-to-server requests get streams: a client stream naming the server\'s own pending request is rejected, and the server opens none for it',
  requirements: ['WT-ID-4', 'WT-ID-1'],
  transports: WT_ONLY,
  sleeps: true,
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    // Find a server-to-client request: an interactive tool that prompts with a request after start.
    let serverRequest: (Message & { id: string | number; method: string }) | undefined;
    // At most four tools, started together and watched for 2 s: a server whose tools all start
    // with an initial prompt sends no request (rule 6).
    for (const tool of new Set([interactiveTool(ctx), ...(ctx.discovery.interactiveTools ?? []).slice(1, 4)])) {
      await ctx.connection.send(request(ctx.nextId(), 'interaction.start', { toolName: tool }));
    }
    const found = await ctx.awaitTarget(maybeNext(ctx, (r) => isRequestFromTarget(r.message), 2_000));
    if (found) serverRequest = found.message as Message & { id: string | number; method: string };
    if (!serverRequest) {
      ctx.info('WT-ID-4', 'no interactive tool sent a server-to-client request after interaction.start (all start with an initial prompt)');
      ctx.info('WT-ID-1', 'no server-to-client request was observed, so its id could not be checked');
      return;
    }
    const sid = serverRequest.id;
    ctx.check('WT-ID-1', typeof sid === 'number' && Number.isInteger(sid) && sid >= 0 && sid <= 0xffff_ffff, {
      message: `the server's ${serverRequest.method} request id is an integer in 0..2^32-1`,
      expected: 'an integer in 0..4294967295',
      actual: sid,
    });
    if (typeof sid === 'number' && Number.isInteger(sid) && sid >= 0 && sid <= 0xffff_ffff) {
      // Our own requests in flight are interaction.start ids; use a tag no stream of theirs could have.
      const header = { requestId: sid, streamTag: 0xfeed };
      const verdict = await injectStream(ctx, header);
      ctx.check('WT-ID-4', verdict.report !== undefined || verdict.stopped, {
        message: `a client execution stream naming the server's pending ${serverRequest.method} (id ${sid}) is rejected`,
        expected: 'STOP_SENDING on the stream, or an error -32002 naming it',
        actual: 'the stream was read and nothing was reported',
      });
    }
    const forServerRequest = ctx.connection.transcript.entries().filter((e) => {
      if (e.direction !== 'received') return false;
      if (e.channel.kind === 'stream') return e.channel.header?.requestId === sid;
      return e.channel.kind === 'datagram' && e.channel.requestId === sid;
    });
    ctx.check('WT-ID-4', forServerRequest.length === 0, {
      message: `the server opened no execution stream and sent no datagram naming its own request ${String(sid)}`,
      expected: 'none',
      actual: forServerRequest.map((e) => e.channel),
    });
  },
});

/** Request ids the 32-bit headers cannot carry: negative, above 2^32-1 (still exact doubles), fractional. */
const OUT_OF_RANGE_ID = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: -1 }),
  fc.integer({ min: 2 ** 32, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ min: 0, max: 2 ** 32, noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
);

const rawStreamGarbageHeader = defineCase({
  id: 'injection/raw-stream-garbage-header',
  suite: SUITE,
  title: 'WT-EXEC-1: a unidirectional stream that ends inside its 8-byte header is dropped (reported with -32600, id null, or silently) and the session keeps serving',
  requirements: ['WT-EXEC-1', 'WT-EXEC-11', 'WT-ERR-3'],
  transports: WT_ONLY,
  sendsInvalid: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    let failed = false;
    const reports: Message[] = [];
    const isReport = (message: unknown) => isRecord(message) && !('method' in message) && message.id === null && 'error' in message;
    // Whether a report comes is a reading (nothing is owed for a stream): only the session serving on is expected.
    await ctx.property(
      'WT-EXEC-11',
      fc.uint8Array({ minLength: 1, maxLength: 7 }),
      async (garbage) => {
        if (failed || ctx.connection.isClosed) return true;
        const stream = await wt(ctx).openRawStream(garbage);
        await stream.close().catch(() => undefined); // FIN inside the header
        const ok = await pingAnswered(ctx, ctx.nextId());
        const report = await maybeNext(ctx, (r) => isReport(r.message), 300);
        if (report) reports.push(report.message as Message);
        if (!ok) failed = true;
        return ok;
      },
      { numRuns: 4 },
    );
    if (reports.length === 0) {
      ctx.reading('WT-EXEC-1', 2, 'streams too short for their header');
      ctx.info('WT-ERR-3', 'no error was sent for a truncated header, so its id could not be checked');
      return;
    }
    const codes = [...new Set(reports.map((r) => errorOf(r)?.code))];
    ctx.reading('WT-EXEC-1', 1, `streams too short for their header were reported with ${codes.join(', ')}`, reports[0]);
    ctx.check('WT-ERR-3', reports.every((r) => r.id === null), {
      message: 'the error for a stream with no readable header carries id null',
      expected: { id: null },
      actual: reports.map((r) => ({ id: r.id })),
    });
  },
});

const requestIdOutOfRange = defineCase({
  id: 'injection/request-id-out-of-range',
  suite: SUITE,
  title: 'WT-ID-3: a request whose numeric id is outside 0..2^32-1 or not an integer is refused with -32600 or served without streams, never answered under another id; 0 and 2^32-1 are served',
  requirements: ['WT-ID-3', 'WT-ID-1'],
  transports: WT_ONLY,
  sendsInvalid: true,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    let failed = false;
    /** What an id got -> the WT-ID-3 reading it is. */
    const readings = new Map<string, number | undefined>();
    await ctx.property(
      'WT-ID-3',
      OUT_OF_RANGE_ID,
      async (id) => {
        if (failed || ctx.connection.isClosed) return true;
        await ctx.connection.send(request(id, 'ping'));
        const answer = await maybeNext(
          ctx,
          (r) => isRecord(r.message) && !('method' in r.message) && (r.message.id === id || (r.message.id === null && errorOf(r.message as Message)?.code === INVALID_REQUEST)),
          5_000,
        );
        const message = answer?.message as Message | undefined;
        // Every accepted reading answers under the request's own id (or null for a refusal): the answer is never lost or renamed.
        // A fraction is no MCP id at all: its -32600 carries id null under the recommended reading too.
        const integer = Number.isInteger(id);
        if (message !== undefined) {
          const kind = integer ? 'an integer id' : 'a fractional id';
          if ('result' in message) readings.set(`${kind} served`, 3);
          else if (errorOf(message)?.code !== INVALID_REQUEST) readings.set(`${kind} refused with ${String(errorOf(message)?.code)}`, undefined);
          else if (message.id === null) readings.set(`${kind} refused with id null`, integer ? 2 : 1);
          else readings.set(`${kind} refused echoing the id`, 1);
        }
        const ok = message !== undefined;
        if (!ok) {
          failed = true;
          ctx.note(`request id ${id} got no answer under its own id (nor an id-null -32600)`);
        }
        return ok;
      },
      { numRuns: 8 },
    );
    for (const [what, reading] of readings) {
      if (reading === undefined) ctx.info('WT-ID-3', what);
      else ctx.reading('WT-ID-3', reading, what);
    }
    for (const id of [0, 0xffff_ffff]) {
      const served = await pingAnswered(ctx, id);
      ctx.check('WT-ID-1', served, { message: `a ping with id ${id} (inside 0..2^32-1) is served`, expected: 'a result', actual: served ? 'a result' : 'no result' });
    }
  },
});

const stringRequestId = defineCase({
  id: 'injection/string-request-id',
  suite: SUITE,
  title: 'WT-ID-2: a request with a string id over WebTransport is rejected with -32600 or served without streams (reported)',
  requirements: ['WT-ID-2'],
  transports: WT_ONLY,
  async run(ctx) {
    await openSession(ctx);
    const id = 'conformance-string-id';
    await ctx.connection.send(request(id, 'ping'));
    const answer = await maybeNext(ctx, (r) => isResponseTo(r.message, id) || (isRecord(r.message) && r.message.id === null && 'error' in r.message), 5_000);
    const message = answer?.message as Message | undefined;
    if (message && 'result' in message) ctx.reading('WT-ID-2', 2, undefined, message);
    else if (message && errorOf(message)?.code === INVALID_REQUEST) ctx.reading('WT-ID-2', 1, undefined, message);
    else ctx.info('WT-ID-2', 'neither accepted reading was observed', message ?? 'no answer');
  },
});

const FOREIGN_ORIGIN = 'https://conformance-attacker.invalid';

const foreignOriginRefused = defineCase({
  id: 'injection/foreign-origin-refused',
  suite: SUITE,
  title: 'WT-SEC-1: a WebTransport CONNECT with an Origin outside the allow-list is refused (403); one without Origin is reported',
  requirements: ['WT-SEC-1', 'WT-SEC-5'],
  transports: WT_ONLY,
  async run(ctx) {
    if (wt(ctx).httpVersion !== 2) {
      ctx.info('WT-SEC-1', 'the Origin probe speaks HTTP/2 extended CONNECT; this target runs WebTransport over HTTP/3');
      ctx.info('WT-SEC-5', 'not probed over HTTP/3');
      return;
    }
    const url = targetUrl(ctx);
    const { certificateHash } = await probeTls(url).catch((error: Error) => {
      throw new TargetPreconditionError(`the TLS handshake for the Origin probe failed: ${error.message}`);
    });
    const foreign = await probeWebTransportSession(url, { origin: FOREIGN_ORIGIN, certificateHash, timeoutMs: ctx.scaled(5_000) });
    const refused = foreign.status >= 400 && foreign.status < 500;
    ctx.check('WT-SEC-1', refused, {
      message: `a CONNECT with Origin ${FOREIGN_ORIGIN} is refused (HTTP 403 recommended, another 4xx accepted) before any session exists`,
      expected: { status: 403 },
      actual: { status: foreign.status },
    });
    if (refused) ctx.reading('WT-SEC-1', foreign.status === 403 ? 1 : 2, `HTTP ${foreign.status}`);
    const none = await probeWebTransportSession(url, { certificateHash, timeoutMs: ctx.scaled(5_000) });
    ctx.reading('WT-SEC-5', none.status === 200 ? 1 : 2, `HTTP ${none.status}`, { status: none.status });
  },
});

const tls13Required = defineCase({
  id: 'injection/tls-1-3-required',
  suite: SUITE,
  title: 'WT-SEC-2: the server negotiates TLS 1.3 and refuses a handshake capped at TLS 1.2',
  requirements: ['WT-SEC-2'],
  transports: WT_ONLY,
  async run(ctx) {
    if (wt(ctx).httpVersion === 3) {
      ctx.info('WT-SEC-2', 'WebTransport over HTTP/3 runs on QUIC, which always uses TLS 1.3');
      return;
    }
    const url = targetUrl(ctx);
    const best = await probeTls(url, {}, ctx.scaled(5_000)).catch((error: Error) => error);
    ctx.check('WT-SEC-2', !(best instanceof Error) && best.protocol === 'TLSv1.3', {
      message: 'a client offering every TLS version gets TLS 1.3',
      expected: 'TLSv1.3',
      actual: best instanceof Error ? best.message : best.protocol,
    });
    const old = await probeTls(url, { maxVersion: 'TLSv1.2' }, ctx.scaled(5_000)).catch((error: Error) => error);
    ctx.check('WT-SEC-2', old instanceof Error, {
      message: 'a client capped at TLS 1.2 is refused',
      expected: 'the handshake fails',
      actual: old instanceof Error ? old.message : `negotiated ${old.protocol}`,
    });
  },
});

export const cases: readonly ConformanceCase[] = [
  streamForRequestNotInFlight,
  streamForAnotherSessionsRequest,
  streamForServerRequest,
  rawStreamGarbageHeader,
  requestIdOutOfRange,
  stringRequestId,
  foreignOriginRefused,
  tls13Required,
];
