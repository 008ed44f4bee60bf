// FW-TRANSPORT: a FastWorkflow server is an MCP Streamable HTTP endpoint (004 §2): JSON-RPC in POST
// bodies answered as JSON or SSE, at /mcp, with an Mcp-Session-Id that keys the tool state.
import { defineCase, TargetPreconditionError, type CaseContext } from '../../../src/harness/index.js';
import type { RawHttpResponse } from '../../../src/transport/connection.js';
import { isRecord } from '../../../src/wire/index.js';
import { initializeParams, isResponseTo, notification, openSession, request, SETUP_ANSWER_MS } from '../../support/session.js';
import { callTool, failureOf, initializeTool, mainSession, openSideSession, requiresFastWorkflow, SESSION_HEADER, SUITE } from '../../support/fastworkflow.js';

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function httpOf(ctx: CaseContext) {
  const http = ctx.connection.http;
  if (!http) throw new TargetPreconditionError('these checks need the Streamable HTTP transport');
  return http;
}

function mediaTypeOf(response: RawHttpResponse): string {
  return (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * FW-TRANSPORT-1: one POST answered as JSON or SSE carrying the JSON-RPC response. The MCP
 * transport names the two media types, not a status: any 2xx that carries the response will do.
 */
function checkAnswered(ctx: CaseContext, response: RawHttpResponse, id: string | number, what: string): boolean {
  const media = mediaTypeOf(response);
  const answer = response.messages.find((m) => isResponseTo(m, id));
  const ok = response.status >= 200 && response.status < 300 && (media === 'application/json' || media === 'text/event-stream') && answer !== undefined;
  if (ok && response.status !== 200) ctx.info('FW-TRANSPORT-1', `${what} is answered with HTTP ${response.status} (not 200) carrying the response`);
  return ctx.check('FW-TRANSPORT-1', ok, {
    message: `${what} POSTed to the endpoint is answered (2xx) with application/json or text/event-stream carrying the JSON-RPC response`,
    expected: { status: '2xx', 'content-type': 'application/json | text/event-stream', response: { id } },
    actual: { status: response.status, 'content-type': response.headers['content-type'] ?? null, body: response.text.slice(0, 500) },
  });
}

export const transportCases = [
  defineCase({
    id: 'fastworkflow/streamable-http-endpoint',
    suite: SUITE,
    title: 'JSON-RPC messages are POSTed to one endpoint and answered as JSON or an SSE stream (FW-TRANSPORT-1)',
    requirements: ['FW-TRANSPORT-1'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const http = httpOf(ctx);
      const timeoutMs = ctx.scaled(SETUP_ANSWER_MS);
      const initialize = await http.request(
        { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(request(1, 'initialize', initializeParams(ctx))), omitSessionId: true },
        { timeoutMs, signal: ctx.signal },
      );
      if (!checkAnswered(ctx, initialize, 1, 'initialize')) return;
      const sessionId = initialize.headers['mcp-session-id'];
      const answer = initialize.messages.find((m) => isResponseTo(m, 1));
      const version = isRecord(answer) && isRecord(answer.result) && typeof answer.result.protocolVersion === 'string' ? answer.result.protocolVersion : undefined;
      const headers: Record<string, string> = { ...JSON_HEADERS, ...(sessionId ? { [SESSION_HEADER]: sessionId } : {}), ...(version ? { 'MCP-Protocol-Version': version } : {}) };
      await http.request({ method: 'POST', headers, body: JSON.stringify(notification('notifications/initialized')), omitSessionId: true }, { timeoutMs, signal: ctx.signal });
      const list = await http.request(
        { method: 'POST', headers, body: JSON.stringify(request(2, 'tools/list')), omitSessionId: true },
        { timeoutMs, signal: ctx.signal },
      );
      checkAnswered(ctx, list, 2, 'tools/list in the session');
      const call = await http.request(
        { method: 'POST', headers, body: JSON.stringify(request(3, 'tools/call', { name: 'initialize', arguments: {} })), omitSessionId: true },
        { timeoutMs, signal: ctx.signal },
      );
      checkAnswered(ctx, call, 3, 'tools/call of the initialize tool');
      if (sessionId) await http.request({ method: 'DELETE', headers: { [SESSION_HEADER]: sessionId }, omitSessionId: true }, { timeoutMs, signal: ctx.signal }).catch(() => undefined);
    },
  }),

  defineCase({
    id: 'fastworkflow/endpoint-path',
    suite: SUITE,
    title: 'the MCP endpoint is mounted at /mcp (FW-TRANSPORT-2)',
    requirements: ['FW-TRANSPORT-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      let path: string;
      try {
        path = new URL(ctx.target.description).pathname;
      } catch {
        throw new TargetPreconditionError(`the target ${JSON.stringify(ctx.target.description)} is not a URL`);
      }
      ctx.check('FW-TRANSPORT-2', path === '/mcp' || path === '/mcp/', { message: 'the endpoint path is /mcp', expected: '/mcp', actual: path });
    },
  }),

  defineCase({
    id: 'fastworkflow/session-id-keys-tool-state',
    suite: SUITE,
    title: 'initialize is answered with an Mcp-Session-Id and the tool state belongs to that session (FW-TRANSPORT-3)',
    requirements: ['FW-TRANSPORT-3'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      await openSession(ctx);
      const sessionId = ctx.connection.http?.sessionId;
      if (!ctx.check('FW-TRANSPORT-3', typeof sessionId === 'string' && sessionId !== '', { message: 'the initialize response carries an Mcp-Session-Id header', actual: sessionId ?? 'no header' })) return;
      const main = mainSession(ctx);
      await initializeTool(main);
      const other = await openSideSession(ctx);
      ctx.check('FW-TRANSPORT-3', other.sessionId !== sessionId, { message: 'each MCP session gets its own Mcp-Session-Id', actual: { first: sessionId, second: other.sessionId } });
      // The initialize tool ran in the first session only: the second has no FastWorkflow state yet.
      // Which status that failure carries is FW-SESSION-1's business.
      const answer = await callTool(other, 'get_workflow_info');
      const detection = failureOf(answer);
      ctx.check('FW-TRANSPORT-3', detection?.failed === true, {
        message: 'get_workflow_info fails in a second MCP session that has not called the initialize tool (the first session\'s state is keyed to its own id)',
        actual: answer.response ?? 'no answer',
      });
      const own = await callTool(main, 'get_workflow_info');
      ctx.check('FW-TRANSPORT-3', own.response !== undefined && isRecord(own.response.result) && own.response.result.isError !== true, {
        message: 'the first session keeps its state: get_workflow_info succeeds there',
        actual: own.response ?? 'no answer',
      });
      await other.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/unknown-session-404',
    suite: SUITE,
    title: 'a request with a terminated Mcp-Session-Id is answered with HTTP 404, one with a never-issued id with 404 or 400 (FW-TRANSPORT-4)',
    requirements: ['FW-TRANSPORT-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const http = httpOf(ctx);
      const timeoutMs = ctx.scaled(SETUP_ANSWER_MS);
      const body = JSON.stringify(request(1, 'tools/list'));
      const unknown = await http.request(
        { method: 'POST', headers: { ...JSON_HEADERS, [SESSION_HEADER]: `unknown-${Date.now().toString(36)}-session` }, body, omitSessionId: true },
        { timeoutMs, signal: ctx.signal },
      );
      // The MCP transport demands 404 for a terminated session only; for an id never issued 400 is as good (INFO).
      if (unknown.status === 404 || unknown.status === 400) ctx.reading('FW-TRANSPORT-4', unknown.status === 404 ? 1 : 2, 'a POST with an Mcp-Session-Id the server never issued');
      ctx.check('FW-TRANSPORT-4', unknown.status === 404 || unknown.status === 400, {
        message: 'a POST with an Mcp-Session-Id the server never issued is answered 404 (or 400)',
        expected: '404 | 400',
        actual: { status: unknown.status, body: unknown.text.slice(0, 300) },
      });
      const side = await openSideSession(ctx, 'a session to terminate');
      const deleted = await http.request({ method: 'DELETE', headers: { [SESSION_HEADER]: side.sessionId }, omitSessionId: true }, { timeoutMs, signal: ctx.signal });
      if (deleted.status < 200 || deleted.status >= 300) {
        ctx.info('FW-TRANSPORT-4', `the server does not let clients terminate sessions (DELETE answered ${deleted.status}); only the unknown-id check applies`);
        return;
      }
      const after = await http.request({ method: 'POST', headers: { ...JSON_HEADERS, [SESSION_HEADER]: side.sessionId }, body, omitSessionId: true }, { timeoutMs, signal: ctx.signal });
      ctx.check('FW-TRANSPORT-4', after.status === 404, { message: 'a POST with a terminated (DELETEd) Mcp-Session-Id is answered 404', expected: 404, actual: { status: after.status, body: after.text.slice(0, 300) } });
    },
  }),

  defineCase({
    id: 'fastworkflow/missing-session-400',
    suite: SUITE,
    title: 'a request other than initialize without an Mcp-Session-Id is answered with HTTP 400 (FW-TRANSPORT-5)',
    requirements: ['FW-TRANSPORT-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const http = httpOf(ctx);
      const response = await http.request(
        { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(request(1, 'tools/list')), omitSessionId: true },
        { timeoutMs: ctx.scaled(SETUP_ANSWER_MS), signal: ctx.signal },
      );
      ctx.check('FW-TRANSPORT-5', response.status === 400, { message: 'tools/list without an Mcp-Session-Id is answered 400 Bad Request', expected: 400, actual: { status: response.status, body: response.text.slice(0, 300) } });
    },
  }),
];
