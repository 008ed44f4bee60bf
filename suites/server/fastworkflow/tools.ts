// FW-TOOL: the ten tools of 004 §5, their results (§9 data contracts) and their input schemas.
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import { setupResult } from '../support.js';
import {
  callTool,
  checkStatus,
  EXPORT_TOOL,
  FASTWORKFLOW_TOOLS,
  harmlessCommand,
  initializeTool,
  INTERNAL_TOOLS,
  openMainSession,
  readPayload,
  requiresFastWorkflow,
  runTurn,
  schemaProblems,
  SUITE,
  uniqueUser,
  useTool,
  workflowCommands,
} from './support.js';

/** The parameters 004 §5 documents per tool, with the JSON types each may have (FW-TOOL-10). */
const DOCUMENTED_PARAMETERS: Record<string, Record<string, readonly string[]>> = {
  initialize: { user_id: ['string'], conversation_id: ['string', 'null'] },
  invoke_agent: { user_query: ['string'], timeout_seconds: ['number', 'integer'] },
  invoke_assistant: { user_query: ['string'], timeout_seconds: ['number', 'integer'] },
  execute_command: { command: ['string'] },
  list_conversations: { limit: ['integer', 'number'] },
  activate_conversation: { conversation_id: ['string'] },
  post_feedback: { binary_or_numeric_score: ['boolean', 'number', 'integer', 'null'], nl_feedback: ['string', 'null'] },
};

/** The JSON types a property schema admits (type, or the types of its anyOf/oneOf branches). */
function typesOf(schema: unknown): string[] {
  if (!isRecord(schema)) return [];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  const branches = [...(Array.isArray(schema.anyOf) ? schema.anyOf : []), ...(Array.isArray(schema.oneOf) ? schema.oneOf : [])];
  return branches.flatMap(typesOf);
}

async function listedTools(ctx: CaseContext, requirement: string): Promise<Record<string, unknown>[]> {
  const result = await setupResult(ctx, 'tools/list', {}, requirement);
  return (Array.isArray(result.tools) ? result.tools : []).filter(isRecord);
}

/** FW-TOOL-3: records the reading and checks that the payload could be read at all. */
function checkPayload(ctx: CaseContext, tool: string, response: Record<string, unknown> | undefined): unknown {
  const read = readPayload(response);
  if (!ctx.check('FW-TOOL-3', read.ok, { message: `${tool}'s result carries its JSON object as structuredContent or as the JSON text of one text item`, actual: read.ok ? undefined : { problem: read.why, answer: response ?? 'no answer' } })) return undefined;
  if (read.ok) ctx.info('FW-TOOL-3', `${tool}: ${read.reading}`);
  return read.ok ? read.value : undefined;
}

export const toolCases = [
  defineCase({
    id: 'fastworkflow/tool-surface',
    suite: SUITE,
    title: 'tools/list has all ten FastWorkflow tools and no agent-internal or admin tool (FW-TOOL-1, FW-TOOL-2)',
    requirements: ['FW-TOOL-1', 'FW-TOOL-2'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      await openMainSession(ctx);
      const names = (await listedTools(ctx, 'FW-TOOL-1')).map((t) => String(t.name));
      const missing = FASTWORKFLOW_TOOLS.filter((name) => !names.includes(name));
      ctx.check('FW-TOOL-1', missing.length === 0, { message: 'tools/list includes the ten tools of 004 §5', expected: FASTWORKFLOW_TOOLS, actual: { missing, listed: names } });
      const internal = names.filter((name) => (INTERNAL_TOOLS as readonly string[]).includes(name) || EXPORT_TOOL.test(name));
      ctx.check('FW-TOOL-2', internal.length === 0, { message: 'tools/list exposes no agent-internal or admin tool (ask_user, intent_misunderstood, perform_action, dump_all_conversations, export tools)', expected: [], actual: internal });
    },
  }),

  defineCase({
    id: 'fastworkflow/input-schemas',
    suite: SUITE,
    title: "each tool's inputSchema declares the documented parameters with their types (FW-TOOL-10)",
    requirements: ['FW-TOOL-10'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      await openMainSession(ctx);
      const tools = await listedTools(ctx, 'FW-TOOL-10');
      for (const [name, parameters] of Object.entries(DOCUMENTED_PARAMETERS)) {
        const tool = tools.find((t) => t.name === name);
        if (!tool) continue;
        const properties = isRecord(tool.inputSchema) && isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
        const wrong = Object.entries(parameters).flatMap(([parameter, allowed]) => {
          const types = typesOf(properties[parameter]);
          return types.length > 0 && types.every((t) => allowed.includes(t)) ? [] : [{ parameter, declared: properties[parameter] ?? 'missing', allowed }];
        });
        ctx.check('FW-TOOL-10', wrong.length === 0, { message: `${name}'s inputSchema declares ${Object.keys(parameters).join(', ')} with their documented types`, actual: wrong });
      }
    },
  }),

  defineCase({
    id: 'fastworkflow/workflow-info',
    suite: SUITE,
    title: 'get_workflow_info returns workflow_name, description, purpose and available_contexts, without current_context (FW-TOOL-3, FW-TOOL-4)',
    requirements: ['FW-TOOL-3', 'FW-TOOL-4'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const value = checkPayload(ctx, 'get_workflow_info', (await callTool(session, 'get_workflow_info')).response);
      if (value === undefined) return;
      const problems = schemaProblems('tool-get-workflow-info.output.payload', value);
      ctx.check('FW-TOOL-4', problems.length === 0, { message: 'workflow_name, description, purpose are strings, available_contexts an array of strings, and there is no current_context', actual: { value, problems } });
    },
  }),

  defineCase({
    id: 'fastworkflow/commands',
    suite: SUITE,
    title: 'get_commands returns display_text and commands with name, description, parameters and examples (FW-TOOL-5)',
    requirements: ['FW-TOOL-3', 'FW-TOOL-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const value = checkPayload(ctx, 'get_commands', (await callTool(session, 'get_commands')).response);
      if (value === undefined) return;
      const problems = schemaProblems('tool-get-commands.output.payload', value);
      ctx.check('FW-TOOL-5', problems.length === 0, { message: 'display_text is a string; each command has name, description, parameters (name, type, required, description) and examples', actual: { problems: problems.slice(0, 5) } });
      const commands = isRecord(value) && Array.isArray(value.commands) ? value.commands : [];
      ctx.check('FW-TOOL-5', commands.length > 0, { message: 'the active context has at least one command', actual: commands.length });
    },
  }),

  defineCase({
    id: 'fastworkflow/agent-strips-slash',
    suite: SUITE,
    title: 'invoke_agent takes user_query and timeout_seconds and strips a leading "/" (FW-TOOL-6)',
    requirements: ['FW-TOOL-6'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    timeLimitMs: 15_000,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const command = harmlessCommand(await workflowCommands(session));
      const plain = await runTurn(session, 'invoke_agent', { user_query: command, timeout_seconds: 30 });
      const slashed = await runTurn(session, 'invoke_agent', { user_query: `/${command}` });
      const summary = (output: unknown) => (isRecord(output) ? { success: output.success, command_name: output.command_name } : output);
      const ok = (output: unknown) => isRecord(output) && output.success === true;
      ctx.check('FW-TOOL-6', ok(plain.output), { message: `invoke_agent with user_query ${JSON.stringify(command)} and timeout_seconds 30 succeeds`, actual: plain.answer.response ?? 'no answer' });
      ctx.check('FW-TOOL-6', ok(slashed.output) && JSON.stringify(summary(slashed.output)) === JSON.stringify(summary(plain.output)), {
        message: `"/${command}" is understood as "${command}" (the leading "/" is stripped)`,
        expected: summary(plain.output),
        actual: slashed.answer.response ? summary(slashed.output) : 'no answer',
      });
    },
  }),

  defineCase({
    id: 'fastworkflow/assistant-output',
    suite: SUITE,
    title: 'invoke_assistant returns a CommandOutput (FW-TOOL-7, FW-TOOL-9)',
    requirements: ['FW-TOOL-3', 'FW-TOOL-7', 'FW-TOOL-9'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const command = harmlessCommand(await workflowCommands(session));
      const value = checkPayload(ctx, 'invoke_assistant', (await callTool(session, 'invoke_assistant', { user_query: command, timeout_seconds: 30 })).response);
      if (value === undefined) return;
      const problems = schemaProblems('tool-invoke-assistant.output.payload', value);
      ctx.check('FW-TOOL-7', isRecord(value) && 'command_responses' in value && 'success' in value, { message: 'invoke_assistant returns a CommandOutput (success, command_responses...)', actual: value });
      ctx.check('FW-TOOL-9', problems.length === 0, {
        message: 'the CommandOutput has success, workflow_name, context, command_name, command_parameters and command_responses (each with response, artifacts, next_actions, recommendations)',
        actual: { value, problems: problems.slice(0, 5) },
      });
    },
  }),

  defineCase({
    id: 'fastworkflow/agent-output',
    suite: SUITE,
    title: "invoke_agent's final output is a CommandOutput (FW-TOOL-9)",
    requirements: ['FW-TOOL-9'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const command = harmlessCommand(await workflowCommands(session));
      const turn = await runTurn(session, 'invoke_agent', { user_query: command });
      if (!ctx.check('FW-TOOL-9', turn.output !== undefined, { message: 'invoke_agent answers with its output', actual: turn.answer.response ?? 'no answer' })) return;
      const output = isRecord(turn.output) ? { ...turn.output } : turn.output;
      if (isRecord(output)) delete output.traces; // traces are FW-STREAM's business
      const problems = schemaProblems('command-output.payload', output);
      ctx.check('FW-TOOL-9', problems.length === 0, { message: 'the final output is a CommandOutput with every documented field', actual: { output, problems: problems.slice(0, 5) } });
    },
  }),

  defineCase({
    id: 'fastworkflow/execute-command',
    suite: SUITE,
    title: 'execute_command returns response_text, success and traces; a malformed command fails with a 422-equivalent error (FW-TOOL-8)',
    requirements: ['FW-TOOL-3', 'FW-TOOL-8'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      await initializeTool(session, { user_id: uniqueUser(ctx) });
      const commands = await workflowCommands(session);
      const command = harmlessCommand(commands);
      const value = checkPayload(ctx, 'execute_command', (await callTool(session, 'execute_command', { command })).response);
      if (value !== undefined) {
        const problems = schemaProblems('tool-execute-command.output.payload', value);
        ctx.check('FW-TOOL-8', problems.length === 0 && isRecord(value) && value.success === true, {
          message: `execute_command ${JSON.stringify(command)} returns response_text (string), success true and, when traces were produced, traces (array)`,
          actual: { value, problems: problems.slice(0, 5) },
        });
      }
      // An unclosed parameter tag: not a command string of the form QualifiedName <param>value</param>.
      const withParameter = commands.find((c) => c.parameters.length > 0);
      const malformed = `${withParameter?.name ?? command} <${withParameter?.parameters[0]?.name ?? 'value'}>unclosed`;
      checkStatus(ctx, 'FW-TOOL-8', await callTool(session, 'execute_command', { command: malformed }), 422, `execute_command with the malformed command ${JSON.stringify(malformed)}`);
    },
  }),

  defineCase({
    id: 'fastworkflow/conversation-results',
    suite: SUITE,
    title: 'conversation and feedback tools carry their documented JSON objects (FW-TOOL-3)',
    requirements: ['FW-TOOL-3'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const session = await openMainSession(ctx);
      const initialize = checkPayload(ctx, 'initialize', (await callTool(session, 'initialize', { user_id: uniqueUser(ctx) })).response);
      if (initialize === undefined) return;
      // A turn first, so that feedback has a turn to attach to.
      await useTool(session, 'invoke_assistant', { user_query: harmlessCommand(await workflowCommands(session)) });
      for (const [tool, args] of [
        ['post_feedback', { binary_or_numeric_score: 1, nl_feedback: 'conformance check' }],
        ['list_conversations', {}],
        ['new_conversation', {}],
      ] as const) {
        const value = checkPayload(ctx, tool, (await callTool(session, tool, args)).response);
        if (value !== undefined) ctx.check('FW-TOOL-3', isRecord(value), { message: `${tool}'s JSON is an object`, actual: value });
      }
    },
  }),
];
