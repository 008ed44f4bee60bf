// Interactive tools in tools/list, and what tools/call does with them: 000 §Graceful Degradation
// ("all params upfront", FLOW-CAP-6). The wizard runs without interaction: each step's answer is
// the argument named by its store key (or the prompt's defaultValue), validated exactly as
// interaction.respond would; a missing or invalid answer is a tool error (isError, C-18).
import type { ValidationOptions } from '../../../protocol/prompt-validation.js';
import type { RequestContext, ServerTool, ToolResult } from '../extension.js';
import { validateAnswer, type EnginePrompt } from './answers.js';
import { nextTarget, renderExport, renderPrompt, renderResult, stepById, type SessionRecord } from './session.js';
import { COMPLETE_TARGET, storeKey, type Wizard, type WizardStep } from './wizard.js';

function schemaOf(prompt: EnginePrompt): Record<string, unknown> {
  const rules = prompt.validation ?? {};
  const description = prompt.message;
  switch (prompt.type) {
    case 'text':
      return {
        type: 'string',
        description,
        ...(rules.pattern === undefined ? {} : { pattern: rules.pattern }),
        ...(typeof rules.min === 'number' ? { minLength: rules.min } : {}),
        ...(typeof rules.max === 'number' ? { maxLength: rules.max } : {}),
      };
    case 'number':
      return {
        type: 'number',
        description,
        ...(typeof rules.min === 'number' ? { minimum: rules.min } : {}),
        ...(typeof rules.max === 'number' ? { maximum: rules.max } : {}),
      };
    case 'confirm':
      return { type: 'boolean', description };
    case 'date':
      return { type: 'string', format: 'date', description };
    case 'choice': {
      const values = (prompt.choices ?? []).map((c) => c.value);
      return prompt.multiple === true ? { type: 'array', items: { enum: values }, uniqueItems: true, description } : { enum: values, description };
    }
    case 'file': {
      const file = {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, mimeType: { type: 'string' }, size: { type: 'integer', minimum: 0 }, uri: { type: 'string' }, content: { type: 'string' } },
      };
      return prompt.multiple === true ? { type: 'array', items: file, description } : { ...file, description };
    }
    case 'custom':
      return { description };
  }
}

/** The tools/list inputSchema of a wizard: one property per store key. */
export function inputSchemaOf(wizard: Wizard): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const step of wizard.steps) properties[storeKey(step)] ??= schemaOf(step.prompt);
  return { type: 'object', properties };
}

function toolError(text: string): ToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Runs a wizard with every answer given up front. */
export function runWizardOnce(wizard: Wizard, args: Record<string, unknown>, options: ValidationOptions = {}): ToolResult {
  const record: SessionRecord = {
    id: 'tools-call',
    toolName: wizard.name,
    wizardName: wizard.name,
    connectionId: '',
    state: 'processing',
    createdAt: 0,
    lastActivityAt: 0,
    timeoutMs: 1,
    stepId: null,
    currentPrompt: null,
    history: [],
    accumulatedData: {},
    promptCount: 0,
    params: {},
    context: {},
  };
  const visited = new Set<string>();
  let step: WizardStep | undefined = wizard.steps[0];
  while (step !== undefined) {
    if (visited.has(step.id)) {
      return toolError(`The answers lead back to step "${step.id}"; use interaction.start to change them interactively.`);
    }
    visited.add(step.id);
    const key = storeKey(step);
    const value = Object.hasOwn(args, key) ? args[key] : step.prompt.defaultValue;
    const outcome = validateAnswer(renderPrompt(step, record), value, options);
    if (!outcome.valid) {
      return toolError(`Invalid argument "${key}": ${outcome.error}${outcome.suggestion === undefined ? '' : ` (${outcome.suggestion})`}`);
    }
    if (value !== undefined) record.accumulatedData[key] = value;
    const target = nextTarget(wizard, step, record.accumulatedData);
    step = target === COMPLETE_TARGET ? undefined : stepById(wizard, target);
  }
  const { data, summary } = renderResult(wizard, record);
  const content: unknown[] = [{ type: 'text', text: summary ?? JSON.stringify(data) }];
  const file = renderExport(wizard, record.accumulatedData, record.params);
  if (file !== undefined) {
    content.push({ type: 'resource', resource: { uri: `file:///${encodeURIComponent(file.fileName)}`, mimeType: file.mimeType, text: file.bytes.toString('utf8') } });
  }
  return { content, structuredContent: data };
}

/** The wizards as tools/list entries; tools/call runs them with all answers up front. */
export function wizardTools(wizards: Iterable<Wizard>, validation: ValidationOptions): ServerTool[] {
  return [...wizards].map((wizard) => ({
    name: wizard.name,
    ...(wizard.title === undefined ? {} : { title: wizard.title }),
    description: `${wizard.description} Interactive (MCP Flow): use interaction.start, or tools/call with every answer as an argument.`,
    inputSchema: inputSchemaOf(wizard),
    call: async (args: Record<string, unknown>, _ctx: RequestContext) => runWizardOnce(wizard, args, validation),
  }));
}
