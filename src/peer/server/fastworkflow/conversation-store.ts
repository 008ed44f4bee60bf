// Conversations persisted per user_id (004 §4, §11.1): one JSON file per user in a directory,
// written atomically (temp file + rename) so that a crash never leaves half a file and a new
// store on the same directory (a restarted server) sees everything. Topics are unique per user,
// compared case- and whitespace-insensitively, with " (2)", " (3)" ... appended on collision.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConversationStoreError } from './errors.js';
import { isRecord } from '../../../wire/index.js';

export interface Feedback {
  binary_or_numeric_score: boolean | number | null;
  nl_feedback: string | null;
  /** Epoch milliseconds. */
  at: number;
}

/** One turn of a conversation: what was asked and what the workflow answered. */
export interface Turn {
  at: number;
  /** The tool that ran the turn (invoke_agent, invoke_assistant, execute_command). */
  tool: string;
  query: string;
  command_name: string | null;
  success: boolean | null;
  response: string;
  feedback?: Feedback;
}

export interface Conversation {
  conversation_id: string;
  topic: string;
  summary: string;
  created_at: number;
  updated_at: number;
  /** When new_conversation last stored it with its topic and summary (finalize); absent before. */
  stored_at?: number;
  turns: Turn[];
  /** Feedback given while the conversation had no turn yet. */
  feedback_before_turns?: Feedback[];
}

/** list_conversations' entry (004 §5.8); `created_at` only when asked for (a member 004 does not name). */
export interface ConversationSummary {
  conversation_id: string;
  topic: string;
  summary: string;
  updated_at: number;
  created_at?: number;
}

/** What list() returns (profile C-34). */
export interface ListOptions {
  /** Only conversations finalize() stored (the active one once rotated); default false: every one. */
  storedOnly?: boolean;
  /** Add each conversation's created_at. */
  withCreatedAt?: boolean;
}

interface UserFile {
  version: 1;
  user_id: string;
  conversations: Conversation[];
}

/** Topic and summary of a conversation (FastWorkflow asks an LLM; the mock derives them). */
export type Summarizer = (turns: readonly Turn[]) => { topic: string; summary: string };

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The deterministic summarizer: topic from the first query, summary from the commands run. */
export const deriveSummary: Summarizer = (turns) => {
  if (turns.length === 0) return { topic: 'New conversation', summary: 'No turns yet.' };
  const commands = [...new Set(turns.map((t) => t.command_name).filter((c): c is string => c !== null))];
  const last = turns[turns.length - 1]!;
  return {
    topic: clip(turns[0]!.query, 60) || 'Untitled conversation',
    summary: `${turns.length} turn${turns.length === 1 ? '' : 's'}${commands.length > 0 ? ` (${commands.join(', ')})` : ''}; last answer: ${clip(last.response, 120)}`,
  };
};

/** Topics compare case- and whitespace-insensitively. */
export function topicKey(topic: string): string {
  return topic.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** `wanted`, or `wanted (n)` with the smallest n >= 2 that no topic in `taken` equals. */
export function uniqueTopic(wanted: string, taken: Iterable<string>): string {
  const keys = new Set([...taken].map(topicKey));
  const base = wanted.replace(/\s+/g, ' ').trim();
  if (!keys.has(topicKey(base))) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base} (${n})`;
    if (!keys.has(topicKey(candidate))) return candidate;
  }
}

/** Where user files live: a directory, or memory (one server process). */
export interface ConversationBackend {
  read(userId: string): Promise<UserFile | undefined>;
  write(userId: string, file: UserFile): Promise<void>;
  /** Every user that has a file (for faults that leak across users). */
  users(): Promise<string[]>;
}

/** A directory with one `<sha256(user_id)>.json` per user. */
export class DirectoryBackend implements ConversationBackend {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  #path(userId: string): string {
    return join(this.dir, `${createHash('sha256').update(userId, 'utf8').digest('hex')}.json`);
  }

  async read(userId: string): Promise<UserFile | undefined> {
    const path = this.#path(userId);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new ConversationStoreError(path, `cannot read: ${(error as Error).message}`, { cause: error });
    }
    return parseUserFile(path, text, userId);
  }

  async write(userId: string, file: UserFile): Promise<void> {
    const path = this.#path(userId);
    const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new ConversationStoreError(path, `cannot write: ${(error as Error).message}`, { cause: error });
    }
  }

  async users(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new ConversationStoreError(this.dir, `cannot list: ${(error as Error).message}`, { cause: error });
    }
    const users: string[] = [];
    for (const name of names.filter((n) => /^[0-9a-f]{64}\.json$/.test(n)).sort()) {
      const path = join(this.dir, name);
      const parsed = parseUserFile(path, await readFile(path, 'utf8'));
      users.push(parsed.user_id);
    }
    return users;
  }
}

/** Keeps user files in memory only (nothing survives the process). */
export class MemoryBackend implements ConversationBackend {
  readonly #files = new Map<string, string>();
  async read(userId: string): Promise<UserFile | undefined> {
    const text = this.#files.get(userId);
    return text === undefined ? undefined : (JSON.parse(text) as UserFile);
  }
  async write(userId: string, file: UserFile): Promise<void> {
    this.#files.set(userId, JSON.stringify(file));
  }
  async users(): Promise<string[]> {
    return [...this.#files.keys()].sort();
  }
}

function parseUserFile(path: string, text: string, userId?: string): UserFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConversationStoreError(path, `not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(data) || data['version'] !== 1 || typeof data['user_id'] !== 'string' || !Array.isArray(data['conversations'])) {
    throw new ConversationStoreError(path, 'not a conversation file (needs version 1, user_id and conversations)');
  }
  if (userId !== undefined && data['user_id'] !== userId) {
    throw new ConversationStoreError(path, `belongs to user ${JSON.stringify(data['user_id'])}, not ${JSON.stringify(userId)}`);
  }
  for (const [i, c] of (data['conversations'] as unknown[]).entries()) {
    if (!isRecord(c) || typeof c['conversation_id'] !== 'string' || typeof c['updated_at'] !== 'number' || !Array.isArray(c['turns'])) {
      throw new ConversationStoreError(path, `conversation ${i} lacks conversation_id, updated_at or turns`);
    }
  }
  return data as unknown as UserFile;
}

export interface ConversationStoreOptions {
  now?: () => number;
  newId?: () => string;
}

/** The conversations of every user; writes for one user are applied one at a time. */
export class ConversationStore {
  readonly backend: ConversationBackend;
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(backend: ConversationBackend | string, options: ConversationStoreOptions = {}) {
    this.backend = typeof backend === 'string' ? new DirectoryBackend(backend) : backend;
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? (() => `conv-${randomUUID()}`);
  }

  /** Runs `change` on the user's file and writes it back, after earlier changes for that user. */
  #update<T>(userId: string, change: (file: UserFile) => T): Promise<T> {
    const previous = this.#queues.get(userId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const file = (await this.backend.read(userId)) ?? { version: 1 as const, user_id: userId, conversations: [] };
      const result = change(file);
      await this.backend.write(userId, file);
      return result;
    });
    const settled = next.catch(() => undefined);
    this.#queues.set(userId, settled);
    void settled.then(() => {
      if (this.#queues.get(userId) === settled) this.#queues.delete(userId);
    });
    return next;
  }

  async #read(userId: string): Promise<Conversation[]> {
    await this.#queues.get(userId);
    return (await this.backend.read(userId))?.conversations ?? [];
  }

  /** A timestamp later than every updated_at of the user, so that the order is strict. */
  #stamp(file: UserFile): number {
    const latest = Math.max(0, ...file.conversations.map((c) => c.updated_at));
    return Math.max(Math.trunc(this.#now()), latest + 1);
  }

  /** The user's conversations, latest updated_at first, at most `limit`. */
  async list(userId: string, limit = Number.POSITIVE_INFINITY, options: ListOptions = {}): Promise<ConversationSummary[]> {
    return summaries(await this.#read(userId), limit, options);
  }

  /** Every user's conversations together (only for the cross-user fault). */
  async listEveryone(limit: number, options: ListOptions = {}): Promise<ConversationSummary[]> {
    const all: Conversation[] = [];
    for (const user of await this.backend.users()) all.push(...(await this.#read(user)));
    return summaries(all, limit, options);
  }

  async get(userId: string, conversationId: string): Promise<Conversation | undefined> {
    return (await this.#read(userId)).find((c) => c.conversation_id === conversationId);
  }

  /** The conversation updated last, if the user has any. */
  async latest(userId: string): Promise<Conversation | undefined> {
    const all = await this.#read(userId);
    return all.reduce<Conversation | undefined>((best, c) => (best === undefined || c.updated_at > best.updated_at ? c : best), undefined);
  }

  /** Starts an empty conversation; `distinct` false leaves topics as they come (fault duplicate-topics). */
  create(userId: string, distinct = true): Promise<Conversation> {
    return this.#update(userId, (file) => {
      const at = this.#stamp(file);
      const { topic, summary } = deriveSummary([]);
      const conversation: Conversation = {
        conversation_id: this.#newId(),
        topic: distinct ? uniqueTopic(topic, file.conversations.map((c) => c.topic)) : topic,
        summary,
        created_at: at,
        updated_at: at,
        turns: [],
      };
      file.conversations.push(conversation);
      return structuredClone(conversation);
    });
  }

  /** Appends a turn, refreshes topic and summary with the deterministic summarizer; undefined when the conversation is unknown. */
  appendTurn(userId: string, conversationId: string, turn: Omit<Turn, 'at'>, distinct = true): Promise<Conversation | undefined> {
    return this.#update(userId, (file) => {
      const conversation = file.conversations.find((c) => c.conversation_id === conversationId);
      if (!conversation) return undefined;
      const at = this.#stamp(file);
      conversation.turns.push({ ...turn, at });
      conversation.updated_at = at;
      this.#retitle(file, conversation, deriveSummary(conversation.turns), distinct);
      return structuredClone(conversation);
    });
  }

  /** Sets topic (made unique) and summary from `summarize` and marks it stored; its exceptions propagate and nothing is written. */
  finalize(userId: string, conversationId: string, summarize: Summarizer, distinct = true): Promise<Conversation | undefined> {
    return this.#update(userId, (file) => {
      const conversation = file.conversations.find((c) => c.conversation_id === conversationId);
      if (!conversation) return undefined;
      this.#retitle(file, conversation, summarize(conversation.turns), distinct);
      conversation.stored_at = Math.trunc(this.#now());
      return structuredClone(conversation);
    });
  }

  /**
   * Attaches feedback to the latest turn ('turn'); a conversation without turns keeps it in
   * feedback_before_turns ('conversation'); 'no-conversation' when the id is unknown.
   */
  attachFeedback(userId: string, conversationId: string, feedback: Omit<Feedback, 'at'>): Promise<'turn' | 'conversation' | 'no-conversation'> {
    return this.#update(userId, (file) => {
      const conversation = file.conversations.find((c) => c.conversation_id === conversationId);
      if (!conversation) return 'no-conversation';
      const stamped = { ...feedback, at: Math.trunc(this.#now()) };
      const turn = conversation.turns[conversation.turns.length - 1];
      if (!turn) {
        (conversation.feedback_before_turns ??= []).push(stamped);
        return 'conversation';
      }
      turn.feedback = stamped;
      return 'turn';
    });
  }

  #retitle(file: UserFile, conversation: Conversation, derived: { topic: string; summary: string }, distinct: boolean): void {
    const others = file.conversations.filter((c) => c !== conversation).map((c) => c.topic);
    if (!distinct) {
      conversation.topic = derived.topic;
      conversation.summary = derived.summary;
      return;
    }
    conversation.topic = topicKey(conversation.topic) === topicKey(derived.topic) && !others.some((t) => topicKey(t) === topicKey(derived.topic))
      ? conversation.topic
      : uniqueTopic(derived.topic, others);
    conversation.summary = derived.summary;
  }
}

function summaries(conversations: readonly Conversation[], limit: number, options: ListOptions = {}): ConversationSummary[] {
  return conversations
    .filter((c) => !options.storedOnly || c.stored_at !== undefined)
    .sort((a, b) => b.updated_at - a.updated_at || a.conversation_id.localeCompare(b.conversation_id))
    .slice(0, limit)
    .map(({ conversation_id, topic, summary, updated_at, created_at }) => ({ conversation_id, topic, summary, updated_at, ...(options.withCreatedAt ? { created_at } : {}) }));
}
