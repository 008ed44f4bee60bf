// FW-SESSION: the initialize tool binds an MCP session to a user and a conversation (004 §4, §5.1);
// a session runs one turn at a time and a turn has a deadline.
import { defineCase } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  callTool,
  checkStatus,
  failureOf,
  harmlessCommand,
  initializeTool,
  openMainSession,
  openSideSession,
  readPayload,
  requiresFastWorkflow,
  slowCommand,
  SUITE,
  uniqueUser,
  useTool,
  workflowCommands,
  type Answer,
} from './support.js';

/** Minimal valid arguments of each tool but initialize, for calls made before the initialize tool. */
const BEFORE_INITIALIZE: Record<string, Record<string, unknown>> = {
  get_workflow_info: {},
  get_commands: {},
  invoke_agent: { user_query: 'what_is_current_context' },
  invoke_assistant: { user_query: 'what_is_current_context' },
  execute_command: { command: 'what_is_current_context' },
  new_conversation: {},
  list_conversations: {},
  activate_conversation: { conversation_id: 'conformance-no-such-conversation' },
  post_feedback: { binary_or_numeric_score: true, nl_feedback: null },
};

function conversationIds(payload: Record<string, unknown>): string[] {
  return (Array.isArray(payload.conversations) ? payload.conversations : []).filter(isRecord).map((c) => String(c.conversation_id));
}

export const sessionCases = [
  defineCase({
    id: 'fastworkflow/tools-need-initialize',
    suite: SUITE,
    title: 'every tool but initialize fails with a 404-equivalent error until the initialize tool ran (FW-SESSION-1)',
    requirements: ['FW-SESSION-1'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      for (const [tool, args] of Object.entries(BEFORE_INITIALIZE)) {
        if (!ctx.discovery.tools?.includes(tool)) continue;
        checkStatus(ctx, 'FW-SESSION-1', await callTool(session, tool, args), 404, `${tool} before the initialize tool`);
      }
    },
  }),

  defineCase({
    id: 'fastworkflow/default-user',
    suite: SUITE,
    title: 'the initialize tool without user_id binds the session to "default_user" (FW-SESSION-2)',
    requirements: ['FW-SESSION-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const anonymous = await openMainSession(ctx);
      await initializeTool(anonymous, {});
      const created = await useTool(anonymous, 'new_conversation');
      const id = created.new_conversation_id;
      if (!ctx.check('FW-SESSION-2', typeof id === 'string', { message: 'new_conversation answers a new_conversation_id', actual: created })) return;
      const named = await openSideSession(ctx, 'a session of "default_user"');
      await initializeTool(named, { user_id: 'default_user' });
      const answer = await callTool(named, 'activate_conversation', { conversation_id: id });
      const detection = failureOf(answer);
      ctx.check('FW-SESSION-2', detection !== undefined && !detection.failed, {
        message: 'a conversation started in a session initialised without user_id belongs to "default_user" (activate_conversation succeeds for that user)',
        actual: answer.response ?? 'no answer',
      });
      await named.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/initialize-result',
    suite: SUITE,
    title: 'the initialize tool returns {"workflow_info": <object or null>} (FW-SESSION-3)',
    requirements: ['FW-SESSION-3'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      const answer = await callTool(session, 'initialize', { user_id: uniqueUser(ctx) });
      const read = readPayload(answer.response);
      const value = read.ok ? read.value : undefined;
      ctx.check('FW-SESSION-3', isRecord(value) && Object.keys(value).length === 1 && 'workflow_info' in value && (value.workflow_info === null || isRecord(value.workflow_info)), {
        message: 'the initialize tool result is an object whose only member is workflow_info (an object or null)',
        expected: { workflow_info: 'object | null' },
        actual: read.ok ? value : { problem: read.why, answer: answer.response ?? 'no answer' },
      });
    },
  }),

  defineCase({
    id: 'fastworkflow/initialize-restores-conversation',
    suite: SUITE,
    title: 'the initialize tool restores the given conversation_id, not the latest one (FW-SESSION-4)',
    requirements: ['FW-SESSION-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const user = uniqueUser(ctx);
      const first = await openMainSession(ctx);
      await initializeTool(first, { user_id: user });
      const query = harmlessCommand(await workflowCommands(first));
      await useTool(first, 'invoke_assistant', { user_query: query });
      const before = conversationIds(await useTool(first, 'list_conversations'));
      const older = before[0];
      if (!ctx.check('FW-SESSION-4', older !== undefined, { message: 'the user has a conversation after a turn', actual: before })) return;
      await useTool(first, 'new_conversation');
      await useTool(first, 'invoke_assistant', { user_query: query });
      const second = await openSideSession(ctx);
      await initializeTool(second, { user_id: user, conversation_id: older });
      // A turn updates the active conversation, which then sorts first.
      await useTool(second, 'invoke_assistant', { user_query: query });
      const after = conversationIds(await useTool(second, 'list_conversations'));
      ctx.check('FW-SESSION-4', after[0] === older, {
        message: 'after initialize with conversation_id of an older conversation, a turn lands in that conversation (it is the most recently updated)',
        expected: older,
        actual: after,
      });
      await second.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/one-turn-at-a-time',
    suite: SUITE,
    title: 'a turn while another runs in the same session fails with a 409-equivalent error (FW-SESSION-5)',
    requirements: ['FW-SESSION-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 20_000,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const commands = await workflowCommands(session);
      const harmless = harmlessCommand(commands);
      const long = slowCommand(commands) ?? harmless;
      const firstTurn = callTool(session, 'invoke_agent', { user_query: long }, { timeoutMs: 15_000 });
      // Let the first turn start before the second is sent (on HTTP each POST is its own exchange).
      await new Promise((resolve) => setTimeout(resolve, ctx.scaled(300)));
      const second = await callTool(session, 'invoke_assistant', { user_query: harmless }, { timeoutMs: 15_000 });
      const first = await firstTurn;
      const statuses = [failureOf(first), failureOf(second)];
      if (statuses.some((d) => d?.failed && d.status === 409)) {
        ctx.check('FW-SESSION-5', true, { message: 'one of two overlapping turns failed with a 409-equivalent error' });
        return;
      }
      const secondOk = statuses[1] !== undefined && !statuses[1].failed;
      if (secondOk && first.answeredAt < second.sentAt) {
        ctx.info('FW-SESSION-5', `the first turn (${long}) ended before the second was sent, so no turn was in progress to conflict with`);
        return;
      }
      checkStatus(ctx, 'FW-SESSION-5', second, 409, `invoke_assistant while an invoke_agent turn (${long}) is in progress`);
    },
  }),

  defineCase({
    id: 'fastworkflow/sessions-isolated',
    suite: SUITE,
    title: "a session sees only its own user's conversations (FW-SESSION-6)",
    requirements: ['FW-SESSION-6'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const alice = await openMainSession(ctx);
      await initializeTool(alice, { user_id: uniqueUser(ctx, 'alice') });
      await useTool(alice, 'new_conversation');
      const hers = conversationIds(await useTool(alice, 'list_conversations', { limit: 100 }));
      const bob = await openSideSession(ctx, "another user's session");
      await initializeTool(bob, { user_id: uniqueUser(ctx, 'bob') });
      const seen = conversationIds(await useTool(bob, 'list_conversations', { limit: 100 }));
      const leaked = seen.filter((id) => hers.includes(id));
      ctx.check('FW-SESSION-6', leaked.length === 0, { message: "list_conversations in another user's session lists none of this user's conversations", expected: [], actual: { leaked, hers } });
      const activate = await callTool(bob, 'activate_conversation', { conversation_id: hers[0] ?? 'none' });
      if (hers[0] !== undefined) checkStatus(ctx, 'FW-SESSION-6', activate, 404, "activate_conversation of another user's conversation");
      await bob.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/turn-timeout',
    suite: SUITE,
    title: 'a turn without output within timeout_seconds fails with a 504-equivalent error (FW-SESSION-7)',
    requirements: ['FW-SESSION-7'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const commands = await workflowCommands(session);
      const slow = slowCommand(commands);
      // One second (an integer: 004's own signature is `timeout_seconds: int`). A slow command, or
      // any turn of an LLM-backed agent, needs longer; a turn that answers in time shows nothing.
      const timeoutSeconds = 1;
      const query = slow ?? harmlessCommand(commands);
      const answer: Answer = await callTool(session, 'invoke_agent', { user_query: query, timeout_seconds: timeoutSeconds }, { timeoutMs: 10_000 });
      const detection = failureOf(answer);
      if (detection && !detection.failed) {
        const elapsed = answer.answeredAt - answer.sentAt;
        const late = elapsed > timeoutSeconds * 1000 + ctx.scaled(500);
        if (!late) {
          ctx.info('FW-SESSION-7', `the turn (${query}) produced its output within ${elapsed} ms, inside or near timeout_seconds ${timeoutSeconds}; no timeout to observe`);
          return;
        }
        ctx.check('FW-SESSION-7', false, {
          message: `invoke_agent with timeout_seconds ${timeoutSeconds} fails with a 504-equivalent error instead of answering after ${elapsed} ms`,
          expected: { httpStatus: 504 },
          actual: answer.response,
        });
        return;
      }
      checkStatus(ctx, 'FW-SESSION-7', answer, 504, `invoke_agent (${query}) with timeout_seconds ${timeoutSeconds}`);
    },
  }),

  defineCase({
    id: 'fastworkflow/initialize-invalid',
    suite: SUITE,
    title: 'the initialize tool with a non-string user_id fails with a 422-equivalent error (FW-SESSION-8)',
    requirements: ['FW-SESSION-8'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    sendsInvalid: true,
    async run(ctx) {
      const session = await openMainSession(ctx);
      checkStatus(ctx, 'FW-SESSION-8', await callTool(session, 'initialize', { user_id: 42 }), 422, 'initialize with user_id 42');
      checkStatus(ctx, 'FW-SESSION-8', await callTool(session, 'initialize', { user_id: ['a'] }), 422, 'initialize with user_id ["a"]');
    },
  }),
];
