// mcp-core: prompts (CORE-PROMPTS) discovered from prompts/list: the list and its pages, gets of
// what it names with the required arguments filled, unknown names and missing arguments.
import { defineCase, requiresCapability, type CaseContext } from '../../../../src/harness/index.js';
import { isRecord } from '../../../../src/wire/index.js';
import { checkErrorCode, errorOf, openSession, type Message } from '../../../support/session.js';
import { checkNoLeaks, checkPageWalk, randomName, walkPages } from '../../../support/core.js';

const SUITE = 'mcp-core';
const needsPrompts = requiresCapability('prompts');
const MAX_GETS = 20;

interface ListedPrompt {
  name: string;
  required: string[];
}

async function listedPrompts(ctx: CaseContext): Promise<ListedPrompt[]> {
  const walk = await walkPages(ctx, 'prompts/list', 'prompts');
  return walk.items
    .filter(isRecord)
    .filter((p) => typeof p.name === 'string')
    .map((p) => ({
      name: p.name as string,
      required: (Array.isArray(p.arguments) ? p.arguments.filter(isRecord) : []).filter((a) => a.required === true && typeof a.name === 'string').map((a) => a.name as string),
    }));
}

function errorReading(ctx: CaseContext, answer: Message, what: string): void {
  const error = errorOf(answer);
  if (ctx.check('CORE-PROMPTS-3', error !== undefined, { message: `${what} is answered with a JSON-RPC error`, expected: { error: { code: -32602 } }, actual: answer.result })) {
    ctx.reading('CORE-PROMPTS-3', error!.code === -32602 ? 1 : 2, `${what}: error ${String(error!.code)}`, error);
  }
}

const promptsList = defineCase({
  id: `${SUITE}/prompts-list`,
  suite: SUITE,
  title: 'prompts/list gives a prompts array of prompts with a string name and arguments with a string name and an optional boolean required',
  requirements: ['CORE-PROMPTS-1', 'CORE-PAGE-1', 'CORE-PAGE-2'],
  applies: needsPrompts,
  async run(ctx) {
    await openSession(ctx);
    const walk = await walkPages(ctx, 'prompts/list', 'prompts', 'CORE-PROMPTS-1');
    if (walk.error) {
      ctx.check('CORE-PROMPTS-1', false, { message: 'prompts/list is answered with a result', actual: walk.error.error });
      return;
    }
    checkPageWalk(ctx, walk, 'prompts/list');
    ctx.check('CORE-PROMPTS-1', walk.pages.every((p) => Array.isArray(p.prompts)), { message: 'every prompts/list result has a prompts array' });
    const bad = walk.items.filter(
      (p) =>
        !isRecord(p) ||
        typeof p.name !== 'string' ||
        ('arguments' in p &&
          (!Array.isArray(p.arguments) || p.arguments.some((a) => !isRecord(a) || typeof a.name !== 'string' || ('required' in a && typeof a.required !== 'boolean')))),
    );
    ctx.check('CORE-PROMPTS-1', bad.length === 0, { message: `each of the ${walk.items.length} prompts is well-formed`, ...(bad.length ? { actual: bad } : {}) });
  },
});

const promptsInvalidCursor = defineCase({
  id: `${SUITE}/prompts-list-invalid-cursor`,
  suite: SUITE,
  title: 'prompts/list with a cursor the server never gave is answered with -32602 Invalid params',
  requirements: ['CORE-PAGE-3'],
  applies: needsPrompts,
  async run(ctx) {
    await openSession(ctx);
    const cursor = randomName('x-conformance-cursor');
    checkErrorCode(ctx, 'CORE-PAGE-3', await ctx.request('CORE-PAGE-3', 'prompts/list', { cursor }), -32602, `prompts/list with the unknown cursor ${JSON.stringify(cursor)}`);
  },
});

const getListed = defineCase({
  id: `${SUITE}/prompts-get-listed`,
  suite: SUITE,
  title: 'prompts/get of each listed prompt (required arguments filled) gives messages with role "user" or "assistant" and a content item',
  requirements: ['CORE-PROMPTS-2'],
  applies: needsPrompts,
  async run(ctx) {
    await openSession(ctx);
    const prompts = (await listedPrompts(ctx)).slice(0, MAX_GETS);
    if (prompts.length === 0) {
      ctx.info('CORE-PROMPTS-2', 'prompts/list named no prompt');
      return;
    }
    for (const prompt of prompts) {
      const args = Object.fromEntries(prompt.required.map((name) => [name, 'conformance']));
      const answer = await ctx.request('CORE-PROMPTS-2', 'prompts/get', { name: prompt.name, arguments: args });
      if (!answer) continue;
      if (!isRecord(answer.result)) {
        ctx.info('CORE-PROMPTS-2', `prompts/get of ${prompt.name} was answered with an error`, answer.error);
        continue;
      }
      const messages = answer.result.messages;
      const ok =
        Array.isArray(messages) &&
        messages.every((m) => isRecord(m) && (m.role === 'user' || m.role === 'assistant') && isRecord(m.content) && typeof m.content.type === 'string');
      ctx.check('CORE-PROMPTS-2', ok, { message: `prompts/get of ${prompt.name} gives user/assistant messages with a content item`, actual: answer.result });
    }
  },
});

const getUnknown = defineCase({
  id: `${SUITE}/prompts-get-unknown`,
  suite: SUITE,
  title: 'prompts/get of a prompt name the server does not list is answered with a JSON-RPC error',
  requirements: ['CORE-PROMPTS-3', 'CORE-ERR-3'],
  applies: needsPrompts,
  async run(ctx) {
    await openSession(ctx);
    const name = randomName('x-conformance-no-such-prompt');
    const answer = await ctx.request('CORE-PROMPTS-3', 'prompts/get', { name });
    if (!answer) return;
    errorReading(ctx, answer, `prompts/get of the unknown prompt ${name}`);
    checkNoLeaks(ctx, [answer]);
  },
});

const getMissingArgument = defineCase({
  id: `${SUITE}/prompts-get-missing-argument`,
  suite: SUITE,
  title: 'prompts/get without a required argument is answered with a JSON-RPC error',
  requirements: ['CORE-PROMPTS-3'],
  applies: needsPrompts,
  async run(ctx) {
    await openSession(ctx);
    const prompt = (await listedPrompts(ctx)).find((p) => p.required.length > 0);
    if (!prompt) {
      ctx.info('CORE-PROMPTS-3', 'no listed prompt has a required argument');
      return;
    }
    const answer = await ctx.request('CORE-PROMPTS-3', 'prompts/get', { name: prompt.name, arguments: {} });
    if (answer) errorReading(ctx, answer, `prompts/get of ${prompt.name} without its required argument ${prompt.required[0]}`);
  },
});

export const cases = [promptsList, promptsInvalidCursor, getListed, getUnknown, getMissingArgument];
