// FW-STREAM: invoke_agent's trace events and final output (004 §6, §11.5, profile C-27). How the
// partial events travel is reported (FW-STREAM-1); their shapes and order are checked wherever
// they appear (FW-STREAM-2, FW-STREAM-5), and the final CommandOutput carries traces only when
// they were not streamed (FW-STREAM-3, FW-STREAM-4).
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  harmlessCommand,
  initializeTool,
  openMainSession,
  requiresFastWorkflow,
  runTurn,
  schemaProblems,
  streamEvent,
  SUITE,
  uniqueUser,
  workflowCommands,
  type McpSession,
  type TurnView,
} from './support.js';

async function agentTurn(ctx: CaseContext, progress: boolean): Promise<{ session: McpSession; turn: TurnView; query: string }> {
  const session = await openMainSession(ctx);
  await initializeTool(session, { user_id: uniqueUser(ctx) });
  const query = harmlessCommand(await workflowCommands(session));
  const turn = await runTurn(session, 'invoke_agent', { user_query: query }, progress ? { progressToken: `fw-${ctx.nextId()}`, timeoutMs: 8_000 } : { timeoutMs: 8_000 });
  return { session, turn, query };
}

/** FW-STREAM-5 over every trace event of a turn (streamed or attached). */
function checkTraceShapes(ctx: CaseContext, traces: readonly unknown[], where: string): void {
  const broken = traces.map((trace) => ({ trace, problems: schemaProblems('trace-event.payload', trace) })).filter((t) => t.problems.length > 0);
  ctx.check('FW-STREAM-5', broken.length === 0, {
    message: `${where}: each trace event has an integer timestamp (ms), direction agent_to_workflow|workflow_to_agent, and nullable raw_command, command_name, parameters, response_text, success`,
    actual: broken.slice(0, 3),
  });
}

export const streamingCases = [
  defineCase({
    id: 'fastworkflow/agent-streams-traces',
    suite: SUITE,
    title: 'invoke_agent streams trace events, then exactly one final output event, shaped as 004 §6 says (FW-STREAM-1, -2, -3, -5)',
    requirements: ['FW-STREAM-1', 'FW-STREAM-2', 'FW-STREAM-3', 'FW-STREAM-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const { turn } = await agentTurn(ctx, true);
      if (!ctx.check('FW-STREAM-2', turn.read.ok, { message: 'invoke_agent (with a progressToken) answers with its output', actual: turn.answer.response ?? 'no answer' })) return;
      ctx.info('FW-STREAM-1', `invoke_agent delivered: ${turn.delivery}`, { events: turn.events.length });
      if (turn.delivery === 'only the final output') {
        ctx.info('FW-STREAM-2', 'no events were streamed; the result is the final output only');
        const traces = isRecord(turn.output) && Array.isArray(turn.output.traces) ? turn.output.traces : [];
        checkTraceShapes(ctx, traces, 'traces attached to the output');
        ctx.info('FW-STREAM-3', 'no streaming was used, so the final output may carry traces');
        return;
      }
      const events = turn.events.map(streamEvent);
      const outputs = events.filter((e) => e?.type === 'output').length;
      const last = events[events.length - 1];
      const order = events.every((e, i) => e !== undefined && (i === events.length - 1 ? e.type === 'output' : e.type === 'trace'));
      ctx.check('FW-STREAM-2', order && outputs === 1 && last?.type === 'output', {
        message: 'the stream is {"type":"trace","data":...} events followed by exactly one {"type":"output","data":<CommandOutput>}, the last event',
        expected: 'trace* output',
        actual: { sequence: events.map((e) => e?.type ?? 'not an event'), final: turn.final },
      });
      const traces = events.filter((e) => e?.type === 'trace').map((e) => e!.data);
      checkTraceShapes(ctx, traces, 'streamed trace events');
      const output = isRecord(turn.output) ? turn.output : undefined;
      if (output && output.traces === null) ctx.info('FW-STREAM-3', 'the final CommandOutput has traces: null', output.traces);
      else if (output && !('traces' in output)) ctx.info('FW-STREAM-3', 'the final CommandOutput has no traces member (recommended)');
      ctx.check('FW-STREAM-3', output !== undefined && !Array.isArray(output.traces), {
        message: 'after streamed traces the final CommandOutput has no traces array',
        actual: output ? { traces: output.traces } : turn.final,
      });
    },
  }),

  defineCase({
    id: 'fastworkflow/agent-attaches-traces',
    suite: SUITE,
    title: 'without streaming, the traces of the turn are attached to the final CommandOutput (FW-STREAM-4, FW-STREAM-5)',
    requirements: ['FW-STREAM-4', 'FW-STREAM-5'],
    transports: ['http'],
    applies: requiresFastWorkflow,
    async run(ctx) {
      const { turn } = await agentTurn(ctx, false);
      if (!ctx.check('FW-STREAM-4', turn.read.ok, { message: 'invoke_agent (without a progressToken) answers with its output', actual: turn.answer.response ?? 'no answer' })) return;
      if (turn.delivery !== 'only the final output') {
        ctx.info('FW-STREAM-4', `the server streamed events although the call asked for no progress (${turn.delivery}); traces are then not attached`);
        checkTraceShapes(ctx, turn.events.map(streamEvent).filter((e) => e?.type === 'trace').map((e) => e!.data), 'streamed trace events');
        return;
      }
      const output = isRecord(turn.output) ? turn.output : undefined;
      const traces = output && Array.isArray(output.traces) ? output.traces : undefined;
      ctx.check('FW-STREAM-4', traces !== undefined && traces.length > 0, {
        message: 'the final CommandOutput of a turn that ran a command carries its trace events as traces',
        actual: output ? { traces: output.traces ?? 'absent' } : turn.final,
      });
      if (traces) checkTraceShapes(ctx, traces, 'attached traces');
    },
  }),
];
