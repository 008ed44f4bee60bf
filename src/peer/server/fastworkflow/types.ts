// FastWorkflow's data contracts (004 §6.3, §9) as TypeScript types; the JSON Schemas in
// schemas/fastworkflow/ are the same shapes for validators.

/** A trace event (004 §6.3, CommandTraceEvent): every field present, the nullable ones null. */
export interface TraceEvent {
  /** Epoch milliseconds, an integer (FW-STREAM-5). */
  timestamp: number;
  direction: 'agent_to_workflow' | 'workflow_to_agent';
  raw_command: string | null;
  command_name: string | null;
  parameters: Record<string, unknown> | null;
  response_text: string | null;
  success: boolean | null;
}

export interface NextAction {
  command_name: string;
  arguments?: Record<string, unknown>;
}

/** CommandResponse (004 §9): each field present and nullable. */
export interface CommandResponse {
  response: string | null;
  artifacts: Record<string, unknown> | null;
  next_actions: NextAction[] | null;
  recommendations: string[] | null;
}

/** CommandOutput (004 §9); `traces` only when not streamed (FW-STREAM-3, FW-STREAM-4). */
export interface CommandOutput {
  success: boolean | null;
  workflow_name: string | null;
  context: string | null;
  command_name: string | null;
  command_parameters: Record<string, unknown> | null;
  command_responses: CommandResponse[];
  traces?: TraceEvent[] | null;
}

/** One line of the NDJSON stream of 004 §6.1. */
export type StreamEvent = { type: 'trace'; data: TraceEvent } | { type: 'output'; data: CommandOutput };

/** get_workflow_info's result (004 §5.2): never a current_context. */
export interface WorkflowInfo {
  workflow_name: string;
  description: string;
  purpose: string;
  available_contexts: string[];
}

export interface ParameterMetadata {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** One entry of get_commands (004 §5.3). */
export interface CommandMetadata {
  name: string;
  description: string;
  parameters: ParameterMetadata[];
  examples: string[];
}
