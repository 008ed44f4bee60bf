// Reading FastWorkflow's HTTP-style failures back out of MCP messages (profile C-26): a failure is
// a JSON-RPC error or an isError tool result (FW-ERR-1); its HTTP-equivalent status can be read
// back in four accepted encodings (FW-ERR-4), and the suite reports which one a server uses.
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

/**
 * How the status was carried (the readings of FW-ERR-4):
 * `data.httpStatus`: a JSON-RPC error carrying the status in data; `code`: a JSON-RPC error whose
 * code is the status; `isError`: a tools/call result with isError and `httpStatus` in
 * structuredContent or the JSON text; `text`: an isError result or a JSON-RPC error message whose
 * text states the status (fastapi_mcp's "Error calling <tool>. Status code: 404. Response: ...").
 */
export type FailureReading = 'data.httpStatus' | 'code' | 'isError' | 'text';

/** Each reading as the catalog's `accepts` of FW-ERR-4 names it. */
export const FAILURE_READING_NAMES: Readonly<Record<FailureReading, string>> = {
  'data.httpStatus': 'JSON-RPC error with data.httpStatus',
  code: 'JSON-RPC error whose code is the HTTP status',
  isError: 'isError result carrying httpStatus',
  text: 'isError result or error message whose text states the status',
};

export type FailureDetection =
  /** A success result without `isError`: not a failure. */
  | { failed: false }
  /** A failure whose status could be read. */
  | { failed: true; status: number; reading: FailureReading }
  /** A failure (JSON-RPC error or isError result) whose HTTP-equivalent status cannot be read. */
  | { failed: true; status: undefined; reading: 'error' | 'isError' };

function httpStatusIn(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined;
  const status = value.httpStatus;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : undefined;
}

/**
 * A failure status stated in prose: "Status code: 404", "status_code=409", "HTTP 504",
 * "httpStatus: 422". Only 4xx and 5xx count: a failure's status is never a success's.
 */
const STATUS_IN_TEXT = /\b(?:status(?:[ _-]?code)?|http(?:[ _-]?status)?)\s*[:=]?\s*([45]\d\d)\b/i;

export function statusStatedIn(text: string): number | undefined {
  const match = STATUS_IN_TEXT.exec(text);
  return match ? Number(match[1]) : undefined;
}

function textsOf(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.filter((item) => isRecord(item) && item.type === 'text' && typeof item.text === 'string').map((item) => (item as { text: string }).text);
}

/** The status in the JSON text of a text content item, if one holds a JSON object with it. */
function statusInJsonText(texts: readonly string[]): number | undefined {
  for (const text of texts) {
    try {
      const status = httpStatusIn(JSON.parse(text));
      if (status !== undefined) return status;
    } catch {
      // Not JSON: plain text carries no httpStatus member.
    }
  }
  return undefined;
}

function statusInProse(texts: readonly string[]): number | undefined {
  for (const text of texts) {
    const status = statusStatedIn(text);
    if (status !== undefined) return status;
  }
  return undefined;
}

/** Classifies a JSON-RPC response to a FastWorkflow `tools/call`. */
export function detectFastWorkflowFailure(response: unknown): FailureDetection {
  if (!isRecord(response)) return { failed: true, status: undefined, reading: 'error' };
  if (isRecord(response.error)) {
    const { code, data, message } = response.error;
    const fromData = httpStatusIn(data);
    if (fromData !== undefined) return { failed: true, status: fromData, reading: 'data.httpStatus' };
    if (typeof code === 'number' && Number.isInteger(code) && code >= 100 && code <= 599) return { failed: true, status: code, reading: 'code' };
    const stated = statusInProse([...(typeof message === 'string' ? [message] : []), ...(typeof data === 'string' ? [data] : [])]);
    if (stated !== undefined) return { failed: true, status: stated, reading: 'text' };
    return { failed: true, status: undefined, reading: 'error' };
  }
  const result = response.result;
  if (isRecord(result) && result.isError === true) {
    const texts = textsOf(result.content);
    const carried = httpStatusIn(result.structuredContent) ?? statusInJsonText(texts);
    if (carried !== undefined) return { failed: true, status: carried, reading: 'isError' };
    const stated = statusInProse(texts);
    if (stated !== undefined) return { failed: true, status: stated, reading: 'text' };
    return { failed: true, status: undefined, reading: 'isError' };
  }
  return { failed: false };
}
