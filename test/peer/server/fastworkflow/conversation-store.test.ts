import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConversationStore,
  deriveSummary,
  MemoryBackend,
  topicKey,
  uniqueTopic,
} from '../../../../src/peer/server/fastworkflow/conversation-store.js';
import { ConversationStoreError } from '../../../../src/peer/server/fastworkflow/errors.js';

const turn = (query: string, response = 'ok') => ({ tool: 'invoke_assistant', query, command_name: 'TodoList/list_items', success: true, response });

describe('topics', () => {
  it('compare case- and whitespace-insensitively', () => {
    expect(topicKey('  Buy   Milk ')).toBe('buy milk');
  });

  it('get the smallest free suffix on collision', () => {
    expect(uniqueTopic('Buy milk', [])).toBe('Buy milk');
    expect(uniqueTopic('Buy  milk', ['buy milk'])).toBe('Buy milk (2)');
    expect(uniqueTopic('Buy milk', ['BUY MILK', 'buy milk (2)'])).toBe('Buy milk (3)');
  });

  it('and summaries are derived from the turns alone', () => {
    expect(deriveSummary([])).toEqual({ topic: 'New conversation', summary: 'No turns yet.' });
    const turns = [{ ...turn('list my tasks'), at: 1 }, { ...turn('list again', 'No items.'), at: 2 }];
    expect(deriveSummary(turns)).toEqual({ topic: 'list my tasks', summary: '2 turns (TodoList/list_items); last answer: No items.' });
    expect(deriveSummary(turns)).toEqual(deriveSummary(structuredClone(turns)));
  });
});

describe('ConversationStore on a directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fw-conv-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('survives a restart: a new store on the same directory sees every conversation, turn and feedback', async () => {
    const first = new ConversationStore(dir);
    const a = await first.create('alice');
    await first.appendTurn('alice', a.conversation_id, turn('add milk'));
    expect(await first.attachFeedback('alice', a.conversation_id, { binary_or_numeric_score: true, nl_feedback: null })).toBe('turn');
    const b = await first.create('alice');

    const restarted = new ConversationStore(dir);
    const listed = await restarted.list('alice');
    expect(listed.map((c) => c.conversation_id)).toEqual([b.conversation_id, a.conversation_id]);
    const stored = await restarted.get('alice', a.conversation_id);
    expect(stored?.turns).toHaveLength(1);
    expect(stored?.turns[0]?.feedback).toMatchObject({ binary_or_numeric_score: true, nl_feedback: null });
    expect((await restarted.latest('alice'))?.conversation_id).toBe(b.conversation_id);
  });

  it('writes atomically: one JSON file per user, no temporary file left behind', async () => {
    const store = new ConversationStore(dir);
    await Promise.all([store.create('alice'), store.create('alice'), store.create('bob'), store.create('a/../../evil')]);
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    for (const file of files) expect(file).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(await store.list('alice')).toHaveLength(2);
    expect((await new ConversationStore(dir).backend.users()).sort()).toEqual(['a/../../evil', 'alice', 'bob']);
  });

  it('keeps users apart', async () => {
    const store = new ConversationStore(dir);
    const a = await store.create('alice');
    await store.create('bob');
    expect(await store.get('bob', a.conversation_id)).toBeUndefined();
    expect((await store.list('bob')).map((c) => c.conversation_id)).not.toContain(a.conversation_id);
    expect(await store.listEveryone(10)).toHaveLength(2);
  });

  it('orders by updated_at, latest first, strictly even with a frozen clock, and honours the limit', async () => {
    const store = new ConversationStore(dir, { now: () => 1000 });
    const a = await store.create('u');
    const b = await store.create('u');
    const c = await store.create('u');
    await store.appendTurn('u', a.conversation_id, turn('touch a'));
    const listed = await store.list('u');
    expect(listed.map((x) => x.conversation_id)).toEqual([a.conversation_id, c.conversation_id, b.conversation_id]);
    const stamps = listed.map((x) => x.updated_at);
    expect(new Set(stamps).size).toBe(3);
    expect(await store.list('u', 2)).toHaveLength(2);
  });

  it('makes topics unique per user, and only per user', async () => {
    const store = new ConversationStore(dir);
    const one = await store.create('u');
    const two = await store.create('u');
    const other = await store.create('v');
    expect([one.topic, two.topic, other.topic]).toEqual(['New conversation', 'New conversation (2)', 'New conversation']);
    await store.appendTurn('u', one.conversation_id, turn('Plan  the trip'));
    await store.appendTurn('u', two.conversation_id, turn('plan the TRIP'));
    const topics = (await store.list('u')).map((c) => c.topic).sort();
    expect(topics).toEqual(['Plan the trip', 'plan the TRIP (2)']);
    // A later turn keeps the conversation's own topic.
    await store.appendTurn('u', two.conversation_id, turn('something else'));
    expect((await store.get('u', two.conversation_id))?.topic).toBe('plan the TRIP (2)');
  });

  it('leaves duplicate topics alone when asked to (fault duplicate-topics)', async () => {
    const store = new ConversationStore(dir);
    await store.create('u', false);
    const second = await store.create('u', false);
    expect(second.topic).toBe('New conversation');
  });

  it('attaches feedback to the latest turn, before any turn to the conversation, and reports unknown ids', async () => {
    const store = new ConversationStore(dir);
    const c = await store.create('u');
    expect(await store.attachFeedback('u', c.conversation_id, { binary_or_numeric_score: null, nl_feedback: 'early' })).toBe('conversation');
    await store.appendTurn('u', c.conversation_id, turn('first'));
    await store.appendTurn('u', c.conversation_id, turn('second'));
    expect(await store.attachFeedback('u', c.conversation_id, { binary_or_numeric_score: 4, nl_feedback: null })).toBe('turn');
    const stored = await store.get('u', c.conversation_id);
    expect(stored?.feedback_before_turns?.[0]?.nl_feedback).toBe('early');
    expect(stored?.turns[0]?.feedback).toBeUndefined();
    expect(stored?.turns[1]?.feedback?.binary_or_numeric_score).toBe(4);
    expect(await store.attachFeedback('u', 'conv-unknown', { binary_or_numeric_score: 1, nl_feedback: null })).toBe('no-conversation');
    expect(await store.appendTurn('u', 'conv-unknown', turn('x'))).toBeUndefined();
  });

  it('finalize writes nothing when the summarizer throws', async () => {
    const store = new ConversationStore(dir);
    const c = await store.create('u');
    await store.appendTurn('u', c.conversation_id, turn('keep me'));
    const before = readFileSync(readdirSync(dir).map((f) => join(dir, f))[0]!, 'utf8');
    await expect(
      store.finalize('u', c.conversation_id, () => {
        throw new RangeError('LLM unavailable');
      }),
    ).rejects.toThrow('LLM unavailable');
    expect(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')).toBe(before);
    const done = await store.finalize('u', c.conversation_id, () => ({ topic: 'Groceries', summary: 'Bought milk.' }));
    expect(done).toMatchObject({ topic: 'Groceries', summary: 'Bought milk.' });
  });

  it('names the file when it is not a conversation file', async () => {
    const store = new ConversationStore(dir);
    await store.create('u');
    const file = join(dir, readdirSync(dir)[0]!);
    writeFileSync(file, '{"version": 2}');
    await expect(store.list('u')).rejects.toSatisfy((e: unknown) => e instanceof ConversationStoreError && e.path === file && /version 1/.test(e.message));
    writeFileSync(file, 'not json');
    await expect(store.list('u')).rejects.toThrow(/not JSON/);
  });

  it('reports a directory it cannot write', async () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, '');
    const store = new ConversationStore(join(blocker, 'sub'));
    await expect(store.create('u')).rejects.toBeInstanceOf(ConversationStoreError);
  });
});

describe('ConversationStore in memory', () => {
  it('works the same but forgets everything with the backend', async () => {
    const backend = new MemoryBackend();
    const store = new ConversationStore(backend);
    const c = await store.create('u');
    expect((await store.list('u'))[0]?.conversation_id).toBe(c.conversation_id);
    expect(await new ConversationStore(new MemoryBackend()).list('u')).toEqual([]);
  });
});
