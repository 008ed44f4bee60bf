// FW-ERR: failures carry a readable HTTP-equivalent status (004 §10, profile C-26): which of the
// accepted readings the server uses is reported; the statuses' meanings and the recommended
// JSON-RPC codes are checked on failures every workflow can be made to produce.
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import { callTool, failureOf, harmlessCommand, initializeTool, openMainSession, requiresFastWorkflow, SUITE, uniqueUser, workflowCommands, type Answer, type McpSession } from './support.js';

/** The object a failure carries its details in: the JSON-RPC error's data, or the isError result's JSON. */
function failureBody(answer: Answer): Record<string, unknown> | undefined {
  const response = answer.response;
  if (!response) return undefined;
  if (isRecord(response.error)) return isRecord(response.error.data) ? response.error.data : undefined;
  const result = response.result;
  if (!isRecord(result) || result.isError !== true) return undefined;
  if (isRecord(result.structuredContent)) return result.structuredContent;
  for (const item of Array.isArray(result.content) ? result.content : []) {
    if (!isRecord(item) || typeof item.text !== 'string') continue;
    try {
      const parsed = JSON.parse(item.text);
      if (isRecord(parsed)) return parsed;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

interface Provoked {
  what: string;
  status: number;
  answer: Answer;
}

/** Failures every FastWorkflow server can be made to produce, with their statuses per FW-ERR-2. */
async function provoke(ctx: CaseContext, session: McpSession): Promise<Provoked[]> {
  const unknownConversation = `conformance-unknown-${Date.now().toString(36)}`;
  const command = harmlessCommand(await workflowCommands(session));
  return [
    { what: `activate_conversation of the unknown conversation ${unknownConversation}`, status: 404, answer: await callTool(session, 'activate_conversation', { conversation_id: unknownConversation }) },
    { what: 'post_feedback with both fields null', status: 422, answer: await callTool(session, 'post_feedback', { binary_or_numeric_score: null, nl_feedback: null }) },
    { what: 'list_conversations with limit "ten"', status: 422, answer: await callTool(session, 'list_conversations', { limit: 'ten' }) },
    { what: 'invoke_agent with timeout_seconds "soon"', status: 422, answer: await callTool(session, 'invoke_agent', { user_query: command, timeout_seconds: 'soon' }) },
  ];
}

async function initialized(ctx: CaseContext): Promise<{ session: McpSession; user: string }> {
  const session = await openMainSession(ctx);
  const user = uniqueUser(ctx);
  await initializeTool(session, { user_id: user });
  return { session, user };
}

export const errorCases = [
  defineCase({
    id: 'fastworkflow/failure-statuses',
    suite: SUITE,
    title: 'failures are reported as failures with a readable HTTP-equivalent status of the documented meaning (FW-ERR-1, FW-ERR-2)',
    requirements: ['FW-ERR-1', 'FW-ERR-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    sendsInvalid: true,
    async run(ctx) {
      const { session } = await initialized(ctx);
      const readings = new Set<string>();
      for (const { what, status, answer } of await provoke(ctx, session)) {
        const detection = failureOf(answer);
        const readable = detection !== undefined && detection.failed && detection.status !== undefined;
        ctx.check('FW-ERR-1', readable, {
          message: `${what} is reported as a failure whose HTTP-equivalent status can be read (data.httpStatus, a status code, or isError with httpStatus)`,
          actual: answer.response ?? 'no answer',
        });
        if (readable) {
          readings.add(detection.reading);
          ctx.check('FW-ERR-2', detection.status === status, { message: `${what} has status ${status}`, expected: status, actual: detection.status });
        }
      }
      for (const reading of readings) ctx.info('FW-ERR-1', `failures are reported as: ${reading === 'data.httpStatus' ? 'JSON-RPC error with data.httpStatus' : reading === 'code' ? 'JSON-RPC error whose code is the HTTP status' : 'isError result carrying httpStatus'}`);
    },
  }),

  defineCase({
    id: 'fastworkflow/failure-data',
    suite: SUITE,
    title: 'error data includes user_id and conversation_id, and JSON-RPC errors use the recommended codes with data.httpStatus (FW-ERR-3, FW-ERR-4)',
    requirements: ['FW-ERR-3', 'FW-ERR-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    sendsInvalid: true,
    async run(ctx) {
      const { session, user } = await initialized(ctx);
      const provoked = await provoke(ctx, session);
      const notFound = provoked[0]!;
      const body = failureBody(notFound.answer);
      ctx.check('FW-ERR-3', body !== undefined && body.user_id === user && typeof body.conversation_id === 'string', {
        message: `the failure of ${notFound.what} carries user_id and conversation_id`,
        expected: { user_id: user, conversation_id: 'string' },
        actual: body ?? notFound.answer.response ?? 'no answer',
      });
      let jsonRpc = 0;
      for (const { what, status, answer } of provoked) {
        const error = answer.response && isRecord(answer.response.error) ? answer.response.error : undefined;
        if (!error) continue;
        jsonRpc++;
        const code = error.code as number;
        const expected = status === 422 ? 'code -32602' : status === 500 ? 'code -32603' : 'a code in -32000..-32099';
        const codeOk = status === 422 ? code === -32602 : status === 500 ? code === -32603 : typeof code === 'number' && code <= -32000 && code >= -32099;
        const data = isRecord(error.data) ? error.data : undefined;
        ctx.check('FW-ERR-4', codeOk && data?.httpStatus === status, { message: `${what} (status ${status}) is a JSON-RPC error with ${expected} and data.httpStatus ${status}`, actual: error });
      }
      if (jsonRpc === 0) ctx.info('FW-ERR-4', 'the server reports failures as isError results, not JSON-RPC errors; the code mapping does not apply');
    },
  }),
];
