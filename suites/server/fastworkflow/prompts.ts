// FW-PROMPT: the two prompts of 004 §7 (format-command, clarify-params), which render text and
// never act; and §8: no workflow folders or action logs as resources.
import { defineCase } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import { openSession, setupResult } from '../../support/session.js';
import { initializeTool, mainSession, openMainSession, requiresFastWorkflow, SUITE, uniqueUser, useTool } from '../../support/fastworkflow.js';

/** Each prompt with the arguments 004 §7 gives it (required, as §11.4 registers them). */
const PROMPTS = { 'format-command': ['intent', 'metadata'], 'clarify-params': ['error_message', 'metadata'] } as const;
const NOT_INCLUDED = ['name-conversation', 'summarize-conversation', 'plan-next-steps'];

/** Resource names or URIs that look like workflow folders or action logs. */
const FORBIDDEN_RESOURCE = /action[_-]?log|workflow[_-]?(folder|path|dir)|_commands\/|\.jsonl\b/i;

function messageTexts(result: Record<string, unknown>): string {
  const messages = Array.isArray(result.messages) ? result.messages : [];
  return messages
    .filter(isRecord)
    .map((m) => (isRecord(m.content) && typeof m.content.text === 'string' ? m.content.text : ''))
    .join('\n');
}

export const promptCases = [
  defineCase({
    id: 'fastworkflow/prompts-listed',
    suite: SUITE,
    title: 'prompts/list has format-command and clarify-params with their arguments, marked required, and not the excluded prompts (FW-PROMPT-1, FW-PROMPT-2, FW-PROMPT-6)',
    requirements: ['FW-PROMPT-1', 'FW-PROMPT-2', 'FW-PROMPT-6'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      await openMainSession(ctx);
      const result = await setupResult(ctx, 'prompts/list', {}, 'FW-PROMPT-1');
      const prompts = (Array.isArray(result.prompts) ? result.prompts : []).filter(isRecord);
      for (const [name, required] of Object.entries(PROMPTS)) {
        const prompt = prompts.find((p) => p.name === name);
        const args = (prompt && Array.isArray(prompt.arguments) ? prompt.arguments : []).filter(isRecord);
        const missing = required.filter((arg) => !args.some((a) => a.name === arg));
        ctx.check('FW-PROMPT-1', prompt !== undefined && missing.length === 0, {
          message: `prompts/list includes ${name} with the arguments ${required.join(', ')}`,
          actual: prompt ? { arguments: prompt.arguments, missing } : 'not listed',
        });
        if (prompt === undefined || missing.length > 0) continue;
        const optional = required.filter((arg) => !args.some((a) => a.name === arg && a.required === true));
        ctx.check('FW-PROMPT-6', optional.length === 0, { message: `${name} marks ${required.join(', ')} as required`, actual: { notRequired: optional } });
      }
      const excluded = prompts.map((p) => String(p.name)).filter((name) => NOT_INCLUDED.includes(name));
      ctx.check('FW-PROMPT-2', excluded.length === 0, { message: 'prompts/list does not include name-conversation, summarize-conversation or plan-next-steps', expected: [], actual: excluded });
    },
  }),

  defineCase({
    id: 'fastworkflow/prompts-render-arguments',
    suite: SUITE,
    title: 'prompts/get of format-command and clarify-params returns messages with the given arguments and acts on nothing (FW-PROMPT-3, FW-PROMPT-4)',
    requirements: ['FW-PROMPT-3', 'FW-PROMPT-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      await openMainSession(ctx);
      const session = mainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const before = await useTool(session, 'list_conversations', { limit: 100 });
      const marker = `conformance-${ctx.nextId()}-${Date.now().toString(36)}`;
      for (const [name, required] of Object.entries(PROMPTS)) {
        const args = Object.fromEntries(required.map((arg) => [arg, `${arg}-${marker}`]));
        const result = await setupResult(ctx, 'prompts/get', { name, arguments: args }, 'FW-PROMPT-3');
        const text = messageTexts(result);
        const absent = Object.values(args).filter((value) => !text.includes(value));
        ctx.check('FW-PROMPT-3', absent.length === 0, { message: `prompts/get ${name} returns messages whose text includes every argument`, actual: { absent, text: text.slice(0, 400) } });
      }
      const after = await useTool(session, 'list_conversations', { limit: 100 });
      ctx.check('FW-PROMPT-4', JSON.stringify(after) === JSON.stringify(before), {
        message: "getting the prompts leaves the user's conversations as they were",
        expected: before,
        actual: after,
      });
    },
  }),

  defineCase({
    id: 'fastworkflow/no-internal-resources',
    suite: SUITE,
    title: 'no workflow folders or action logs are exposed as resources (FW-PROMPT-5)',
    requirements: ['FW-PROMPT-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const capabilities = (await openSession(ctx)).capabilities;
      if (!isRecord(capabilities) || !Object.hasOwn(capabilities, 'resources')) {
        ctx.check('FW-PROMPT-5', true, { message: 'the server declares no resources capability, so it exposes no resources at all' });
        return;
      }
      const result = await setupResult(ctx, 'resources/list', {}, 'FW-PROMPT-5');
      const resources = (Array.isArray(result.resources) ? result.resources : []).filter(isRecord);
      const forbidden = resources.filter((r) => FORBIDDEN_RESOURCE.test(`${String(r.name)} ${String(r.uri)}`));
      ctx.check('FW-PROMPT-5', forbidden.length === 0, { message: 'resources/list lists no workflow folder or action log', expected: [], actual: forbidden });
    },
  }),
];
