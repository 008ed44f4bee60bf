// FW-ERR: failures are reported as failures (004 §10, profile C-26); where their HTTP-equivalent
// status can be read it has 004 §10's meaning; that it can be read, and how, is the profile's
// recommendation (FW-ERR-4), whose accepted encodings are reported as INFO. All is checked on
// failures every workflow can be made to produce.
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { FAILURE_READING_NAMES, type FailureReading } from '../../../src/protocol/fastworkflow-errors.js';
import { isRecord } from '../../../src/wire/index.js';
import { callTool, failureOf, harmlessCommand, initializeTool, openMainSession, requiresFastWorkflow, SUITE, uniqueUser, workflowCommands, type Answer, type McpSession } from '../../support/fastworkflow.js';

/** A JSON object in a text: the whole text, or what follows its first "{" (fastapi_mcp's "... Response: {...}"). */
function objectIn(text: string): Record<string, unknown> | undefined {
  for (const candidate of [text, text.slice(Math.max(0, text.indexOf('{')))]) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (isRecord(parsed)) return parsed;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

/** The object a failure carries its details in: the JSON-RPC error's data, or the isError result's JSON (or the JSON body its text quotes). */
function failureBody(answer: Answer): Record<string, unknown> | undefined {
  const response = answer.response;
  if (!response) return undefined;
  if (isRecord(response.error)) return isRecord(response.error.data) ? response.error.data : undefined;
  const result = response.result;
  if (!isRecord(result) || result.isError !== true) return undefined;
  if (isRecord(result.structuredContent)) return result.structuredContent;
  for (const item of Array.isArray(result.content) ? result.content : []) {
    const body = isRecord(item) && typeof item.text === 'string' ? objectIn(item.text) : undefined;
    if (body) return body;
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

/** FW-ERR-4's accepted readings (their numbers in the catalog) by the way a failure's status travels. */
const FAILURE_READINGS: Readonly<Record<FailureReading, number>> = {
  'data.httpStatus': 1,
  code: 2,
  isError: 3,
  text: 4,
};

export const errorCases = [
  defineCase({
    id: 'fastworkflow/failure-statuses',
    suite: SUITE,
    title: 'failures are reported as failures, and a status that can be read has the documented meaning (FW-ERR-1, FW-ERR-2)',
    requirements: ['FW-ERR-1', 'FW-ERR-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    sendsInvalid: true,
    async run(ctx) {
      const { session } = await initialized(ctx);
      for (const { what, status, answer } of await provoke(ctx, session)) {
        const detection = failureOf(answer);
        ctx.check('FW-ERR-1', detection?.failed === true, {
          message: `${what} is reported as a failure (a JSON-RPC error or an isError result)`,
          actual: answer.response ?? 'no answer',
        });
        if (detection?.failed !== true) continue;
        ctx.reading('FW-ERR-1', answer.response && isRecord(answer.response.error) ? 1 : 2, what);
        if (detection.status === undefined) {
          ctx.info('FW-ERR-2', `${what} fails, but its status cannot be read back (FW-ERR-4), so its meaning is not judged`);
          continue;
        }
        ctx.check('FW-ERR-2', detection.status === status, { message: `${what} has status ${status}`, expected: status, actual: { httpStatus: detection.status, reading: FAILURE_READING_NAMES[detection.reading] } });
      }
    },
  }),

  defineCase({
    id: 'fastworkflow/failure-data',
    suite: SUITE,
    title: 'error data includes user_id and conversation_id, and a failure\'s status can be read back, with the recommended codes next to data.httpStatus (FW-ERR-3, FW-ERR-4)',
    requirements: ['FW-ERR-3', 'FW-ERR-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    sendsInvalid: true,
    async run(ctx) {
      const { session, user } = await initialized(ctx);
      const provoked = await provoke(ctx, session);
      const notFound = provoked[0]!;
      const body = failureBody(notFound.answer);
      const id = body?.conversation_id;
      ctx.check('FW-ERR-3', body !== undefined && body.user_id === user && (typeof id === 'string' || typeof id === 'number'), {
        message: `the failure of ${notFound.what} carries user_id and conversation_id`,
        expected: { user_id: user, conversation_id: 'string | number' },
        actual: body ?? notFound.answer.response ?? 'no answer',
      });
      for (const { what, status, answer } of provoked) {
        const detection = failureOf(answer);
        if (detection?.failed !== true) continue; // not a failure at all: FW-ERR-1's, in failure-statuses
        ctx.check('FW-ERR-4', detection.status !== undefined, {
          message: `the HTTP-equivalent status of ${what} can be read back (data.httpStatus, a status code, httpStatus in an isError result, or a status stated in the text)`,
          expected: { httpStatus: status },
          actual: answer.response,
        });
        if (detection.status === undefined) continue;
        ctx.reading('FW-ERR-4', FAILURE_READINGS[detection.reading], what);
        if (detection.reading !== 'data.httpStatus') continue;
        // The recommended reading has recommended codes too.
        const code = isRecord(answer.response?.error) ? answer.response.error.code : undefined;
        const expected = status === 422 ? 'code -32602' : status === 500 ? 'code -32603' : 'a code in -32000..-32099';
        const codeOk = status === 422 ? code === -32602 : status === 500 ? code === -32603 : typeof code === 'number' && code <= -32000 && code >= -32099;
        ctx.check('FW-ERR-4', codeOk, { message: `${what} (status ${status}) is a JSON-RPC error with ${expected} next to data.httpStatus`, actual: answer.response?.error });
      }
    },
  }),
];
