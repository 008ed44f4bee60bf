// Running commands as a turn: each command yields two trace events (agent_to_workflow with the
// command, workflow_to_agent with the answer; 004 §6.3) and one CommandResponse; the turn ends in
// one CommandOutput (004 §9).
import type { ParsedCommand } from './command-syntax.js';
import type { CommandOutput, CommandResponse, TraceEvent } from './types.js';
import { commandString, WORKFLOW_NAME, type CommandResult, type ExecutionEnvironment, type ResolvedCommand, type TodoWorkflow } from './workflow.js';

export interface TurnEnvironment extends ExecutionEnvironment {
  /** Epoch milliseconds for trace timestamps. */
  now(): number;
  /** Called with each trace event as soon as it exists (streamed or collected by the caller). */
  emit(trace: TraceEvent): Promise<void>;
  /** Fault trace-timestamp-in-seconds (FW-STREAM-5). */
  timestampsInSeconds?: boolean;
}

/** What a turn produced: its CommandOutput (without traces) and the traces in order. */
export interface TurnOutcome {
  output: CommandOutput;
  traces: TraceEvent[];
}

function timestamp(env: TurnEnvironment): number {
  const ms = Math.trunc(env.now());
  if (!env.timestampsInSeconds) return ms;
  const seconds = ms / 1000;
  return Number.isInteger(seconds) ? seconds + 0.0005 : seconds;
}

function responseOf(result: CommandResult): CommandResponse {
  return {
    response: result.response,
    artifacts: result.artifacts ?? null,
    next_actions: result.next_actions ?? null,
    recommendations: result.recommendations ?? null,
  };
}

/** Collects traces and responses over the commands of one turn. */
export class TurnRecorder {
  readonly traces: TraceEvent[] = [];
  readonly responses: CommandResponse[] = [];
  #success = true;
  #last: ResolvedCommand | undefined;
  readonly #workflow: TodoWorkflow;
  readonly #env: TurnEnvironment;

  constructor(workflow: TodoWorkflow, env: TurnEnvironment) {
    this.#workflow = workflow;
    this.#env = env;
  }

  async #trace(event: Omit<TraceEvent, 'timestamp'>): Promise<void> {
    const trace: TraceEvent = { timestamp: timestamp(this.#env), ...event };
    this.traces.push(trace);
    await this.#env.emit(trace);
  }

  /** Resolves and runs one command (it must resolve: callers validate first); false when it did not succeed. */
  async run(command: ParsedCommand | ResolvedCommand): Promise<boolean> {
    const resolved = this.#workflow.resolve({ name: command.name, parameters: Object.fromEntries(Object.entries(command.parameters).map(([k, v]) => [k, String(v)])) });
    this.#env.signal.throwIfAborted();
    await this.#trace({
      direction: 'agent_to_workflow',
      raw_command: commandString(resolved),
      command_name: resolved.name,
      parameters: { ...resolved.parameters },
      response_text: null,
      success: null,
    });
    const result = await this.#workflow.execute(resolved, this.#env);
    this.#env.signal.throwIfAborted();
    await this.#trace({
      direction: 'workflow_to_agent',
      raw_command: null,
      command_name: resolved.name,
      parameters: null,
      response_text: result.response,
      success: result.success,
    });
    this.responses.push(responseOf(result));
    this.#last = resolved;
    if (!result.success) this.#success = false;
    return result.success;
  }

  /** A response that ran no command (e.g. a query that could not be understood). */
  note(response: Omit<CommandResponse, 'artifacts' | 'next_actions' | 'recommendations'> & Partial<CommandResponse>, success: boolean): void {
    this.responses.push({ artifacts: null, next_actions: null, recommendations: null, ...response });
    if (!success) this.#success = false;
  }

  /** The turn's CommandOutput (without traces) and its traces. */
  outcome(): TurnOutcome {
    const output: CommandOutput = {
      success: this.#success,
      workflow_name: WORKFLOW_NAME,
      context: this.#workflow.context,
      command_name: this.#last?.name ?? null,
      command_parameters: this.#last ? { ...this.#last.parameters } : null,
      command_responses: this.responses,
    };
    return { output, traces: this.traces };
  }
}
