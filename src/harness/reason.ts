// The one-line reason of a case that did not pass, built from its deciding check: what the check
// was about, what it expected and what came instead, so a FAIL line never reads like a pass
// ("ping without params is answered with {}: expected {}, got error -32601 "Method not found"").
import type { CheckResult } from './result.js';
import { isRecord } from '../wire/index.js';

/** Characters of one value shown in a reason before it is cut. */
const VALUE_CHARS = 160;

function cut(text: string): string {
  return text.length <= VALUE_CHARS ? text : `${text.slice(0, VALUE_CHARS)}…`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, member: unknown) => (typeof member === 'bigint' ? member.toString() : member instanceof Uint8Array ? `<${member.byteLength} bytes>` : member)) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A JSON-RPC error object as `error -32601 "Method not found"`; a coded error of this tool as `CONNECTION_CLOSED "..."`. */
function errorText(error: Record<string, unknown>): string | undefined {
  const message = typeof error['message'] === 'string' ? ` ${JSON.stringify(error['message'])}` : '';
  if (typeof error['code'] === 'number') return `error ${error['code']}${message}`;
  if (typeof error['code'] === 'string' && /^[A-Z][A-Z0-9_]*$/.test(error['code']) && message !== '') return `${error['code']}${message}`;
  return undefined;
}

/**
 * A value as a reader wants it in one line: text as is, a JSON-RPC error (or a response carrying
 * one) as `error <code> "<message>"`, a response's result as `result <json>`, anything else as
 * compact JSON, each cut to a length a line can hold.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return cut(value);
  if (isRecord(value)) {
    const direct = errorText(value);
    if (direct !== undefined && !('jsonrpc' in value)) return cut(direct);
    if (isRecord(value['error'])) {
      const nested = errorText(value['error']);
      if (nested !== undefined) return cut(nested);
    }
    if ('result' in value && 'jsonrpc' in value) return cut(`result ${json(value['result'])}`);
  }
  return cut(json(value));
}

/**
 * The reason of a failed (or warned) check: `<message>: expected <expected>, got <actual>`, with
 * only the side the check recorded, or `<message> (did not hold)` when it recorded neither.
 */
export function failureReason(check: Pick<CheckResult, 'message' | 'expected' | 'actual'>): string {
  const hasExpected = 'expected' in check && check.expected !== undefined;
  const hasActual = 'actual' in check && check.actual !== undefined;
  if (hasExpected && hasActual) return `${check.message}: expected ${describeValue(check.expected)}, got ${describeValue(check.actual)}`;
  if (hasActual) return `${check.message}: got ${describeValue(check.actual)}`;
  if (hasExpected) return `${check.message}: expected ${describeValue(check.expected)}, which did not come`;
  return `${check.message} (did not hold)`;
}
