// identify() on the real schemas/: a sample of messages from each family gets the right schema first.
import { describe, expect, it } from 'vitest';
import { type IdentifyContext, SchemaRegistry } from '../../src/schema/index.js';

const registry = SchemaRegistry.load();

const cases: Array<[string, unknown, IdentifyContext, string]> = [
  ['interaction.start request', { jsonrpc: '2.0', id: 1, method: 'interaction.start', params: { toolName: 'booking' } }, {}, 'flow/interaction-start.request.schema.json'],
  ['interaction.prompt request (server to client)', { jsonrpc: '2.0', id: 'p1', method: 'interaction.prompt', params: { sessionId: 's', prompt: { type: 'confirm', message: 'Sure?' } } }, {}, 'flow/interaction-prompt.request.schema.json'],
  ['interaction.prompt result without a request method', { jsonrpc: '2.0', id: 2, result: { acknowledged: true } }, {}, 'flow/interaction-'],
  ['interaction.respond result', { jsonrpc: '2.0', id: 3, result: { accepted: true, validation: { valid: true } } }, {}, 'flow/interaction-respond.result.schema.json'],
  ['interaction.getState result by request method', { jsonrpc: '2.0', id: 7, result: { sessionId: 's', state: 'idle', metadata: { createdAt: 1, lastActivityAt: 1, toolName: 't' }, history: [], accumulatedData: {} } }, { requestMethod: 'interaction.getState' }, 'flow/interaction-getState.result.schema.json'],
  ['capabilities result', { jsonrpc: '2.0', id: 1, result: { interactive: true, version: '0.1.0' } }, { families: ['flow'] }, 'flow/capabilities.result.schema.json'],
  ['flow error with sessionId', { jsonrpc: '2.0', id: 1, error: { code: -32006, message: 'Session already cancelled', data: { sessionId: 's' } } }, { families: ['flow'] }, 'flow/already-cancelled.error.schema.json'],
  ['binding cancelled reply', { jsonrpc: '2.0', id: 99, error: { code: -32000, message: 'Cancelled' } }, { families: ['binding'] }, 'binding/cancelled.error.schema.json'],
  ['binding encoding mismatch with a null id', { jsonrpc: '2.0', id: null, error: { code: -32003, message: 'Encoding mismatch' } }, { families: ['binding'] }, 'binding/encoding-mismatch.error.schema.json'],
  ['$/streamError', { jsonrpc: '2.0', method: '$/streamError', params: { requestId: 42, streamTag: 1, error: 'reset' } }, {}, 'binding/streamError.notification.schema.json'],
  ['$/shutdown', { jsonrpc: '2.0', method: '$/shutdown' }, {}, 'binding/shutdown.notification.schema.json'],
  ['ref/stream content item', { type: 'ref/stream', streamTag: 1, mimeType: 'text/plain' }, {}, 'binding/ref-stream.payload.schema.json'],
  ['log datagram', { level: 'warning', data: 'low disk' }, { families: ['binding'] }, 'binding/datagram-log.payload.schema.json'],
  ['NDJSON output event', { type: 'output', data: { success: true, workflow_name: 'w', context: 'c', command_name: null, command_parameters: null, command_responses: [] } }, {}, 'fastworkflow/ndjson-event.payload.schema.json'],
  ['trace event', { timestamp: 1, direction: 'workflow_to_agent', raw_command: null, command_name: null, parameters: null, response_text: 'ok', success: true }, {}, 'fastworkflow/trace-event.payload.schema.json'],
  ['execute_command arguments', { command: 'what_is_current_context' }, { families: ['fastworkflow'] }, 'fastworkflow/tool-execute-command.input.payload.schema.json'],
];

describe('identify', () => {
  it.each(cases)('%s', (_name, message, context, expected) => {
    const [best] = registry.identify(message, context);
    expect(best?.schema.file).toContain(expected);
    expect(best?.issues).toEqual([]);
  });

  it('explains an invalid request through the schema for its method, with pointer and keyword', () => {
    const [best, ...rest] = registry.identify({ jsonrpc: '2.0', id: 1, method: 'interaction.respond', params: { sessionId: 's', response: {} } });
    expect(rest).toEqual([]);
    expect(best?.schema.file).toBe('flow/interaction-respond.request.schema.json');
    expect(best?.issues.map((i) => [i.instancePath, i.keyword])).toEqual([['/params/response', 'required']]);
  });

  it('picks the binding initialize schema out of core and binding candidates by what the message fails', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'c', version: '1' }, transport: { type: 'quic', version: '0.1' } } };
    const candidates = registry.identify(message, { protocolVersion: '2024-11-05' });
    const binding = candidates.find((c) => c.schema.file === 'binding/initialize.request.schema.json');
    expect(binding?.issues.map((i) => [i.instancePath, i.keyword])).toEqual([['/params/transport/type', 'const']]);
    expect(candidates.every((c) => c.schema.meta.protocolVersion === undefined || c.schema.meta.protocolVersion === '2024-11-05')).toBe(true);
  });

  it('finds schemas by family, kind and method', () => {
    expect(registry.find({ family: 'flow', kind: 'request' }).map((s) => s.meta.method).sort()).toEqual(
      ['capabilities', 'interaction.cancel', 'interaction.complete', 'interaction.continue', 'interaction.getState', 'interaction.prompt', 'interaction.respond', 'interaction.start'],
    );
    expect(registry.find({ family: 'fastworkflow', method: 'post_feedback' }).map((s) => s.file).sort()).toEqual([
      'fastworkflow/tool-post-feedback.input.payload.schema.json',
      'fastworkflow/tool-post-feedback.output.payload.schema.json',
    ]);
  });
});
