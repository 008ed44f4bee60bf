// FW-TOOL: the ten tools of 004 §5, their results (§9 data contracts, C-33) and their input
// schemas. Members the documents do not name are INFO notes (rule 4).
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import { setupResult } from '../../support/session.js';
import { commandOutputShape, SKETCH } from './data-contracts.js';
import {
  callTool,
  checkFailure,
  EXPORT_TOOL,
  FASTWORKFLOW_TOOLS,
  harmlessCommand,
  initializeTool,
  INTERNAL_TOOLS,
  noteExtras,
  openMainSession,
  outputSucceeded,
  readPayload,
  requiresFastWorkflow,
  runTurn,
  shapeOf,
  SUITE,
  uniqueUser,
  useTool,
  workflowCommands,
} from '../../support/fastworkflow.js';

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

/** The members 004 §5.2 names for get_workflow_info. */
const WORKFLOW_INFO_MEMBERS = ['workflow_name', 'description', 'purpose', 'available_contexts'];

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
  if (read.ok) ctx.reading('FW-TOOL-3', read.reading === 'structuredContent' ? 1 : 2, `${tool}${read.others > 0 ? `, with ${read.others} further content item(s)` : ''}`);
  return read.ok ? read.value : undefined;
}

/** FW-TOOL-9 on one CommandOutput (its traces are FW-STREAM's): either reading of C-33, INFO naming it. */
function checkCommandOutput(ctx: CaseContext, output: unknown, what: string): void {
  const shape = commandOutputShape(output);
  ctx.check('FW-TOOL-9', shape.problems.length === 0, {
    message: `${what} is a CommandOutput: 004 §9's sketch (success, workflow_name, context, command_name, command_parameters, command_responses of response, artifacts, next_actions, recommendations) or FastWorkflow's canonical types`,
    actual: { output, problems: shape.problems.slice(0, 5) },
  });
  for (const reading of shape.readings) ctx.reading('FW-TOOL-9', reading === SKETCH ? 1 : 2, what);
  noteExtras(ctx, 'FW-TOOL-9', what, shape.extras);
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
      const shape = shapeOf('tool-get-workflow-info.output.payload', value);
      ctx.check('FW-TOOL-4', shape.problems.length === 0, { message: 'workflow_name, description, purpose are strings, available_contexts an array of strings, and there is no current_context', actual: { value, problems: shape.problems } });
      noteExtras(ctx, 'FW-TOOL-4', 'get_workflow_info', isRecord(value) ? Object.keys(value).filter((k) => !WORKFLOW_INFO_MEMBERS.includes(k)).map((k) => `/${k}`) : []);
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
      const shape = shapeOf('tool-get-commands.output.payload', value);
      ctx.check('FW-TOOL-5', shape.problems.length === 0, { message: 'display_text is a string; each command has name, description, parameters (name, type, required, description) and examples', actual: { problems: shape.problems.slice(0, 5) } });
      noteExtras(ctx, 'FW-TOOL-5', 'get_commands', shape.extras);
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
      if (!ctx.check('FW-TOOL-6', plain.output !== undefined, { message: `invoke_agent with user_query ${JSON.stringify(command)} and timeout_seconds 30 is answered with its output`, actual: plain.answer.response ?? 'no answer' })) return;
      if (outputSucceeded(plain.output) !== true) {
        ctx.info('FW-TOOL-6', `the agent did not report success for ${JSON.stringify(command)}, so the answer to "/${command}" cannot be compared with it`, plain.output);
        return;
      }
      const slashed = await runTurn(session, 'invoke_agent', { user_query: `/${command}` });
      const summary = (output: unknown) => ({ success: outputSucceeded(output), command_name: isRecord(output) ? output.command_name : undefined });
      ctx.check('FW-TOOL-6', JSON.stringify(summary(slashed.output)) === JSON.stringify(summary(plain.output)), {
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
      ctx.check('FW-TOOL-7', isRecord(value) && Array.isArray(value.command_responses), { message: 'invoke_assistant returns a CommandOutput (with its command_responses)', actual: value });
      checkCommandOutput(ctx, value, "invoke_assistant's result");
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
      checkCommandOutput(ctx, turn.output, "invoke_agent's final output");
    },
  }),

  defineCase({
    id: 'fastworkflow/execute-command',
    suite: SUITE,
    title: 'execute_command returns response_text, success and traces; a malformed command fails, with status 422 where it can be read (FW-TOOL-8)',
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
        const shape = shapeOf('tool-execute-command.output.payload', value);
        ctx.check('FW-TOOL-8', shape.problems.length === 0, {
          message: `execute_command ${JSON.stringify(command)} returns response_text (string), success (boolean) and, when traces were produced, traces (array)`,
          actual: { value, problems: shape.problems.slice(0, 5) },
        });
        noteExtras(ctx, 'FW-TOOL-8', 'execute_command', shape.extras);
        if (isRecord(value) && value.success !== true) ctx.info('FW-TOOL-8', `execute_command ${JSON.stringify(command)} ran but did not succeed`, value);
      }
      // An unclosed parameter tag: not a command string of the form QualifiedName <param>value</param>.
      const withParameter = commands.find((c) => c.parameters.length > 0);
      const malformed = `${withParameter?.name ?? command} <${withParameter?.parameters[0]?.name ?? 'value'}>unclosed`;
      checkFailure(ctx, 'FW-TOOL-8', await callTool(session, 'execute_command', { command: malformed }), 422, `execute_command with the malformed command ${JSON.stringify(malformed)}`);
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
