// The JSON report: the whole RunResult for tools, behind a `format`/`version` header, keys in a
// stable order (the data model's order for its own records, sorted for free-form values such as
// decoded messages), and lossless for what JSON cannot say: BigInt, bytes, -0 and non-finite numbers
// become one-key tag objects (`{"$bigint":"123"}`, `{"$bytes":"00ff"}`, `{"$number":"NaN"}`), and a
// plain object that happens to look like a tag is wrapped as `{"$object":{...}}`.
import { VERDICTS, type RunResult } from '../harness/result.js';
import { ReportFormatError, ReportValueError } from './errors.js';
import { isRecord } from '../wire/index.js';

export const JSON_REPORT_FORMAT = 'mcp-flow-conformance/run-result';
export const JSON_REPORT_VERSION = 1;

const TAGS = new Set(['$bigint', '$bytes', '$number', '$object']);

/** Key order of the data model's records; keys not listed follow, sorted. */
interface Shape {
  keys: readonly string[];
  children?: Record<string, Shape | { each: Shape }>;
}

const CHECK: Shape = { keys: ['requirement', 'level', 'verdict', 'message', 'expected', 'actual'] };
const ENTRY: Shape = {
  keys: ['seq', 'at', 'direction', 'channel', 'byteLength', 'hex', 'truncated', 'sha256', 'summary', 'decoded', 'error', 'note'],
  children: { channel: { keys: ['kind'] }, error: { keys: ['code', 'message'] } },
};
const CASE: Shape = {
  keys: ['id', 'suite', 'title', 'requirements', 'level', 'verdict', 'reason', 'requirementText', 'checks', 'startedAt', 'durationMs', 'timeLimitMs', 'transcript', 'rerun', 'seed', 'path', 'baseline', 'baselineReason'],
  children: { checks: { each: CHECK }, transcript: { each: ENTRY } },
};
const RUN: Shape = {
  keys: ['tool', 'target', 'options', 'startedAt', 'durationMs', 'error', 'cases', 'summary', 'notSelected', 'interrupted', 'exitCode'],
  children: {
    tool: { keys: ['name', 'version'] },
    target: { keys: ['description', 'transport', 'role', 'serverInfo', 'clientInfo', 'protocolVersion', 'capabilities'] },
    cases: { each: CASE },
    summary: { keys: [...VERDICTS, 'total'] },
  },
};

/** The JSON report text (2-space indented, trailing newline). */
export function renderJson(run: RunResult): string {
  const header = { format: JSON_REPORT_FORMAT, version: JSON_REPORT_VERSION };
  const body = encode(run, RUN, '', new Set()) as Record<string, unknown>;
  return JSON.stringify({ ...header, ...body }, null, 2) + '\n';
}

/** Reads a JSON report back into the RunResult it was written from. */
export function parseJsonReport(text: string): RunResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ReportFormatError(`the JSON report is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(parsed)) throw new ReportFormatError('the JSON report is not a JSON object');
  const { format, version, ...rest } = parsed;
  if (format !== JSON_REPORT_FORMAT) {
    throw new ReportFormatError(`the JSON report's format is ${JSON.stringify(format)}, expected ${JSON.stringify(JSON_REPORT_FORMAT)}`);
  }
  if (version !== JSON_REPORT_VERSION) {
    throw new ReportFormatError(`the JSON report's version is ${JSON.stringify(version)}; this tool reads version ${JSON_REPORT_VERSION}`);
  }
  if (!Array.isArray(rest['cases']) || !isRecord(rest['summary']) || !isRecord(rest['target'])) {
    throw new ReportFormatError('the JSON report lacks cases, summary or target');
  }
  return decode(rest, '') as RunResult;
}

function encode(value: unknown, shape: Shape | undefined, pointer: string, seen: Set<object>): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) return { $number: Object.is(value, -0) ? '-0' : String(value) };
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') };
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return (value as { toJSON(): unknown }).toJSON();
  if (seen.has(value)) throw new ReportValueError(pointer, 'the value contains itself and cannot be written as JSON');
  seen.add(value);
  let result: unknown;
  if (Array.isArray(value)) {
    result = value.map((item, index) => {
      const encoded = encode(item, shape, `${pointer}/${index}`, seen);
      return encoded === undefined || typeof encoded === 'function' || typeof encoded === 'symbol' ? null : encoded;
    });
  } else {
    const source = value as Record<string, unknown>;
    const listed = shape ? shape.keys.filter((key) => Object.hasOwn(source, key)) : [];
    const rest = Object.keys(source).filter((key) => !listed.includes(key)).sort();
    const out: Record<string, unknown> = {};
    for (const key of [...listed, ...rest]) {
      const child = shape?.children?.[key];
      const childShape = child && 'each' in child ? child.each : child;
      const encoded = encode(source[key], childShape, `${pointer}/${escapePointer(key)}`, seen);
      if (encoded !== undefined && typeof encoded !== 'function' && typeof encoded !== 'symbol') setMember(out, key, encoded);
    }
    const keys = Object.keys(out);
    result = keys.length === 1 && TAGS.has(keys[0]!) ? { $object: out } : out;
  }
  seen.delete(value);
  return result;
}

function decode(value: unknown, pointer: string): unknown {
  if (Array.isArray(value)) return value.map((item, index) => decode(item, `${pointer}/${index}`));
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && TAGS.has(keys[0]!)) {
    const tag = keys[0]!;
    const inner = value[tag];
    if (tag === '$object' && isRecord(inner)) return decodeMembers(inner, pointer);
    if (typeof inner === 'string') {
      if (tag === '$bigint' && /^-?\d+$/.test(inner)) return BigInt(inner);
      if (tag === '$bytes' && /^(?:[0-9a-f]{2})*$/i.test(inner)) return new Uint8Array(Buffer.from(inner, 'hex'));
      if (tag === '$number' && (inner === 'NaN' || inner === 'Infinity' || inner === '-Infinity' || inner === '-0')) return Number(inner);
    }
    throw new ReportFormatError(`${pointer || '/'}: ${JSON.stringify(value)} is not a valid ${tag} value`);
  }
  return decodeMembers(value, pointer);
}

function decodeMembers(value: Record<string, unknown>, pointer: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) setMember(out, key, decode(member, `${pointer}/${escapePointer(key)}`));
  return out;
}

/** Defines a member as data, so a key such as `__proto__` (from a target's message) stays a key. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
