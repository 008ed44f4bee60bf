// The flow, binding and fastworkflow schema sets are complete (one schema per message, prompt type,
// error code and tool) and cite only requirement IDs that the catalog (suites/requirements.json) defines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/index.js';

const registry = SchemaRegistry.load();
const files = new Set(registry.schemas().map((s) => s.file));
const catalog = JSON.parse(readFileSync(new URL('../../suites/requirements.json', import.meta.url), 'utf8')) as {
  requirements: Array<{ id: string }>;
};
const knownIds = new Set(catalog.requirements.map((r) => r.id));

const FLOW_METHODS = ['interaction-start', 'interaction-respond', 'interaction-cancel', 'interaction-getState', 'interaction-prompt', 'interaction-continue', 'interaction-complete', 'capabilities'];
const PROMPT_TYPES = ['text', 'choice', 'confirm', 'number', 'date', 'file', 'custom'];
const FLOW_ERRORS = ['session-not-found', 'session-expired', 'invalid-state-transition', 'validation-failed', 'timeout', 'already-cancelled', 'not-interactive'];
const BINDING = ['initialize.request', 'initialize.result', 'cancel.notification', 'shutdown.notification', 'streamError.notification', 'ref-stream.payload', 'datagram-progress.payload', 'datagram-log.payload', 'stream-limit-exceeded.error', 'invalid-stream-reference.error', 'stream-injection.error', 'encoding-mismatch.error', 'datagram-not-supported.error', 'cancelled.error'];
const TOOLS = ['initialize', 'get-workflow-info', 'get-commands', 'invoke-agent', 'invoke-assistant', 'execute-command', 'new-conversation', 'list-conversations', 'activate-conversation', 'post-feedback'];
const FW_OTHER = ['command-output', 'command-response', 'trace-event', 'ndjson-event', 'prompt-format-command.arguments', 'prompt-clarify-params.arguments', 'tool-error'];

const expected = [
  ...FLOW_METHODS.flatMap((m) => [`flow/${m}.request.schema.json`, `flow/${m}.result.schema.json`]),
  ...PROMPT_TYPES.map((t) => `flow/prompt-${t}.payload.schema.json`),
  ...FLOW_ERRORS.map((e) => `flow/${e}.error.schema.json`),
  'flow/stateless-token.payload.schema.json',
  'flow/defs.definition.schema.json',
  ...BINDING.map((b) => `binding/${b}.schema.json`),
  ...TOOLS.flatMap((t) => [`fastworkflow/tool-${t}.input.payload.schema.json`, `fastworkflow/tool-${t}.output.payload.schema.json`]),
  ...FW_OTHER.map((o) => `fastworkflow/${o}.payload.schema.json`),
  'fastworkflow/http-status.error.schema.json',
];

describe('profile schema sets', () => {
  it.each(expected)('has %s', (file) => {
    expect(files.has(file)).toBe(true);
  });

  it('gives every flow error schema its 000 code, and every binding error its 001 code', () => {
    const code = (file: string) =>
      ((registry.get(file).schema as { properties: { error: { properties: { code: { const: number } } } } }).properties.error.properties.code.const);
    expect(FLOW_ERRORS.map((e) => code(`flow/${e}.error`))).toEqual([-32001, -32002, -32003, -32004, -32005, -32006, -32007]);
    expect(['stream-limit-exceeded', 'invalid-stream-reference', 'stream-injection', 'encoding-mismatch', 'datagram-not-supported'].map((e) => code(`binding/${e}.error`))).toEqual([
      -32000, -32001, -32002, -32003, -32004,
    ]);
  });

  it('names the tool as the method of every FastWorkflow tool schema', () => {
    for (const tool of TOOLS) {
      const name = tool.replace(/-/g, '_');
      expect(registry.get(`fastworkflow/tool-${tool}.input.payload`).meta.method).toBe(name);
      expect(registry.get(`fastworkflow/tool-${tool}.output.payload`).meta.method).toBe(name);
    }
  });

  const mine = registry.schemas().filter((s) => s.meta.family !== 'core');
  it.each(mine.filter((s) => s.meta.kind !== 'definition').map((s) => [s.file, s] as const))('%s cites catalog requirement IDs', (_file, schema) => {
    const cited = schema.meta.requirements ?? [];
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter((id) => !knownIds.has(id))).toEqual([]);
  });

  it('gives every message schema of these families a direction and every schema a description', () => {
    for (const schema of mine) {
      if (schema.meta.kind !== 'definition') expect(schema.meta.direction, schema.file).toBeDefined();
      expect(typeof (schema.schema as { description?: unknown }).description, schema.file).toBe('string');
    }
  });
});
