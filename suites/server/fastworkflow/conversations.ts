// FW-CONV: conversations persist per user across MCP sessions and rotate with new_conversation;
// list_conversations, activate_conversation and post_feedback behave as 004 §5.7-§5.10 say.
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
  SUITE,
  uniqueUser,
  useTool,
  workflowCommands,
} from './support.js';

interface Listed {
  conversation_id: unknown;
  topic: unknown;
  summary: unknown;
  updated_at: unknown;
}

function listed(payload: Record<string, unknown>): Listed[] {
  return (Array.isArray(payload.conversations) ? payload.conversations : []).filter(isRecord) as unknown as Listed[];
}

const ids = (conversations: readonly Listed[]) => conversations.map((c) => String(c.conversation_id));

/** Topic comparison key of FW-CONV-8: case- and whitespace-insensitive. */
const topicKey = (topic: unknown) => String(topic).replace(/\s+/g, ' ').trim().toLowerCase();

export const conversationCases = [
  defineCase({
    id: 'fastworkflow/conversations-persist',
    suite: SUITE,
    title: "a new MCP session of the same user restores the user's last conversation (FW-CONV-1)",
    requirements: ['FW-CONV-1'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const user = uniqueUser(ctx);
      const first = await openMainSession(ctx);
      await initializeTool(first, { user_id: user });
      await useTool(first, 'invoke_assistant', { user_query: harmlessCommand(await workflowCommands(first)) });
      const before = listed(await useTool(first, 'list_conversations', { limit: 100 }));
      const second = await openSideSession(ctx, 'a later session of the same user');
      await initializeTool(second, { user_id: user });
      const after = listed(await useTool(second, 'list_conversations', { limit: 100 }));
      ctx.check('FW-CONV-1', before.length > 0 && JSON.stringify(ids(after)) === JSON.stringify(ids(before)), {
        message: "a later session of the same user sees the user's conversations and starts none (the last one is restored)",
        expected: ids(before),
        actual: ids(after),
      });
      await second.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/new-conversation-rotates',
    suite: SUITE,
    title: 'new_conversation returns {"status":"ok","new_conversation_id"} with a new id, and the previous conversation is listed (FW-CONV-2)',
    requirements: ['FW-CONV-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      await useTool(session, 'invoke_assistant', { user_query: harmlessCommand(await workflowCommands(session)) });
      const previous = ids(listed(await useTool(session, 'list_conversations', { limit: 100 })))[0];
      const answer = await callTool(session, 'new_conversation');
      const read = readPayload(answer.response);
      const value = read.ok && isRecord(read.value) ? read.value : undefined;
      const id = value?.new_conversation_id;
      if (!ctx.check('FW-CONV-2', value?.status === 'ok' && typeof id === 'string' && id !== '', { message: 'new_conversation returns {"status":"ok","new_conversation_id":<string>}', actual: read.ok ? read.value : answer.response ?? 'no answer' })) return;
      const after = ids(listed(await useTool(session, 'list_conversations', { limit: 100 })));
      ctx.check('FW-CONV-2', id !== previous && previous !== undefined && after.includes(previous), {
        message: 'the new id differs from the previous conversation, which list_conversations then lists',
        expected: { differentFrom: previous, listed: previous },
        actual: { new_conversation_id: id, listed: after },
      });
    },
  }),

  defineCase({
    id: 'fastworkflow/list-conversations',
    suite: SUITE,
    title: 'list_conversations returns at most limit conversations with id, topic, summary and updated_at, latest first (FW-CONV-3)',
    requirements: ['FW-CONV-3'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const query = harmlessCommand(await workflowCommands(session));
      for (let i = 0; i < 3; i++) {
        await useTool(session, 'invoke_assistant', { user_query: query });
        await useTool(session, 'new_conversation');
      }
      const all = listed(await useTool(session, 'list_conversations', { limit: 100 }));
      const shaped = all.every((c) => typeof c.conversation_id === 'string' && typeof c.topic === 'string' && typeof c.summary === 'string' && typeof c.updated_at === 'number');
      ctx.check('FW-CONV-3', all.length >= 3 && shaped, { message: 'each listed conversation has conversation_id, topic, summary (strings) and updated_at (number); the user has at least 3', actual: all });
      const sorted = all.every((c, i) => i === 0 || (all[i - 1]!.updated_at as number) >= (c.updated_at as number));
      ctx.check('FW-CONV-3', sorted, { message: 'conversations are sorted by updated_at descending', actual: all.map((c) => c.updated_at) });
      const two = listed(await useTool(session, 'list_conversations', { limit: 2 }));
      ctx.check('FW-CONV-3', two.length === 2 && JSON.stringify(ids(two)) === JSON.stringify(ids(all).slice(0, 2)), { message: 'limit 2 returns the two latest conversations', expected: ids(all).slice(0, 2), actual: ids(two) });
      const byDefault = listed(await useTool(session, 'list_conversations'));
      ctx.check('FW-CONV-3', byDefault.length <= 10 && byDefault.length === Math.min(10, all.length), { message: 'without limit at most 10 conversations are listed', actual: byDefault.length });
    },
  }),

  defineCase({
    id: 'fastworkflow/activate-conversation',
    suite: SUITE,
    title: "activate_conversation returns {\"status\":\"ok\"} for the user's conversation and a 404-equivalent error for an unknown id (FW-CONV-4)",
    requirements: ['FW-CONV-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      await useTool(session, 'new_conversation');
      const known = ids(listed(await useTool(session, 'list_conversations', { limit: 100 })));
      const target = known[known.length - 1];
      if (target !== undefined) {
        const answer = await callTool(session, 'activate_conversation', { conversation_id: target });
        const read = readPayload(answer.response);
        ctx.check('FW-CONV-4', read.ok && isRecord(read.value) && read.value.status === 'ok', { message: "activate_conversation of the user's own conversation returns {\"status\":\"ok\"}", actual: answer.response ?? 'no answer' });
      } else {
        ctx.check('FW-CONV-4', false, { message: 'the user has a conversation to activate after new_conversation', actual: known });
      }
      checkStatus(ctx, 'FW-CONV-4', await callTool(session, 'activate_conversation', { conversation_id: `conformance-unknown-${Date.now().toString(36)}` }), 404, 'activate_conversation of an unknown id');
    },
  }),

  defineCase({
    id: 'fastworkflow/post-feedback',
    suite: SUITE,
    title: 'post_feedback returns {"status":"ok"}, and with both fields null fails with a 422-equivalent error (FW-CONV-5)',
    requirements: ['FW-CONV-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      await useTool(session, 'invoke_assistant', { user_query: harmlessCommand(await workflowCommands(session)) });
      for (const args of [{ binary_or_numeric_score: true, nl_feedback: null }, { binary_or_numeric_score: null, nl_feedback: 'conformance: helpful' }, { binary_or_numeric_score: 4 }]) {
        const answer = await callTool(session, 'post_feedback', args);
        const read = readPayload(answer.response);
        ctx.check('FW-CONV-5', read.ok && isRecord(read.value) && read.value.status === 'ok', { message: `post_feedback ${JSON.stringify(args)} returns {"status":"ok"}`, actual: answer.response ?? 'no answer' });
      }
      checkStatus(ctx, 'FW-CONV-5', await callTool(session, 'post_feedback', { binary_or_numeric_score: null, nl_feedback: null }), 422, 'post_feedback with both fields null');
    },
  }),

  defineCase({
    id: 'fastworkflow/unique-topics',
    suite: SUITE,
    title: "a user's conversation topics are unique, compared case- and whitespace-insensitively (FW-CONV-8)",
    requirements: ['FW-CONV-8'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const query = harmlessCommand(await workflowCommands(session));
      // The same first query in every conversation, so the summaries propose the same topic.
      for (let i = 0; i < 2; i++) {
        await useTool(session, 'invoke_assistant', { user_query: query });
        const rotated = await callTool(session, 'new_conversation');
        if (!ctx.check('FW-CONV-8', failureOf(rotated)?.failed === false, { message: 'new_conversation succeeds', actual: rotated.response ?? 'no answer' })) return;
      }
      await useTool(session, 'invoke_assistant', { user_query: query });
      const topics = listed(await useTool(session, 'list_conversations', { limit: 100 })).map((c) => c.topic);
      const keys = topics.map(topicKey);
      ctx.check('FW-CONV-8', new Set(keys).size === keys.length, { message: 'no two conversations of the user share a topic (case- and whitespace-insensitive)', actual: topics });
    },
  }),
];
