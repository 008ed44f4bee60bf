// Reading FastWorkflow's HTTP-style failures back out of MCP messages (profile C-26, FW-ERR-1):
// three encodings are accepted, and the suite reports which one a server uses.
import { isRecord } from '../wire/index.js';

/** The HTTP statuses 004 §10 maps failures to, with their meaning there. */
export const FASTWORKFLOW_STATUS = {
  404: 'session, user or conversation not found',
  409: 'concurrent turn in progress for this session',
  422: 'validation failure',
  500: 'unexpected error',
  504: 'timeout waiting for CommandOutput',
} as const;
export type FastWorkflowStatus = keyof typeof FASTWORKFLOW_STATUS;

/** `data.httpStatus`: JSON-RPC error carrying the status in data; `code`: JSON-RPC error whose code is the status; `isError`: a tools/call result with isError and the status in structuredContent or the JSON text. */
export type FailureReading = 'data.httpStatus' | 'code' | 'isError';

export type FailureDetection =
  /** A success result without `isError`: not a failure. */
  | { failed: false }
  /** A failure whose status could be read. */
  | { failed: true; status: number; reading: FailureReading }
  /** A failure whose HTTP-equivalent status cannot be recovered (fails FW-ERR-1). */
  | { failed: true; status: undefined; reading: 'error' | 'isError' };

function httpStatusIn(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined;
  const status = value.httpStatus;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : undefined;
}

/** The status in the JSON text of a text content item, if one holds a JSON object with it. */
function statusInText(content: unknown): number | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const item of content) {
    if (!isRecord(item) || item.type !== 'text' || typeof item.text !== 'string') continue;
    try {
      const status = httpStatusIn(JSON.parse(item.text));
      if (status !== undefined) return status;
    } catch {
      // Not JSON: plain text carries no status.
    }
  }
  return undefined;
}

/** Classifies a JSON-RPC response to a FastWorkflow `tools/call`. */
export function detectFastWorkflowFailure(response: unknown): FailureDetection {
  if (!isRecord(response)) return { failed: true, status: undefined, reading: 'error' };
  if (isRecord(response.error)) {
    const { code, data } = response.error;
    const fromData = httpStatusIn(data);
    if (fromData !== undefined) return { failed: true, status: fromData, reading: 'data.httpStatus' };
    if (typeof code === 'number' && Number.isInteger(code) && code >= 100 && code <= 599) return { failed: true, status: code, reading: 'code' };
    return { failed: true, status: undefined, reading: 'error' };
  }
  const result = response.result;
  if (isRecord(result) && result.isError === true) {
    const status = httpStatusIn(result.structuredContent) ?? statusInText(result.content);
    return status === undefined ? { failed: true, status: undefined, reading: 'isError' } : { failed: true, status, reading: 'isError' };
  }
  return { failed: false };
}
