// FW-SESSION: the initialize tool binds an MCP session to a user and a conversation (004 §4, §5.1);
// a session runs one turn at a time and a turn has a deadline. Failures are judged as C-26 says:
// a failure is owed, its status only where it can be read. Conversations are observed once a
// new_conversation stored them, under either reading of C-34.
import { defineCase } from '../../../src/harness/index.js';
import {
  callTool,
  checkFailure,
  failureOf,
  harmlessCommand,
  idsOf,
  initializeTool,
  listConversations,
  noteExtras,
  openMainSession,
  openSideSession,
  readPayload,
  requiresFastWorkflow,
  sameId,
  shapeOf,
  slowCommand,
  storeActive,
  SUITE,
  turnAndRotate,
  uniqueUser,
  workflowCommands,
  type Answer,
} from '../../support/fastworkflow.js';

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

export const sessionCases = [
  defineCase({
    id: 'fastworkflow/tools-need-initialize',
    suite: SUITE,
    title: 'every tool but initialize fails, with status 404 where it can be read, until the initialize tool ran (FW-SESSION-1)',
    requirements: ['FW-SESSION-1'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      for (const [tool, args] of Object.entries(BEFORE_INITIALIZE)) {
        if (!ctx.discovery.tools?.includes(tool)) continue;
        checkFailure(ctx, 'FW-SESSION-1', await callTool(session, tool, args), 404, `${tool} before the initialize tool`);
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
      await turnAndRotate(anonymous, harmlessCommand(await workflowCommands(anonymous)));
      const mine = idsOf(await listConversations(anonymous));
      if (mine.length === 0) {
        ctx.info('FW-SESSION-2', 'no conversation is listed after a turn and new_conversation (FW-CONV-2 owns that), so the default user cannot be told apart');
        return;
      }
      const named = await openSideSession(ctx, 'a session of "default_user"');
      await initializeTool(named, { user_id: 'default_user' });
      const theirs = idsOf(await listConversations(named));
      const missing = mine.filter((id) => !theirs.some((other) => sameId(other, id)));
      ctx.check('FW-SESSION-2', missing.length === 0, {
        message: 'the conversations of a session initialised without user_id belong to "default_user": a session initialised with user_id "default_user" lists them',
        expected: mine,
        actual: { listed: theirs, missing },
      });
      await named.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/initialize-result',
    suite: SUITE,
    title: 'the initialize tool returns {"workflow_info": <object or null>}; further members are INFO notes (FW-SESSION-3)',
    requirements: ['FW-SESSION-3'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      const answer = await callTool(session, 'initialize', { user_id: uniqueUser(ctx) });
      const read = readPayload(answer.response);
      const value = read.ok ? read.value : undefined;
      const shape = read.ok ? shapeOf('tool-initialize.output.payload', value) : undefined;
      ctx.check('FW-SESSION-3', shape !== undefined && shape.problems.length === 0, {
        message: 'the initialize tool result is an object with workflow_info, an object or null',
        expected: { workflow_info: 'object | null' },
        actual: read.ok ? { value, problems: shape?.problems } : { problem: read.why, answer: answer.response ?? 'no answer' },
      });
      if (shape?.problems.length === 0) ctx.reading('FW-SESSION-3', shape.extras.length === 0 ? 1 : 2);
      if (shape) noteExtras(ctx, 'FW-SESSION-3', 'the initialize tool result', shape.extras);
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
      const { stored: older } = await storeActive(first, query);
      if (older === undefined) {
        ctx.info('FW-SESSION-4', 'no conversation is listed after a turn and new_conversation (FW-CONV-2 owns that), so none can be restored by id');
        return;
      }
      // Another stored conversation after it, so that the older one is neither the last nor the active one.
      await turnAndRotate(first, query);
      const second = await openSideSession(ctx);
      await initializeTool(second, { user_id: user, conversation_id: older });
      // The restored conversation is active: a turn and a rotation store it last (C-34).
      const { stored: restored, rotatedTo, listed } = await storeActive(second, query);
      ctx.check('FW-SESSION-4', sameId(restored, older), {
        message: 'after initialize with the conversation_id of an older conversation, that conversation is the active one (a turn and new_conversation store it)',
        expected: older,
        actual: { stored: restored ?? 'none', rotatedTo, listed: listed.map((c) => ({ conversation_id: c.conversation_id, updated_at: c.updated_at })) },
      });
      await second.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/one-turn-at-a-time',
    suite: SUITE,
    title: 'a turn while another runs in the same session fails, with status 409 where it can be read (FW-SESSION-5)',
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
      // A refused second turn is the verdict, whatever the first does: its end is not waited for.
      if (failureOf(second)?.failed === true) {
        void firstTurn.catch(() => undefined);
        checkFailure(ctx, 'FW-SESSION-5', second, 409, `invoke_assistant while an invoke_agent turn (${long}) is in progress`);
        return;
      }
      const first = await firstTurn;
      const firstFailed = failureOf(first)?.failed === true;
      if (!firstFailed && second.response !== undefined && first.answeredAt < second.sentAt) {
        ctx.info('FW-SESSION-5', `the first turn (${long}) ended before the second was sent, so no turn was in progress to conflict with`);
        return;
      }
      if (firstFailed) checkFailure(ctx, 'FW-SESSION-5', first, 409, `invoke_agent (${long}) overlapping another turn`);
      else checkFailure(ctx, 'FW-SESSION-5', second, 409, `invoke_assistant while an invoke_agent turn (${long}) is in progress`);
    },
  }),

  defineCase({
    id: 'fastworkflow/sessions-isolated',
    suite: SUITE,
    title: "a session sees only its own user's conversations (FW-SESSION-6)",
    requirements: ['FW-SESSION-6'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const alice = await openMainSession(ctx);
      await initializeTool(alice, { user_id: uniqueUser(ctx, 'alice') });
      const query = harmlessCommand(await workflowCommands(alice));
      await turnAndRotate(alice, query);
      await turnAndRotate(alice, query);
      const hers = await listConversations(alice);
      const bob = await openSideSession(ctx, "another user's session");
      await initializeTool(bob, { user_id: uniqueUser(ctx, 'bob') });
      const seen = await listConversations(bob);
      // Ids may be numbered per user (C-34): another user's conversation is recognised by its whole entry.
      const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
      const leaked = seen.filter((entry) => hers.some((own) => same(own, entry)));
      ctx.check('FW-SESSION-6', leaked.length === 0, { message: "list_conversations in another user's session lists none of this user's conversations", expected: [], actual: { leaked, hers } });
      const target = idsOf(hers).find((id) => !seen.some((entry) => sameId(entry.conversation_id, id)));
      if (target === undefined) {
        ctx.info('FW-SESSION-6', hers.length === 0 ? 'the first user has no conversation listed to try from another session' : "every conversation id of the first user is also one of the second user's own");
      } else {
        checkFailure(ctx, 'FW-SESSION-6', await callTool(bob, 'activate_conversation', { conversation_id: target }), 404, "activate_conversation of another user's conversation");
      }
      await bob.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/turn-timeout',
    suite: SUITE,
    title: 'a turn without output within timeout_seconds fails, with status 504 where it can be read (FW-SESSION-7)',
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
          message: `invoke_agent with timeout_seconds ${timeoutSeconds} fails (status 504) instead of answering after ${elapsed} ms`,
          expected: { httpStatus: 504 },
          actual: answer.response,
        });
        return;
      }
      checkFailure(ctx, 'FW-SESSION-7', answer, 504, `invoke_agent (${query}) with timeout_seconds ${timeoutSeconds}`);
    },
  }),

  defineCase({
    id: 'fastworkflow/initialize-invalid',
    suite: SUITE,
    title: 'the initialize tool with a user_id no reading makes a string fails, with status 422 where it can be read (FW-SESSION-8)',
    requirements: ['FW-SESSION-8'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    sendsInvalid: true,
    async run(ctx) {
      const session = await openMainSession(ctx);
      // Not a number: a server may read 42 as "42". An array or an object is no user id under any reading.
      checkFailure(ctx, 'FW-SESSION-8', await callTool(session, 'initialize', { user_id: ['a'] }), 422, 'initialize with user_id ["a"]');
      checkFailure(ctx, 'FW-SESSION-8', await callTool(session, 'initialize', { user_id: { id: 'a' } }), 422, 'initialize with user_id {"id": "a"}');
    },
  }),
];
