// Suite `http-transport`: rules of the MCP Streamable HTTP transport itself, which 004 §2 names as
// the way a server is reached ("HTTP-only via MCP Streamable HTTP"). The MCP transport page
// requires servers to validate the Origin header of every request against DNS rebinding, and
// (2025-11-25) to answer an invalid one with 403 Forbidden.
import { defineCase, TargetPreconditionError, type CaseContext } from '../../../src/harness/index.js';
import type { RawHttpResponse } from '../../../src/transport/connection.js';
import { isRecord } from '../../../src/wire/index.js';
import { initializeParams, openSession, request, SETUP_ANSWER_MS } from '../../support/session.js';

const SUITE = 'http-transport';

/** An Origin no server can allow: the `.invalid` top-level domain never resolves (RFC 6761). */
export const FOREIGN_ORIGIN = 'https://conformance-attacker.invalid';

/** The first protocol version whose transport page requires 403 for an invalid Origin. */
const FORBIDDEN_FROM = '2025-11-25';

const POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function served(response: RawHttpResponse): boolean {
  return response.status >= 200 && response.status < 300;
}

function summary(response: RawHttpResponse): { status: number; body: string } {
  return { status: response.status, body: response.text.slice(0, 300) };
}

/**
 * Judges the answer to a request carrying a foreign Origin: served (2xx) fails; 403 passes; another
 * refusal passes where the negotiated version predates the 403 (its page only says "validate"), and
 * fails from 2025-11-25 on.
 */
function checkRefused(ctx: CaseContext, response: RawHttpResponse, what: string, version: string): void {
  const forbidden = response.status === 403;
  const refused = response.status >= 400;
  const ok = forbidden || (refused && version < FORBIDDEN_FROM);
  ctx.check('CORE-HTTP-1', ok, {
    message: `${what} with Origin ${FOREIGN_ORIGIN} is refused with HTTP 403 Forbidden`,
    expected: version < FORBIDDEN_FROM ? 'HTTP 403 (or another refusal: negotiated version predates 2025-11-25)' : 'HTTP 403',
    actual: summary(response),
  });
  if (ok && !forbidden) ctx.info('CORE-HTTP-1', `${what} was refused with HTTP ${response.status}: ${version} only requires the Origin to be validated (403 from 2025-11-25)`);
}

const foreignOriginRefused = defineCase({
  id: `${SUITE}/foreign-origin-refused`,
  suite: SUITE,
  title: 'a POST whose Origin is foreign (DNS rebinding) is refused with HTTP 403, both an initialize that would open a session and a request inside one',
  requirements: ['CORE-HTTP-1'],
  transports: ['http'],
  async run(ctx) {
    const result = await openSession(ctx);
    const http = ctx.connection.http;
    if (!http) throw new TargetPreconditionError('the HTTP connection has no raw request facet');
    const version = typeof result.protocolVersion === 'string' ? result.protocolVersion : FORBIDDEN_FROM;
    const post = (body: unknown, headers: Record<string, string>, omitSessionId = false) =>
      http.request({ headers: { ...POST_HEADERS, ...headers }, body: JSON.stringify(body), omitSessionId }, { signal: ctx.signal, timeoutMs: ctx.scaled(SETUP_ANSWER_MS) });

    // A page on a rebound name would start with initialize: no session may come of it.
    const initialize = request(ctx.nextId(), 'initialize', initializeParams(ctx, { protocolVersion: version }));
    checkRefused(ctx, await post(initialize, { Origin: FOREIGN_ORIGIN }, true), 'an initialize POST', version);

    // Inside the session: the same ping is served without an Origin (so the probe itself is sound) and refused with the foreign one.
    const inSession = { 'MCP-Protocol-Version': version };
    const control = await post(request(ctx.nextId(), 'ping'), inSession);
    if (!served(control) || !control.messages.some((m) => isRecord(m) && 'result' in m)) {
      throw new TargetPreconditionError('a ping POST inside the session without an Origin header was not served, so a refusal could not be told apart', { actual: summary(control) });
    }
    checkRefused(ctx, await post(request(ctx.nextId(), 'ping'), { ...inSession, Origin: FOREIGN_ORIGIN }), 'a ping POST inside the session', version);
  },
});

export const cases = [foreignOriginRefused];
