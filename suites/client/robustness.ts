// Suite `robustness` (client side, WebTransport): a control frame from the server that does not
// decode is answered with -32700 (id null) and the client goes on with the next frame: it still
// answers a ping and finishes its scenario (001 §2.1, §4.1).
import { defineCase, TargetPreconditionError, type ConformanceCase } from '../../src/harness/index.js';
import { frame, sendRawQuietly, wt } from '../server/support/webtransport.js';
import { CODE, errorOf, exitText, ECHO_CALL, isResponse, ScriptedServer } from './support.js';

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
  timeLimitMs: 18_000,
  async run(ctx) {
    const server = new ScriptedServer(ctx);
    await server.open();
    const call = await server.awaitCall();
    if (!call) throw new TargetPreconditionError('the client made no tools/call');
    for (const garbage of GARBAGE[wt(ctx).encoding]) {
      if (!(await sendRawQuietly(ctx, frame(garbage.body)))) break;
      const answer = await server.serveUntil((r) => isResponse(r.message) && r.message.id === null, PARSE_ERROR_WAIT_MS);
      ctx.check('WT-FRAME-4', answer !== undefined && errorOf(answer.message)?.code === CODE.parseError, {
        message: `a frame holding ${garbage.what} is answered with -32700 Parse error, id null`,
        expected: { id: null, error: { code: CODE.parseError } },
        actual: answer?.message ?? 'no answer',
      });
      const ping = await server.request('WT-FRAME-8', 'ping', undefined, PARSE_ERROR_WAIT_MS);
      if (!ping) break;
      ctx.check('WT-FRAME-8', 'result' in ping, { message: `after the frame holding ${garbage.what} the next frame (a ping) is still served`, expected: { result: {} }, actual: ping });
    }
    await server.answerCall(call);
    const exit = await server.untilExit();
    ctx.info('WT-FRAME-8', `after the garbage the client finished its call with ${exitText(exit)}`, exit);
  },
});

export const cases: readonly ConformanceCase[] = [garbageFrames];
