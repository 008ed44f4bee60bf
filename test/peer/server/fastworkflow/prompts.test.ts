import { afterEach, describe, expect, it } from 'vitest';
import { RpcError } from '../../../../src/peer/server/extension.js';
import { Harness, registry } from './support.js';

const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.cleanup();
});
function harness(): Harness {
  const h = new Harness();
  harnesses.push(h);
  return h;
}

function prompts(h: Harness) {
  return {
    list: (ctx = h.ctx({ method: 'prompts/list' })) => h.ext.requests!['prompts/list']!({}, ctx) as Promise<Record<string, unknown>>,
    get: (params: unknown, ctx = h.ctx({ method: 'prompts/get' })) => h.ext.requests!['prompts/get']!(params, ctx) as Promise<Record<string, unknown>>,
  };
}

describe('prompts', () => {
  it('are declared as a capability and listed with their required arguments (FW-PROMPT-1, FW-PROMPT-2)', async () => {
    const h = harness();
    expect(h.ext.capabilities!(h.ctx())).toEqual({ prompts: { listChanged: false } });
    const listed = await prompts(h).list();
    const result = { jsonrpc: '2.0', id: 1, result: listed };
    expect(registry.validate('core/2025-06-18/prompts-list.result', result)).toEqual([]);
    const byName = Object.fromEntries((listed['prompts'] as { name: string; arguments: { name: string; required: boolean }[] }[]).map((p) => [p.name, p.arguments]));
    expect(Object.keys(byName).sort()).toEqual(['clarify-params', 'format-command']);
    expect(byName['format-command']!.map((a) => [a.name, a.required])).toEqual([['intent', true], ['metadata', true]]);
    expect(byName['clarify-params']!.map((a) => [a.name, a.required])).toEqual([['error_message', true], ['metadata', true]]);
  });

  it('render messages that include the arguments (FW-PROMPT-3)', async () => {
    const h = harness();
    const metadata = JSON.stringify({ name: 'TodoList/add_item', parameters: [{ name: 'title' }] });
    const format = await prompts(h).get({ name: 'format-command', arguments: { intent: 'remember to buy milk', metadata } });
    expect(registry.validate('core/2025-06-18/prompts-get.result', { jsonrpc: '2.0', id: 1, result: format })).toEqual([]);
    const text = (format['messages'] as { role: string; content: { text: string } }[])[0]!;
    expect(text.role).toBe('user');
    expect(text.content.text).toContain('remember to buy milk');
    expect(text.content.text).toContain(metadata);
    const clarify = await prompts(h).get({ name: 'clarify-params', arguments: { error_message: 'TodoList/add_item needs title', metadata: 'add_item(title)' } });
    const clarifyText = (clarify['messages'] as { content: { text: string } }[])[0]!.content.text;
    expect(clarifyText).toContain('TodoList/add_item needs title');
    expect(clarifyText).toContain('add_item(title)');
  });

  it.each([
    [{ name: 'plan-next-steps', arguments: {} }, 'unknown prompt'],
    [{ name: 'format-command', arguments: { intent: 'x' } }, 'metadata'],
    [{ name: 'clarify-params', arguments: { error_message: 'x', metadata: { not: 'a string' } } }, 'metadata'],
    [{ name: 'format-command', arguments: 'intent=x' }, 'must be an object'],
    [{ name: 'format-command' }, 'intent'],
  ])('prompts/get %j is -32602 (CORE-PROMPTS-3)', async (params, words) => {
    const h = harness();
    const error = await prompts(h).get(params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(-32602);
    expect((error as RpcError).message).toContain(words);
  });

  it('getting a prompt changes nothing in the session (FW-PROMPT-4)', async () => {
    const h = harness();
    await h.ok('initialize', { user_id: 'quinn' });
    await h.ok('execute_command', { command: 'TodoList/add_item <title>x</title>' });
    await h.ok('execute_command', { command: 'TodoList/select_item <item_id>1</item_id>' });
    const before = [await h.ok('list_conversations'), await h.ok('get_commands')];
    await prompts(h).get({ name: 'format-command', arguments: { intent: 'x', metadata: 'y' } });
    expect([await h.ok('list_conversations'), await h.ok('get_commands')]).toEqual(before);
  });

  it('a cursor is refused: prompts/list has one page', async () => {
    const h = harness();
    await expect(h.ext.requests!['prompts/list']!({ cursor: 'x' }, h.ctx())).rejects.toMatchObject({ code: -32602 });
  });
});

describe('resources', () => {
  it('are neither declared nor served (FW-PROMPT-5)', async () => {
    const h = harness();
    expect(h.ext.capabilities!(h.ctx())).not.toHaveProperty('resources');
    await expect(h.ext.requests!['resources/list']!({}, h.ctx({ method: 'resources/list' }))).rejects.toMatchObject({ code: -32601 });
    await expect(h.ext.requests!['resources/read']!({ uri: 'x' }, h.ctx({ method: 'resources/read' }))).rejects.toMatchObject({ code: -32601 });
  });
});
