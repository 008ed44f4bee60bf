// bad-input: bytes that do not parse, sent the way each transport carries a message: whole
// WebTransport frames (length prefix + body), raw HTTP POST bodies, stdio lines. An answer is
// -32700 Parse error with id null (CORE-RPC-8); answering at all is recommended (CORE-RPC-17), and
// the session still answers ping.
import fc from 'fast-check';
import { defineCase } from '../../../../src/harness/index.js';
import { codecFor, encodeFrame, isRecord } from '../../../../src/wire/index.js';
import { openSession, type Message } from '../../../support/session.js';
import { BadInputMismatch, GarbageTally, PingTally, expectError, sendThenPing, unanswered, type GarbageOutcome } from './exchange.js';

const SUITE = 'bad-input';
const RUNS = 25;
const utf8 = new TextEncoder();

/** Whether `bytes` fail to decode in `encoding` (the project's own codec decides). */
function undecodable(bytes: Uint8Array, encoding: 'json' | 'cbor'): boolean {
  try {
    codecFor(encoding).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** Texts that are not JSON: broken documents, bare words, truncated objects. */
const notJsonText = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 60 }),
    fc.constantFrom('{', '{"jsonrpc": "2.0", "id": 1, "method": "ping"', "{'jsonrpc': '2.0'}", 'ping', '[1, 2', '{"a":}', 'nul', '{"id": 1,}', '\u00ff\u00fe'),
    fc.jsonValue({ maxDepth: 2 }).map((v) => `${JSON.stringify(v)} trailing`),
  )
  .filter((text) => !text.includes('\n') && !text.includes('\r') && text.trim().length > 0)
  .filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  });

/** Bodies for a frame: random bytes, not-JSON text, invalid UTF-8, that do not decode in `encoding`. */
function garbageBodies(encoding: 'json' | 'cbor'): fc.Arbitrary<Uint8Array> {
  return fc
    .oneof(
      fc.uint8Array({ minLength: 1, maxLength: 200 }),
      notJsonText.map((text) => utf8.encode(text)),
      fc.constant(Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])),
      fc.constant(Uint8Array.from([0x62, 0x61])),
      fc.constant(Uint8Array.from([0xa1, 0x61, 0x61, 0x01, 0x00])),
    )
    .filter((bytes) => bytes.length > 0 && undecodable(bytes, encoding));
}

/**
 * Well-formed RFC 8949 items that no JSON-RPC message can be (outside the JSON data model): a
 * decoder may refuse them as unparsable (-32700) or decode them and find no request (-32600,
 * CORE-RPC-8 reading 2). Neither has an id to read.
 */
const CBOR_OUTSIDE_JSON: readonly Uint8Array[] = [
  Uint8Array.of(0xf7), // undefined
  Uint8Array.of(0xf0), // simple value 16
  Uint8Array.of(0xc1, 0x00), // tag 1 (epoch time) around 0
  Uint8Array.of(0xa1, 0x01, 0x02), // a map whose key is an integer
  Uint8Array.of(0x62, 0xff, 0xfe), // a text string that is not UTF-8
];

const hex = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 32)).toString('hex') + (bytes.length > 32 ? '…' : '');

/**
 * Judges what one undecodable input got: an error with one of `codes` and id null (a mismatch
 * otherwise), or nothing / a closed connection, which CORE-RPC-17 counts.
 */
function judgeUnparsable(outcome: GarbageOutcome, what: string, codes: readonly number[], tally: GarbageTally, wellFormed = false): void {
  if (outcome.closed || unanswered(outcome)) {
    tally.silent.push(outcome.closed ? `${what} (the connection closed)` : what);
    return;
  }
  const error = expectError(outcome, what, codes, [null]);
  const code = (error.error as { code: number }).code;
  if (code === -32700) tally.reading(`-32700 with id null${wellFormed ? ' for well-formed CBOR outside the JSON data model' : ''}`, 1);
  // -32600 for bytes this suite's RFC 8949 decoder refuses: the target's decoder took them as well-formed data.
  else tally.reading(`-32600 with id null for ${wellFormed ? 'well-formed CBOR outside the JSON data model' : 'bytes the target decoded (this suite\'s decoder refuses them)'}`, 2);
}

const wtFrames = defineCase({
  id: `${SUITE}/webtransport-undecodable-frames`,
  suite: SUITE,
  title: 'a whole control-stream frame whose body does not decode in the encoding in force is answered with -32700 and id null (CBOR outside the JSON data model: -32700 or -32600), and ping still works',
  requirements: ['CORE-RPC-8', 'CORE-RPC-16', 'CORE-RPC-17'],
  transports: ['webtransport'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const encoding = ctx.connection.webtransport!.encoding;
    ctx.note(`bad-input: frames that do not decode as ${encoding}`);
    const pings = new PingTally();
    const tally = new GarbageTally();
    // CBOR: a decoder other than this suite's may take bytes as well-formed data that is no request, and
    // well-formed items outside the JSON data model may be refused as unparsable: -32600 is as good then.
    const codes = encoding === 'cbor' ? [-32700, -32600] : [-32700];
    const bodies =
      encoding === 'cbor'
        ? fc.oneof(garbageBodies(encoding).map((body) => ({ body, wellFormed: false })), fc.constantFrom(...CBOR_OUTSIDE_JSON).map((body) => ({ body, wellFormed: true })))
        : garbageBodies(encoding).map((body) => ({ body, wellFormed: false }));
    await ctx.property(
      'CORE-RPC-8',
      bodies,
      async ({ body, wellFormed }) => {
        const what = wellFormed ? `a frame whose CBOR body ${hex(body)} is well-formed but outside the JSON data model` : `a frame whose ${encoding} body ${hex(body)} does not decode`;
        const outcome = await sendThenPing(ctx, () => ctx.connection.sendRaw(encodeFrame(body)));
        pings.record(outcome, what);
        judgeUnparsable(outcome, what, codes, tally, wellFormed);
        return true;
      },
      { numRuns: RUNS },
    );
    tally.report(ctx, 'CORE-RPC-8');
    pings.check(ctx);
  },
});

const stdioLines = defineCase({
  id: `${SUITE}/stdio-unparsable-lines`,
  suite: SUITE,
  title: 'a stdin line that is not JSON is answered with -32700 and id null (answering it is recommended), and ping still works',
  requirements: ['CORE-RPC-8', 'CORE-RPC-16', 'CORE-RPC-17'],
  transports: ['stdio'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const tally = new GarbageTally();
    await ctx.property(
      'CORE-RPC-8',
      notJsonText,
      async (line) => {
        const what = `the line ${JSON.stringify(line)}`;
        const outcome = await sendThenPing(ctx, () => ctx.connection.stdio!.writeLine(line));
        pings.record(outcome, what);
        judgeUnparsable(outcome, what, [-32700], tally);
        return true;
      },
      { numRuns: RUNS },
    );
    tally.report(ctx, 'CORE-RPC-8');
    pings.check(ctx);
  },
});

/** The JSON-RPC error in an HTTP answer body, if any. */
function bodyError(messages: readonly unknown[]): Message | undefined {
  return messages.find((m): m is Message => isRecord(m) && 'error' in m && !('method' in m));
}

/**
 * Over Streamable HTTP unparsable input is refused with an HTTP error status, and "The HTTP
 * response body MAY comprise a JSON-RPC error response that has no id" (MCP transports): the body
 * is free. A JSON-RPC error in it must still be -32700 with id null (or no id at all, as MCP
 * allows); a refusal whose body is anything else (Express's HTML 400 page, plain text, nothing)
 * is the transport's answer, reported as INFO.
 */
const httpBodies = defineCase({
  id: `${SUITE}/http-unparsable-bodies`,
  suite: SUITE,
  title: 'a POST body that is not JSON is refused with an HTTP error status (a JSON-RPC error in its body being -32700 with id null or none), and ping still works',
  requirements: ['CORE-RPC-8', 'CORE-RPC-16'],
  transports: ['http'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const http = ctx.connection.http!;
    const pings = new PingTally();
    const statuses = new Set<number>();
    const freeBodies = new Set<string>();
    const body = fc.oneof(notJsonText.map((t) => utf8.encode(t)), fc.constant(Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])));
    await ctx.property(
      'CORE-RPC-8',
      body,
      async (bytes) => {
        const what = `the POST body ${hex(bytes)}`;
        let response: Awaited<ReturnType<typeof http.request>> | undefined;
        const outcome = await sendThenPing(ctx, async () => {
          response = await http.request(
            { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: bytes },
            { timeoutMs: ctx.scaled(5_000), signal: ctx.signal },
          );
        });
        pings.record(outcome, what);
        if (!response) throw new BadInputMismatch(`${what} got no HTTP answer`);
        statuses.add(response.status);
        const error = bodyError(response.messages);
        if (error) {
          // An error "that has no id" is how MCP words it for HTTP error bodies: judged as id null.
          const answer = 'id' in error ? error : { ...error, id: null };
          expectError({ errors: [answer], results: [], pingAnswered: true, closed: false, refusals: [] }, what, [-32700], [null]);
        } else if (response.status >= 400) freeBodies.add(`HTTP ${response.status} with ${response.bodyKind === 'empty' ? 'no body' : `a ${response.headers['content-type'] ?? 'untyped'} body`}`);
        else throw new BadInputMismatch(`${what} was answered with HTTP ${response.status} and no -32700 error`, response.text);
        return true;
      },
      { numRuns: RUNS },
    );
    // The JSON-RPC answer is fixed where there is one, the HTTP status is not (MCP Streamable HTTP uses 400): both are reported.
    if (statuses.size > 0) ctx.info('CORE-RPC-8', `unparsable POST bodies were answered with HTTP ${[...statuses].join(', ')}`);
    if (freeBodies.size > 0) ctx.info('CORE-RPC-8', `some were refused at the HTTP level without a JSON-RPC error (the body of an HTTP error is free): ${[...freeBodies].join('; ')}`);
    pings.check(ctx);
  },
});

export const cases = [wtFrames, stdioLines, httpBodies];
