// FW-CONV: conversations persist per user across MCP sessions and rotate with new_conversation;
// list_conversations, activate_conversation and post_feedback behave as 004 §5.7-§5.10 say.
// Conversations are observed once a new_conversation stored them, under either reading of C-34.
import { defineCase } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
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
  storeActive,
  SUITE,
  turnAndRotate,
  uniqueUser,
  useTool,
  workflowCommands,
} from '../../support/fastworkflow.js';

/** The members 004 §5.8 names for a listed conversation. */
const LISTED_MEMBERS = ['conversation_id', 'topic', 'summary', 'updated_at'];

/** Topic comparison key of FW-CONV-8: case- and whitespace-insensitive. */
const topicKey = (topic: unknown) => String(topic).replace(/\s+/g, ' ').trim().toLowerCase();

export const conversationCases = [
  defineCase({
    id: 'fastworkflow/conversations-persist',
    suite: SUITE,
    title: "a new MCP session of the same user lists the user's conversations and continues the last one (FW-CONV-1)",
    requirements: ['FW-CONV-1'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const user = uniqueUser(ctx);
      const first = await openMainSession(ctx);
      await initializeTool(first, { user_id: user });
      const query = harmlessCommand(await workflowCommands(first));
      const last = await turnAndRotate(first, query);
      // A turn in the new conversation: it is the user's last one.
      await useTool(first, 'invoke_assistant', { user_query: query });
      const before = idsOf(await listConversations(first));
      const second = await openSideSession(ctx, 'a later session of the same user');
      await initializeTool(second, { user_id: user });
      const after = idsOf(await listConversations(second));
      const lost = before.filter((id) => !after.some((other) => sameId(other, id)));
      ctx.check('FW-CONV-1', before.length > 0 && lost.length === 0, {
        message: "a later session of the same user lists the user's conversations",
        expected: before,
        actual: { listed: after, lost },
      });
      // The later session continues the last conversation: a turn and new_conversation store it (C-34).
      const { stored: restored } = await storeActive(second, query);
      ctx.check('FW-CONV-1', sameId(restored, last), {
        message: 'the later session continues the last conversation of the user',
        expected: last,
        actual: restored ?? 'no conversation stored',
      });
      await second.close();
    },
  }),

  defineCase({
    id: 'fastworkflow/new-conversation-rotates',
    suite: SUITE,
    title: 'new_conversation returns {"status":"ok","new_conversation_id"} and rotates: the next one differs and the rotated one is listed (FW-CONV-2)',
    requirements: ['FW-CONV-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const query = harmlessCommand(await workflowCommands(session));
      await useTool(session, 'invoke_assistant', { user_query: query });
      const answer = await callTool(session, 'new_conversation');
      const read = readPayload(answer.response);
      const value = read.ok && isRecord(read.value) ? read.value : undefined;
      const id = value?.new_conversation_id;
      if (!ctx.check('FW-CONV-2', value?.status === 'ok' && typeof id === 'string' && id !== '', { message: 'new_conversation returns {"status":"ok","new_conversation_id":<string>}', actual: read.ok ? read.value : answer.response ?? 'no answer' })) return;
      // A turn in the new conversation, then another rotation: the new one is stored and listed.
      const next = await turnAndRotate(session, query);
      const listed = idsOf(await listConversations(session));
      ctx.check('FW-CONV-2', !sameId(next, id) && listed.some((other) => sameId(other, id)), {
        message: 'the next new_conversation answers another id, and the conversation it rotated away from is listed',
        expected: { differentFrom: id, listed: id },
        actual: { next, listed },
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
      let active: unknown;
      for (let i = 0; i < 3; i++) active = await turnAndRotate(session, query);
      const all = await listConversations(session);
      ctx.reading('FW-CONV-3', all.some((c) => sameId(c.conversation_id, active)) ? 1 : 2);
      const shaped = all.every((c) => typeof c.conversation_id === 'string' && typeof c.topic === 'string' && typeof c.summary === 'string' && typeof c.updated_at === 'number');
      ctx.check('FW-CONV-3', all.length >= 3 && shaped, { message: 'each listed conversation has conversation_id, topic, summary (strings) and updated_at (number); the user has at least the 3 stored ones', actual: all });
      noteExtras(ctx, 'FW-CONV-3', 'list_conversations entries', all.flatMap((c, i) => Object.keys(c).filter((k) => !LISTED_MEMBERS.includes(k)).map((k) => `/conversations/${i}/${k}`)));
      const sorted = all.every((c, i) => i === 0 || (all[i - 1]!.updated_at as number) >= (c.updated_at as number));
      ctx.check('FW-CONV-3', sorted, { message: 'conversations are sorted by updated_at descending', actual: all.map((c) => c.updated_at) });
      const two = await listConversations(session, 2);
      // The two latest: none older than the third latest (conversations updated in the same millisecond may come in either order).
      const third = all[2]?.updated_at;
      const latest = two.every((c) => typeof c.updated_at === 'number' && (typeof third !== 'number' || c.updated_at >= third));
      ctx.check('FW-CONV-3', two.length === 2 && latest, { message: 'limit 2 returns the two latest conversations', expected: idsOf(all).slice(0, 2), actual: two.map((c) => ({ conversation_id: c.conversation_id, updated_at: c.updated_at })) });
      const byDefault = await useTool(session, 'list_conversations');
      const count = Array.isArray(byDefault.conversations) ? byDefault.conversations.length : -1;
      ctx.check('FW-CONV-3', count === Math.min(10, all.length), { message: 'without limit at most 10 conversations are listed', expected: Math.min(10, all.length), actual: count });
    },
  }),

  defineCase({
    id: 'fastworkflow/activate-conversation',
    suite: SUITE,
    title: "activate_conversation returns {\"status\":\"ok\"} for the user's conversation and fails for an unknown id, with status 404 where it can be read (FW-CONV-4)",
    requirements: ['FW-CONV-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const { stored: target } = await storeActive(session, harmlessCommand(await workflowCommands(session)));
      if (target !== undefined) {
        const answer = await callTool(session, 'activate_conversation', { conversation_id: target });
        const read = readPayload(answer.response);
        ctx.check('FW-CONV-4', read.ok && isRecord(read.value) && read.value.status === 'ok', { message: "activate_conversation of the user's own stored conversation returns {\"status\":\"ok\"}", actual: answer.response ?? 'no answer' });
      } else {
        ctx.info('FW-CONV-4', 'no conversation is listed after a turn and new_conversation (FW-CONV-2 owns that), so none can be activated');
      }
      checkFailure(ctx, 'FW-CONV-4', await callTool(session, 'activate_conversation', { conversation_id: `conformance-unknown-${Date.now().toString(36)}` }), 404, 'activate_conversation of an unknown id');
    },
  }),

  defineCase({
    id: 'fastworkflow/post-feedback',
    suite: SUITE,
    title: 'post_feedback returns {"status":"ok"}, and with both fields null fails, with status 422 where it can be read (FW-CONV-5)',
    requirements: ['FW-CONV-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      await useTool(session, 'invoke_assistant', { user_query: harmlessCommand(await workflowCommands(session)) });
      // Both fields in every call: whether an omitted one counts as null is not 004's question.
      for (const args of [{ binary_or_numeric_score: true, nl_feedback: null }, { binary_or_numeric_score: null, nl_feedback: 'conformance: helpful' }, { binary_or_numeric_score: 4, nl_feedback: null }]) {
        const answer = await callTool(session, 'post_feedback', args);
        const read = readPayload(answer.response);
        ctx.check('FW-CONV-5', read.ok && isRecord(read.value) && read.value.status === 'ok', { message: `post_feedback ${JSON.stringify(args)} returns {"status":"ok"}`, actual: answer.response ?? 'no answer' });
      }
      checkFailure(ctx, 'FW-CONV-5', await callTool(session, 'post_feedback', { binary_or_numeric_score: null, nl_feedback: null }), 422, 'post_feedback with both fields null');
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
      const topics = (await listConversations(session)).map((c) => c.topic);
      const keys = topics.map(topicKey);
      ctx.check('FW-CONV-8', new Set(keys).size === keys.length, { message: 'no two conversations of the user share a topic (case- and whitespace-insensitive)', actual: topics });
    },
  }),
];
