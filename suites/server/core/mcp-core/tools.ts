// mcp-core: tools (CORE-TOOLS) discovered from tools/list: the list's shape and pages, calls of
// every listed tool with arguments built from its inputSchema, unknown tools, invalid arguments,
// and the requests the target sends the client while its tools run (CORE-RPC-2..4, CORE-PROG-1).
import { defineCase, requiresCapability } from '../../../../src/harness/index.js';
import { PROTOCOL_VERSIONS } from '../../../../src/protocol/methods.js';
import { isRecord } from '../../../../src/wire/index.js';
import { checkErrorCode, errorOf, openSession, type Message } from '../../../support/session.js';
import {
  ANSWERING_CLIENT_CAPABILITIES,
  checkNoLeaks,
  checkPageWalk,
  listTools,
  randomName,
  reportSweep,
  sweepTools,
  validationErrors,
  validatorFor,
  walkPages,
  wrongArgumentsFor,
} from '../../../support/core.js';

const SUITE = 'mcp-core';
const needsTools = requiresCapability('tools');

const toolsList = defineCase({
  id: `${SUITE}/tools-list`,
  suite: SUITE,
  title: 'tools/list gives a tools array of tools with a string name and an inputSchema of type "object", names unique across pages',
  requirements: ['CORE-TOOLS-1', 'CORE-TOOLS-7', 'CORE-PAGE-1', 'CORE-PAGE-2'],
  applies: needsTools,
  async run(ctx) {
    await openSession(ctx);
    const walk = await walkPages(ctx, 'tools/list', 'tools', 'CORE-TOOLS-1');
    if (walk.error) {
      ctx.check('CORE-TOOLS-1', false, { message: 'tools/list is answered with a result', actual: walk.error.error });
      return;
    }
    checkPageWalk(ctx, walk, 'tools/list');
    ctx.check('CORE-TOOLS-1', walk.pages.every((p) => Array.isArray(p.tools)), { message: 'every tools/list result has a tools array', actual: walk.pages.filter((p) => !Array.isArray(p.tools)) });
    const bad = walk.items.filter(
      (t) => !isRecord(t) || typeof t.name !== 'string' || !isRecord(t.inputSchema) || t.inputSchema.type !== 'object' || ('description' in t && typeof t.description !== 'string'),
    );
    ctx.check('CORE-TOOLS-1', bad.length === 0, {
      message: `each of the ${walk.items.length} tools has a string name and an inputSchema object with type "object"`,
      expected: { name: 'string', inputSchema: { type: 'object' } },
      ...(bad.length ? { actual: bad } : {}),
    });
    const names = walk.items.filter(isRecord).map((t) => t.name);
    const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
    ctx.check('CORE-TOOLS-7', duplicates.length === 0, { message: 'tool names are unique across the tools/list pages', ...(duplicates.length ? { actual: duplicates } : {}) });
  },
});

const toolsInvalidCursor = defineCase({
  id: `${SUITE}/tools-list-invalid-cursor`,
  suite: SUITE,
  title: 'tools/list with a cursor the server never gave is answered with -32602 Invalid params',
  requirements: ['CORE-PAGE-3'],
  applies: needsTools,
  async run(ctx) {
    await openSession(ctx);
    const cursor = randomName('x-conformance-cursor');
    checkErrorCode(ctx, 'CORE-PAGE-3', await ctx.request('CORE-PAGE-3', 'tools/list', { cursor }), -32602, `tools/list with the unknown cursor ${JSON.stringify(cursor)}`);
  },
});

const unknownTool = defineCase({
  id: `${SUITE}/tools-call-unknown-tool`,
  suite: SUITE,
  title: 'tools/call of a tool name the server does not list is a JSON-RPC error, not a result',
  requirements: ['CORE-TOOLS-2', 'CORE-ERR-3'],
  applies: needsTools,
  async run(ctx) {
    await openSession(ctx);
    const name = randomName('x-conformance-no-such-tool');
    const answer = await ctx.request('CORE-TOOLS-2', 'tools/call', { name, arguments: {} });
    if (!answer) return;
    const error = errorOf(answer);
    if (ctx.check('CORE-TOOLS-2', error !== undefined, { message: `tools/call of the unknown tool ${name} is answered with a JSON-RPC error`, expected: { error: { code: -32602 } }, actual: answer.result })) {
      ctx.reading('CORE-TOOLS-2', error!.code === -32602 ? 1 : 2, `error ${String(error!.code)}`, error);
    }
    checkNoLeaks(ctx, [answer]);
  },
});

const invalidArguments = defineCase({
  id: `${SUITE}/tools-call-invalid-arguments`,
  suite: SUITE,
  title: "arguments that do not match a tool's inputSchema are rejected before the tool runs (-32602, or an isError result)",
  requirements: ['CORE-TOOLS-4', 'CORE-RPC-11'],
  applies: needsTools,
  async run(ctx) {
    await openSession(ctx);
    const interactive = new Set(ctx.discovery.interactiveTools ?? []);
    const tools = (await listTools(ctx)).filter((t) => !interactive.has(t.name) && !(isRecord(t.annotations) && t.annotations.destructiveHint === true));
    const probe = (kinds?: Parameters<typeof wrongArgumentsFor>[2]) =>
      tools.flatMap((tool) => {
        const wrong = wrongArgumentsFor(tool.inputSchema, {}, kinds);
        return wrong ? [{ tool, wrong }] : [];
      })[0];
    const chosen = probe();
    if (!chosen) {
      ctx.info('CORE-TOOLS-4', 'no listed tool has an inputSchema that rejects arguments the suite can build');
      return;
    }
    // An unknown member is also tried where the first probe broke something else: ignoring it is a reading of its own (CORE-RPC-15).
    const unknownMember = chosen.wrong.kind === 'unknown-member' ? undefined : probe(['unknown-member']);
    for (const { tool, wrong } of unknownMember ? [chosen, unknownMember] : [chosen]) {
      const answer = await ctx.request('CORE-TOOLS-4', 'tools/call', { name: tool.name, arguments: wrong.args });
      if (!answer) continue;
      const error = errorOf(answer);
      const result = isRecord(answer.result) ? answer.result : undefined;
      if (error) {
        ctx.check('CORE-TOOLS-4', true, { message: `tools/call of ${tool.name} with ${wrong.what} is rejected with a JSON-RPC error` });
        checkErrorCode(ctx, 'CORE-RPC-11', answer, -32602, `tools/call of ${tool.name} with ${wrong.what}`);
        ctx.reading('CORE-TOOLS-4', 1, `${wrong.what}: error ${String(error.code)}`);
      } else if (result?.isError !== true && wrong.kind === 'unknown-member') {
        // Ignoring a member it does not know is what CORE-RPC-15 recommends: an accepted reading, not a tool run on bad input.
        ctx.reading('CORE-TOOLS-4', 3, `${tool.name} ran`, answer.result);
      } else {
        ctx.check('CORE-TOOLS-4', result?.isError === true, {
          message: `tools/call of ${tool.name} with ${wrong.what} is rejected (an error or a result with isError: true), not run`,
          expected: 'error -32602 or isError: true',
          actual: { arguments: wrong.args, answer: answer.result },
        });
        if (result?.isError === true) ctx.reading('CORE-TOOLS-4', 2, wrong.what);
      }
    }
  },
});

/** Why a tools/call result breaks CORE-TOOLS-3, or undefined. */
function resultProblem(result: Message): string | undefined {
  if (!Array.isArray(result.content)) return 'no content array';
  for (const item of result.content) {
    if (!isRecord(item) || typeof item.type !== 'string') return 'a content item without a string type';
    if (item.type === 'text' && typeof item.text !== 'string') return 'a text item without a string text';
  }
  if ('isError' in result && typeof result.isError !== 'boolean') return 'isError is not a boolean';
  return undefined;
}

const callResults = defineCase({
  id: `${SUITE}/tools-call-results`,
  suite: SUITE,
  title: 'tools/call of each listed tool gives a content array of typed items; structuredContent matches outputSchema; tool failures are isError results',
  requirements: ['CORE-TOOLS-3', 'CORE-TOOLS-5', 'CORE-TOOLS-6', 'CORE-ERR-3'],
  applies: needsTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    const init = await openSession(ctx);
    const sweep = await sweepTools(ctx);
    reportSweep(ctx, 'CORE-TOOLS-3', sweep);
    const version = typeof init.protocolVersion === 'string' ? init.protocolVersion : '';
    const structured = PROTOCOL_VERSIONS.indexOf(version as (typeof PROTOCOL_VERSIONS)[number]) >= PROTOCOL_VERSIONS.indexOf('2025-06-18');
    for (const call of sweep.calls) {
      const answer = call.answer;
      if (!answer) continue;
      const error = errorOf(answer);
      if (error) {
        if (error.code === -32603) {
          ctx.check('CORE-TOOLS-5', false, {
            message: `tools/call of ${call.tool.name} with schema-valid arguments failed inside the tool and was reported as a JSON-RPC error`,
            expected: 'a result with isError: true',
            actual: { arguments: call.arguments, error },
          });
        } else ctx.info('CORE-TOOLS-5', `tools/call of ${call.tool.name} was answered with error ${String(error.code)}`, { arguments: call.arguments, error });
        continue;
      }
      const result = isRecord(answer.result) ? answer.result : {};
      const problem = resultProblem(result);
      ctx.check('CORE-TOOLS-3', problem === undefined, { message: `the tools/call result of ${call.tool.name} has a content array of typed items${problem ? ` (${problem})` : ''}`, actual: answer.result });
      if (call.tool.outputSchema !== undefined && structured && result.isError !== true) {
        const validate = validatorFor(call.tool.outputSchema);
        if (!validate) {
          ctx.info('CORE-TOOLS-6', `the outputSchema of ${call.tool.name} does not compile; structuredContent not checked`, call.tool.outputSchema);
          continue;
        }
        const ok = result.structuredContent !== undefined && validate(result.structuredContent);
        ctx.check('CORE-TOOLS-6', ok, {
          message: `the structuredContent of ${call.tool.name} validates against its outputSchema${!ok && result.structuredContent !== undefined ? `: ${validationErrors(validate)}` : ''}`,
          expected: call.tool.outputSchema,
          actual: result.structuredContent ?? 'no structuredContent',
        });
      }
    }
    checkNoLeaks(ctx, sweep.calls.map((c) => c.answer));
  },
});

const serverRequests = defineCase({
  id: `${SUITE}/server-requests-well-formed`,
  suite: SUITE,
  title: "requests the server sends the client while its tools run have an object params, a fresh string or integer id, and a valid progressToken",
  requirements: ['CORE-RPC-2', 'CORE-RPC-3', 'CORE-RPC-4', 'CORE-PROG-1'],
  applies: needsTools,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx, { capabilities: { ...ANSWERING_CLIENT_CAPABILITIES } });
    const sweep = await sweepTools(ctx);
    reportSweep(ctx, 'CORE-RPC-2', sweep);
    const requests = sweep.targetRequests;
    if (requests.length === 0) {
      for (const requirement of ['CORE-RPC-3', 'CORE-RPC-4', 'CORE-PROG-1']) ctx.info(requirement, 'the target sent the client no request while its tools ran');
      return;
    }
    const badParams = requests.filter((r) => 'params' in r && !isRecord(r.params));
    ctx.check('CORE-RPC-2', badParams.length === 0, { message: `the ${requests.length} request(s) from the server carry params as an object`, ...(badParams.length ? { actual: badParams } : {}) });
    const badIds = requests.filter((r) => !(typeof r.id === 'string' || (typeof r.id === 'number' && Number.isInteger(r.id))));
    ctx.check('CORE-RPC-3', badIds.length === 0, { message: 'every request id from the server is a string or an integer', ...(badIds.length ? { actual: badIds.map((r) => r.id) } : {}) });
    const keys = requests.map((r) => `${typeof r.id}:${String(r.id)}`);
    const reused = keys.filter((key, index) => keys.indexOf(key) !== index);
    ctx.check('CORE-RPC-4', reused.length === 0, { message: `the server's ${requests.length} request(s) use distinct ids`, ...(reused.length ? { actual: { reused, ids: requests.map((r) => r.id) } } : {}) });
    const tokens = requests.filter((r) => isRecord(r.params) && isRecord(r.params._meta) && 'progressToken' in r.params._meta).map((r) => (r.params as { _meta: Message })._meta.progressToken);
    const badTokens = tokens.filter((t) => !(typeof t === 'string' || (typeof t === 'number' && Number.isInteger(t))));
    const repeated = tokens.filter((t, i) => tokens.indexOf(t) !== i);
    if (tokens.length === 0) ctx.info('CORE-PROG-1', 'no request from the server carried a progressToken');
    else ctx.check('CORE-PROG-1', badTokens.length === 0 && repeated.length === 0, { message: 'each progressToken from the server is a unique string or integer', actual: tokens });
  },
});

export const cases = [toolsList, toolsInvalidCursor, unknownTool, invalidArguments, callResults, serverRequests];
