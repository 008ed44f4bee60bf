// FW-STREAM: invoke_agent's trace events and final output (004 §6, §11.5, profile C-27). How the
// partial events travel is reported (FW-STREAM-1); their shapes and order are checked wherever
// they appear (FW-STREAM-2, FW-STREAM-5), and the final CommandOutput carries traces only when
// they were not streamed (FW-STREAM-3, FW-STREAM-4; a server that emits no traces at all has them
// switched off at startup, which 004 §1 allows).
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { isRecord } from '../../../src/wire/index.js';
import {
  harmlessCommand,
  initializeTool,
  noteExtras,
  openMainSession,
  requiresFastWorkflow,
  runTurn,
  shapeOf,
  streamEvent,
  SUITE,
  uniqueUser,
  workflowCommands,
  type McpSession,
  type TurnView,
} from '../../support/fastworkflow.js';

/** An invoke_agent turn of a harmless command, asking for streamed progress or not. */
function turnOf(ctx: CaseContext, session: McpSession, query: string, progress: boolean): Promise<TurnView> {
  return runTurn(session, 'invoke_agent', { user_query: query }, progress ? { progressToken: `fw-${ctx.nextId()}`, timeoutMs: 8_000 } : { timeoutMs: 8_000 });
}

async function agentTurn(ctx: CaseContext, progress: boolean): Promise<{ session: McpSession; turn: TurnView; query: string }> {
  const session = await openMainSession(ctx);
  await initializeTool(session, { user_id: uniqueUser(ctx) });
  const query = harmlessCommand(await workflowCommands(session));
  return { session, turn: await turnOf(ctx, session, query, progress), query };
}

/** The trace events a turn streamed, in order. */
const streamedTraces = (turn: TurnView): unknown[] => turn.events.map(streamEvent).filter((e) => e?.type === 'trace').map((e) => e!.data);

/** FW-STREAM-5 over every trace event of a turn (streamed or attached); unnamed members are INFO. */
function checkTraceShapes(ctx: CaseContext, traces: readonly unknown[], where: string): void {
  const shapes = traces.map((trace) => ({ trace, ...shapeOf('trace-event.payload', trace) }));
  const broken = shapes.filter((t) => t.problems.length > 0).map(({ trace, problems }) => ({ trace, problems }));
  ctx.check('FW-STREAM-5', broken.length === 0, {
    message: `${where}: each trace event has an integer timestamp (ms), direction agent_to_workflow|workflow_to_agent, and nullable raw_command, command_name, parameters, response_text, success`,
    actual: broken.slice(0, 3),
  });
  noteExtras(ctx, 'FW-STREAM-5', where, shapes.flatMap((s) => s.extras));
}

/** FW-STREAM-1's accepted readings (their numbers in the catalog) by how the events travelled. */
const FW_STREAM_1_READINGS: Readonly<Record<TurnView['delivery'], number>> = {
  'trace events as notifications/progress or notifications/message during the call': 1,
  'NDJSON lines in the tool result': 2,
  'only the final output': 3,
};

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
      ctx.reading('FW-STREAM-1', FW_STREAM_1_READINGS[turn.delivery], `${turn.events.length} event(s)`);
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
      checkTraceShapes(ctx, streamedTraces(turn), 'streamed trace events');
      const output = isRecord(turn.output) ? turn.output : undefined;
      if (output && output.traces === null) ctx.reading('FW-STREAM-3', 2);
      else if (output && !('traces' in output)) ctx.reading('FW-STREAM-3', 1);
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
      const { session, turn, query } = await agentTurn(ctx, false);
      if (!ctx.check('FW-STREAM-4', turn.read.ok, { message: 'invoke_agent (without a progressToken) answers with its output', actual: turn.answer.response ?? 'no answer' })) return;
      if (turn.delivery !== 'only the final output') {
        ctx.info('FW-STREAM-4', `the server streamed events although the call asked for no progress (${turn.delivery}); traces are then not attached`);
        checkTraceShapes(ctx, streamedTraces(turn), 'streamed trace events');
        return;
      }
      const output = isRecord(turn.output) ? turn.output : undefined;
      const traces = output && Array.isArray(output.traces) ? output.traces : undefined;
      if (traces !== undefined && traces.length > 0) {
        ctx.check('FW-STREAM-4', true, { message: 'the final CommandOutput of a turn that ran a command carries its trace events as traces' });
        checkTraceShapes(ctx, traces, 'attached traces');
        return;
      }
      // No traces attached: fine only if the server emits none at all (traces off at startup, 004 §1).
      const streamed = await turnOf(ctx, session, query, true);
      const emitted = streamedTraces(streamed);
      if (emitted.length === 0) {
        ctx.info('FW-STREAM-4', 'the server emits no trace events, streamed or attached: traces are switched off at startup (004 §1), so nothing is owed', output ? { traces: output.traces ?? 'absent' } : turn.final);
        return;
      }
      ctx.check('FW-STREAM-4', false, {
        message: 'the final CommandOutput of a turn without streaming carries its trace events as traces (the server streams them when asked, so traces are on)',
        expected: { traces: 'array of trace events' },
        actual: { withoutStreaming: output ? { traces: output.traces ?? 'absent' } : turn.final, streamedTraces: emitted.length },
      });
    },
  }),
];
