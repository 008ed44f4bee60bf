// The readings of the FastWorkflow profile the mock takes where 004 leaves a choice (docs/profile.md
// C-13, C-26, C-27, C-33, C-34), one switch each. The 'recommended' preset is the reference mock;
// the 'alternate' preset (mock-server --readings alternate) takes another accepted reading at
// every switch, so that the suite is shown to pass each of them.
import type { MockReadings } from '../readings.js';
import { FastWorkflowOptionsError, FAILURE_STYLES, type FailureStyle, type FastWorkflowHttpStatus } from './errors.js';

/**
 * How invoke_agent delivers trace events (C-27, FW-STREAM-1):
 * - `auto`: streamed as notifications/progress when the call carries a progressToken (the MCP
 *   counterpart of asking for a stream), else attached to the result;
 * - `ndjson`: when the call carries a progressToken, the tool result is the NDJSON stream itself
 *   (one text item, an event per line, as fastapi_mcp passes a streaming endpoint through), else
 *   attached;
 * - `notifications/progress`, `notifications/message`: always streamed that way;
 * - `attached`: never streamed; traces are part of the CommandOutput.
 * Streamed events are `{"type":"trace","data":...}` (progress: as the JSON text of `message`;
 * message: as `data`), and the tool result is then `{"type":"output","data":CommandOutput}`.
 */
export type TraceDelivery = 'auto' | 'ndjson' | 'notifications/progress' | 'notifications/message' | 'attached';
export const TRACE_DELIVERIES: readonly TraceDelivery[] = ['auto', 'ndjson', 'notifications/progress', 'notifications/message', 'attached'];

/** One failure style for every status, or one per status (statuses not named take `data.httpStatus`). */
export type FailureStyles = FailureStyle | Partial<Record<FastWorkflowHttpStatus, FailureStyle>>;

export interface FastWorkflowReadings {
  /** C-27, FW-STREAM-1. */
  traceDelivery: TraceDelivery;
  /** C-26, FW-ERR-4: how a failure's status travels. */
  failureStyle: FailureStyles;
  /** C-13, FW-TOOL-3: results as structuredContent (plus the same JSON as text), or as one JSON text item only. */
  resultEncoding: 'structuredContent' | 'text';
  /** C-33, FW-TOOL-9: CommandOutput as 004 §9's sketch or as FastWorkflow's canonical types. */
  dataContracts: 'sketch' | 'canonical';
  /** Rule 4: results carry members 004 does not name (user_id next to workflow_info, created_at, turn_key...). */
  extraMembers: boolean;
  /** C-34, FW-CONV-3: list every conversation, or only those new_conversation stored. */
  listing: 'all' | 'stored';
  /** FW-STREAM-3: after streamed traces the final CommandOutput has no traces member, or traces: null. */
  streamedTraces: 'absent' | 'null';
  /** FW-TRANSPORT-4: the HTTP status for an Mcp-Session-Id the server never issued (a terminated one is always 404). */
  unknownSession: 404 | 400;
}

export const RECOMMENDED_READINGS: Readonly<FastWorkflowReadings> = Object.freeze({
  traceDelivery: 'auto',
  failureStyle: 'data.httpStatus',
  resultEncoding: 'structuredContent',
  dataContracts: 'sketch',
  extraMembers: false,
  listing: 'all',
  streamedTraces: 'absent',
  unknownSession: 404,
});

/** Every other accepted reading: each status in another encoding of C-26, fastapi_mcp's text for 409, 500 and 504. */
export const ALTERNATE_READINGS: Readonly<FastWorkflowReadings> = Object.freeze({
  traceDelivery: 'ndjson',
  failureStyle: Object.freeze({ 404: 'code', 422: 'isError', 409: 'text', 500: 'text', 504: 'text' }) as FailureStyles,
  resultEncoding: 'text',
  dataContracts: 'canonical',
  extraMembers: true,
  listing: 'stored',
  streamedTraces: 'null',
  unknownSession: 400,
});

/** The switches of a preset, with individual switches overriding it. */
export function resolveReadings(preset: MockReadings = 'recommended', overrides: Partial<FastWorkflowReadings> = {}): FastWorkflowReadings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) as Partial<FastWorkflowReadings>;
  const readings = { ...(preset === 'alternate' ? ALTERNATE_READINGS : RECOMMENDED_READINGS), ...defined };
  checkReadings(readings);
  return readings;
}

function oneOf<T>(option: string, value: T, allowed: readonly T[]): void {
  if (!allowed.includes(value)) throw new FastWorkflowOptionsError(option, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, not ${JSON.stringify(value)}`);
}

function checkReadings(r: FastWorkflowReadings): void {
  oneOf('traceDelivery', r.traceDelivery, TRACE_DELIVERIES);
  if (typeof r.failureStyle === 'string') oneOf('failureStyle', r.failureStyle, FAILURE_STYLES);
  else if (typeof r.failureStyle === 'object' && r.failureStyle !== null) {
    for (const [status, style] of Object.entries(r.failureStyle)) {
      oneOf('failureStyle', Number(status), [404, 409, 422, 500, 504]);
      oneOf('failureStyle', style, FAILURE_STYLES);
    }
  } else throw new FastWorkflowOptionsError('failureStyle', `must be a style or an object of styles by status, not ${JSON.stringify(r.failureStyle)}`);
  oneOf('resultEncoding', r.resultEncoding, ['structuredContent', 'text'] as const);
  oneOf('dataContracts', r.dataContracts, ['sketch', 'canonical'] as const);
  oneOf('extraMembers', r.extraMembers, [true, false]);
  oneOf('listing', r.listing, ['all', 'stored'] as const);
  oneOf('streamedTraces', r.streamedTraces, ['absent', 'null'] as const);
  oneOf('unknownSession', r.unknownSession, [404, 400] as const);
}

/** The failure style of one status. */
export function styleFor(styles: FailureStyles, status: FastWorkflowHttpStatus): FailureStyle {
  return typeof styles === 'string' ? styles : (styles[status] ?? 'data.httpStatus');
}
