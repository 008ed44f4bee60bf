// Suite `negotiation` (client side, WebTransport): the initialize request is JSON and carries the
// binding's `transport` member; everything after the initialize result is in the encoding the
// server chose, from `notifications/initialized` on; no frame exceeds the server's
// maxMessageSize (001 §2.1, §3).
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import type { ConnectionFault } from '../../../src/transport/connection.js';
import { isRecord } from '../../../src/wire/index.js';
import { CborWalkError, walkCbor } from '../../support/cbor-items.js';
import {
  clientMessages,
  describe,
  ECHO_CALL,
  ending,
  faultCodes,
  isNotification,
  isRequest,
  offeredEncodings,
  offersCbor,
  paramsOf,
  ScriptedServer,
  servedSession,
  stderrTail,
  type ClientMessage,
  type Message,
} from '../../support/scripted-server.js';

const SUITE = 'negotiation';
const WT_ONLY = ['webtransport'] as const;

const initializeJson = defineCase({
  id: 'negotiation/initialize-json-with-transport',
  suite: SUITE,
  title: 'WT-CONN-3, WT-ENC-1, WT-INIT-1: the first control message is a JSON initialize carrying transport {type "mcp-flow", version "0.1", encodings}',
  requirements: ['WT-CONN-3', 'WT-ENC-1', 'WT-INIT-1', 'WT-CONN-2', 'WT-FRAME-1'],
  transports: WT_ONLY,
  scenario: { name: 'initialize' },
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    let request: (Message & { id: string | number }) | undefined;
    try {
      request = await server.awaitInitialize();
    } catch (error) {
      // A CBOR initialize is refused by the session (ENCODING_MISMATCH) and never delivered.
      if (!(error instanceof TargetPreconditionError) || !faultCodes(ctx).includes('ENCODING_MISMATCH')) throw error;
    }
    const mismatch = faultCodes(ctx).includes('ENCODING_MISMATCH');
    const first = clientMessages(ctx)[0];
    ctx.check('WT-ENC-1', !mismatch && request !== undefined && first?.encoding === 'json', {
      message: 'the initialize request is JSON-encoded',
      expected: 'a JSON frame',
      actual: mismatch ? 'a frame that is not JSON (refused with -32003)' : (first?.encoding ?? 'nothing'),
    });
    ctx.check('WT-CONN-3', !mismatch && first !== undefined && isRequest(first.message, 'initialize') && first.encoding === 'json', {
      message: 'the first message on the control stream is a JSON-encoded initialize request',
      expected: 'initialize (JSON)',
      actual: first ? `${describe(first.message)} (${first.encoding ?? 'not decoded'})` : mismatch ? 'an undecodable frame' : 'nothing',
    });
    if (!request) return;
    const transport = paramsOf(request).transport;
    const encodings = isRecord(transport) ? transport.encodings : undefined;
    const encodingsOk = encodings === undefined || (Array.isArray(encodings) && encodings.length > 0 && encodings.every((e) => typeof e === 'string'));
    ctx.check('WT-INIT-1', isRecord(transport) && transport.type === 'mcp-flow' && transport.version === '0.1' && encodingsOk, {
      message: 'initialize params.transport is {type: "mcp-flow", version: "0.1", encodings?: [string, ...]}',
      expected: { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] },
      actual: transport ?? 'no transport member',
    });
    await server.answerInitialize();
    await server.untilExit();
    const extraBidi = faultCodes(ctx).filter((code) => code === 'UNEXPECTED_BIDIRECTIONAL_STREAM');
    ctx.check('WT-CONN-2', extraBidi.length === 0, {
      message: 'the control stream is the only bidirectional stream the client opens (the first one, carrying initialize)',
      expected: 'one bidirectional stream',
      actual: extraBidi.length > 0 ? `${extraBidi.length} more bidirectional stream(s)` : 'one',
    });
    const framing = faultCodes(ctx).filter((code) => code.startsWith('FRAME_'));
    ctx.check('WT-FRAME-1', framing.length === 0 && clientMessages(ctx).length > 0, {
      message: 'every control message is one frame: a 4-byte big-endian length and exactly that many body bytes',
      expected: 'well-framed messages',
      actual: framing.length > 0 ? framing : `${clientMessages(ctx).length} frames read`,
    });
  },
});

/** Codes of the frames the harness's session refused (and answered with an error) that the client sent after the initialize result. */
function refusedAfter(ctx: CaseContext, server: ScriptedServer, codes: readonly string[]): ConnectionFault[] {
  const answeredAt = server.initializeAnsweredAt();
  const answeredTime = ctx.connection.transcript.entries().find((entry) => entry.seq === answeredAt)?.at ?? Infinity;
  return ctx.connection.faults().filter((fault) => codes.includes(fault.code) && fault.at >= answeredTime);
}

/** "2 frame(s) refused with -32003: ENCODING_MISMATCH: expected ..." */
function refusals(faults: readonly ConnectionFault[]): string {
  const first = faults[0];
  if (!first) return 'none';
  return `${faults.length} frame(s) refused${first.jsonRpcCode !== undefined ? ` with ${first.jsonRpcCode}` : ''}: ${first.code}: ${first.message}`;
}

/**
 * Negotiates `encoding`, lets the client run its `initialize` scenario, and checks that everything
 * it sent after the initialize result (from notifications/initialized on) is in that encoding. A
 * client that sent nothing more has nothing to judge here (CORE-LIFE-4 is lifecycle's).
 */
async function checkSwitch(ctx: CaseContext, encoding: 'json' | 'cbor'): Promise<{ server: ScriptedServer; after: ClientMessage[]; mismatches: ConnectionFault[] }> {
  const { server } = await servedSession(ctx, { result: { transport: { encoding } } });
  const answeredAt = server.initializeAnsweredAt();
  const after = clientMessages(ctx).filter((m) => m.seq > answeredAt);
  const wrong = after.filter((m) => m.encoding !== encoding);
  const mismatches = refusedAfter(ctx, server, ['ENCODING_MISMATCH']);
  const initialized = after.find((m) => isNotification(m.message, 'notifications/initialized'));
  if (initialized === undefined && mismatches.length === 0) {
    ctx.info('WT-ENC-12', `no notifications/initialized came, so no encoding of it to judge: ${server.observed()}`);
  } else {
    ctx.check('WT-ENC-12', initialized !== undefined && initialized.encoding === encoding && mismatches.length === 0, {
      message: `notifications/initialized is sent in the negotiated encoding (${encoding})`,
      expected: `notifications/initialized in ${encoding}`,
      actual: mismatches.length > 0 ? refusals(mismatches) : `in ${initialized?.encoding}`,
    });
  }
  if (after.length === 0 && mismatches.length === 0) {
    ctx.info('WT-ENC-3', `the client sent no message after the initialize result, so no encoding to judge: ${server.observed()}`);
  } else {
    ctx.check('WT-ENC-3', wrong.length === 0 && mismatches.length === 0, {
      message: `every message after the initialize result is in ${encoding}`,
      expected: encoding,
      actual:
        mismatches.length > 0
          ? refusals(mismatches)
          : wrong.length > 0
            ? wrong.slice(0, 3).map((m) => `${describe(m.message)} in ${m.encoding}`)
            : `${after.length} message(s), all in ${encoding}`,
    });
  }
  return { server, after, mismatches };
}

const switchToCbor = defineCase({
  id: 'negotiation/switch-to-cbor',
  suite: SUITE,
  title: 'WT-ENC-3, WT-ENC-12, WT-ENC-10, WT-ENC-13: with "cbor" negotiated, notifications/initialized and everything after it are CBOR data items with text keys, integers as integers',
  requirements: ['WT-ENC-3', 'WT-ENC-12', 'WT-ENC-10', 'WT-ENC-13'],
  transports: WT_ONLY,
  scenario: { name: 'initialize' },
  applies: offersCbor,
  async run(ctx) {
    const { server } = await checkSwitch(ctx, 'cbor');
    const bodies = server.seen.filter((s) => s.received.encoding === 'cbor' && s.received.body !== undefined);
    // One walk per body. WT-ENC-13 as the server cases judge it: an integer id must be a CBOR
    // integer; an integral value elsewhere written as a float (20.0 in application data, say) is
    // only noted.
    const issues: string[] = [];
    const integralFloats: string[] = [];
    const floatIds: string[] = [];
    for (const s of bodies) {
      const what = describe(s.received.message);
      let walk;
      try {
        walk = walkCbor(s.received.body!);
      } catch (error) {
        if (!(error instanceof CborWalkError)) throw error;
        issues.push(`${what}: ${error.message}`);
        continue;
      }
      for (const issue of walk.issues) (issue.requirement === 'WT-ENC-10' ? issues : integralFloats).push(`${what}: ${issue.problem} (byte ${issue.offset})`);
      if (typeof (s.received.message as Message).id === 'number' && walk.idMajor !== 0 && walk.idMajor !== 1) {
        floatIds.push(`${what}: its id is written with CBOR major type ${String(walk.idMajor)}`);
      }
    }
    // Bodies that are not one CBOR data item never reach the case: the session refused them (-32700).
    const refused = refusedAfter(ctx, server, ['CBOR_TRAILING_BYTES', 'INVALID_CBOR']);
    if (bodies.length === 0 && refused.length === 0) {
      ctx.info('WT-ENC-10', `no CBOR body came, so none to judge: ${server.observed()}`);
      ctx.info('WT-ENC-13', 'no CBOR body came, so no number in one to judge');
      return;
    }
    ctx.check('WT-ENC-10', issues.length === 0 && refused.length === 0, {
      message: 'each CBOR body is one data item with text-string map keys',
      expected: 'RFC 8949 items as the binding encodes JSON',
      actual: refused.length > 0 ? [refusals(refused), ...issues.slice(0, 4)] : issues.length > 0 ? issues.slice(0, 5) : `${bodies.length} CBOR bodies`,
    });
    if (bodies.length > 0) {
      ctx.check('WT-ENC-13', floatIds.length === 0, {
        message: 'the integer ids in the CBOR bodies are CBOR integers (major type 0 or 1), never floats',
        expected: 'major type 0 or 1 for every integer id',
        actual: floatIds.length > 0 ? floatIds.slice(0, 5) : `${bodies.length} CBOR bodies`,
      });
      if (integralFloats.length > 0) ctx.info('WT-ENC-13', 'integral values written as CBOR floats', integralFloats.slice(0, 5));
    }
  },
});

const switchToJson = defineCase({
  id: 'negotiation/switch-to-json',
  suite: SUITE,
  title: 'WT-ENC-3, WT-ENC-12, WT-ENC-8: with "json" negotiated (every implementation speaks it), notifications/initialized and everything after it are JSON',
  requirements: ['WT-ENC-3', 'WT-ENC-12', 'WT-ENC-8'],
  transports: WT_ONLY,
  scenario: { name: 'initialize' },
  async run(ctx) {
    const { server, after, mismatches } = await checkSwitch(ctx, 'json');
    const offered = offeredEncodings(ctx.discovery);
    if (offered.length > 0 && !offered.includes('json')) {
      ctx.info('WT-ENC-8', `the client offers ${JSON.stringify(offered)} without "json"; "json" stays the encoding a server falls back to (WT-ENC-7)`, offered);
    }
    // Speaking json shows on the wire: messages in JSON after the result. Going on in the other
    // encoding shows it does not; nothing at all shows neither (the exit status has many causes).
    const inJson = after.filter((m) => m.encoding === 'json');
    if (inJson.length === 0 && mismatches.length === 0) {
      ctx.info('WT-ENC-8', `the client sent nothing after the "json" initialize result, so whether it speaks json is not shown: ${server.observed()}`);
    } else {
      ctx.check('WT-ENC-8', inJson.length > 0, {
        message: 'the client speaks "json": with "json" negotiated it goes on in JSON',
        expected: 'messages in JSON after the initialize result',
        actual: inJson.length > 0 ? `${inJson.length} message(s) in JSON` : `nothing in JSON; ${refusals(mismatches)}`,
      });
    }
    // The exit status has many causes (any failed step): reported when it is not 0, never judged here.
    const exit = ctx.client?.exitStatus;
    if (exit?.code !== 0) ctx.info('WT-ENC-8', `on "json" the client ${ending(exit)}${exit ? `; its stderr ends with: ${stderrTail(ctx, 1).join('') || '(nothing)'}` : ''}`, exit);
  },
});

/** The maxMessageSize the case advertises: far below the call the scenario makes. */
const SMALL_MAX_MESSAGE_SIZE = 1024;

const framesWithinLimit = defineCase({
  id: 'negotiation/frames-within-max-message-size',
  suite: SUITE,
  title: "WT-FRAME-9: no frame the client sends after the initialize result is longer than the server's maxMessageSize",
  requirements: ['WT-FRAME-9'],
  transports: WT_ONLY,
  scenario: { name: 'tools-call', context: { tool: ECHO_CALL.tool, arguments: { text: 'x'.repeat(4 * SMALL_MAX_MESSAGE_SIZE) } } },
  async run(ctx) {
    const { server, exit } = await servedSession(ctx, { result: { transport: { maxMessageSize: SMALL_MAX_MESSAGE_SIZE } } });
    const answeredAt = server.initializeAnsweredAt();
    const over = clientMessages(ctx).filter((m) => m.seq > answeredAt && m.byteLength - 4 > SMALL_MAX_MESSAGE_SIZE);
    const refused = faultCodes(ctx).filter((code) => code === 'FRAME_TOO_LARGE');
    ctx.check('WT-FRAME-9', over.length === 0 && refused.length === 0, {
      message: `every frame body after the initialize result is at most maxMessageSize (${SMALL_MAX_MESSAGE_SIZE} bytes)`,
      expected: `bodies of at most ${SMALL_MAX_MESSAGE_SIZE} bytes`,
      actual: over.length > 0 ? over.map((m) => `${describe(m.message)}: ${m.byteLength - 4} bytes`) : refused.length > 0 ? 'a frame over the limit (refused)' : 'all within the limit',
    });
    ctx.info('WT-FRAME-9', `the call could not fit in one frame; the client ${ending(exit)}`, exit);
  },
});

export const cases: readonly ConformanceCase[] = [initializeJson, switchToCbor, switchToJson, framesWithinLimit];
