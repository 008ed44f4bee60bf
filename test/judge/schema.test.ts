// judgeMessage on the real schemas and catalog: each broken place is charged to the requirement
// that owns it (envelope members to the JSON-RPC rules, a prompt's parts to the prompt rules
// wherever the prompt sits, the rest by the words of the path), members the documents do not name
// are one extra-members finding, and a place no annotated requirement owns is charged to none.
import { describe, expect, it } from 'vitest';
import { requirements } from '../../src/protocol/requirements.js';
import { judgeMessage, type MessageContext } from '../../src/judge/index.js';
import { SchemaRegistry } from '../../src/schema/registry.js';

const registry = SchemaRegistry.load();
const catalog = requirements();
const S: MessageContext = { direction: 'server-to-client', protocolVersion: '2025-06-18' };
const judged = (message: unknown, context: MessageContext = S) =>
  judgeMessage(registry, catalog, message, context).findings.map((f) => `${f.kind} ${f.requirement ?? '(none)'} ${f.pointer}`);

const initResult = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
const prompt = (p: unknown) => ({ jsonrpc: '2.0', id: 'p1', method: 'interaction.prompt', params: { sessionId: 's', prompt: p } });

describe('judgeMessage', () => {
  it('charges the JSON-RPC envelope to its own rules', () => {
    expect(judged({ jsonrpc: '2', id: 1, result: initResult }, { ...S, requestMethod: 'initialize' })).toEqual(['violation CORE-RPC-1 /jsonrpc']);
    expect(judged({ jsonrpc: '2.0', id: 0.5, method: 'roots/list' })).toEqual(['violation CORE-RPC-3 /id']);
    expect(judged({ jsonrpc: '2.0', id: 1, method: 'roots/list', params: [1] })).toEqual(['violation CORE-RPC-2 /params']);
  });

  it('charges an initialize result to CORE-LIFE-3 and its capabilities to CORE-CAP-6, one finding per requirement', () => {
    const broken = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: true } } };
    expect(judged(broken, { ...S, requestMethod: 'initialize' }).sort()).toEqual(['violation CORE-CAP-6 /result/capabilities/tools', 'violation CORE-LIFE-3 /result']);
  });

  it('charges a prompt part to the prompt rule wherever the prompt sits', () => {
    expect(judged(prompt({ type: 'choice', message: 'Which?' }))).toEqual(['violation FLOW-PROMPT-4 /params/prompt']);
    expect(judged(prompt({ type: 'text' }))).toEqual(['violation FLOW-PROMPT-3 /params/prompt']);
    expect(judged(prompt({ type: 'text', message: 'Name?', validation: { required: 'yes' } }))).toEqual(['violation FLOW-PROMPT-5 /params/prompt/validation/required']);
  });

  it('keeps a failed anyOf as one place (its branches only explain it)', () => {
    const state = {
      jsonrpc: '2.0',
      id: 3,
      result: { sessionId: 's', state: 'waiting_user', metadata: { createdAt: 1, lastActivityAt: 1, toolName: 't' }, history: [], accumulatedData: {}, currentPrompt: { type: 'choice', message: 'x' } },
    };
    const [finding, ...rest] = judgeMessage(registry, catalog, state, { ...S, requestMethod: 'interaction.getState' }).findings;
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ kind: 'violation', requirement: 'FLOW-STATE-3', pointer: '/result/currentPrompt' });
    expect(finding!.issues[0]!.message).toMatch(/anyOf.*choices/);
  });

  it('gathers members the documents do not name into one extra-members finding', () => {
    const message = { jsonrpc: '2.0', id: 'p1', method: 'interaction.prompt', params: { sessionId: 's', prompt: { type: 'text', message: 'Name?', hint: 'h' }, ui: {} } };
    const [finding, ...rest] = judgeMessage(registry, catalog, message, S).findings;
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ kind: 'extra-members', schema: 'flow/interaction-prompt.request.schema.json' });
    expect(finding!.extraMembers.map((m) => m.pointer)).toEqual(['/params/prompt/hint', '/params/ui']);
  });

  it('charges a place no annotated requirement owns to none', () => {
    expect(judged({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: {} })).toEqual(['violation (none) /params']);
  });

  it('judges a result only when the request it answers is known, by the schema for its direction', () => {
    expect(judged({ jsonrpc: '2.0', id: 9, result: { tools: 'none' } })).toEqual([]);
    // roots/list is answered by the client: a server's answer is not judged by the client's result schema.
    expect(judged({ jsonrpc: '2.0', id: 9, result: { roots: 'none' } }, { ...S, requestMethod: 'roots/list' })).toEqual([]);
    expect(judged({ jsonrpc: '2.0', id: 9, result: { roots: 'none' } }, { ...S, direction: 'client-to-server', requestMethod: 'roots/list' })).toEqual(['violation CORE-CAP-7 /result/roots']);
  });

  it('on WebTransport judges the binding initialize extension and ref/stream items beside the core schema', () => {
    const wt = { ...S, webTransport: true };
    expect(judged({ jsonrpc: '2.0', id: 1, result: initResult }, { ...wt, requestMethod: 'initialize' })).toEqual(['violation WT-INIT-3 /result']);
    expect(judged({ jsonrpc: '2.0', id: 1, result: initResult }, { ...wt, requestMethod: 'initialize', bindingExtensions: false })).toEqual([]);
    const call = { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'ref/stream', streamTag: -1 }] } };
    expect(judged(call, { ...wt, requestMethod: 'tools/call' })).toEqual(['violation WT-EXEC-4 /result/content/0/streamTag']);
    expect(judged(call, { ...S, requestMethod: 'tools/call' })).toEqual(['violation CORE-TOOLS-3 /result/content/0']);
  });
});
