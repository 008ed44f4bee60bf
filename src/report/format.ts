// Text pieces every reporter shares: the counts line, verdict groups, readable values and
// transcript entries. Display only; the JSON report has its own lossless serialiser.
import { baselineCounts } from '../harness/baseline.js';
import type { CaseResult, RunResult, Verdict, VerdictCounts } from '../harness/result.js';
import type { Direction, TranscriptChannel, TranscriptEntry } from '../transport/transcript.js';

/** The words of the closing line, in its order: `12 passed, 1 failed, 3 skipped, ...`. */
export const COUNT_WORDS: readonly (readonly [Verdict, string])[] = [
  ['PASS', 'passed'],
  ['FAIL', 'failed'],
  ['SKIPPED', 'skipped'],
  ['WARN', 'warned'],
  ['NOT_APPLICABLE', 'not applicable'],
  ['TIMEOUT', 'timed out'],
  ['ERROR', 'errors'],
  ['INFO', 'info'],
];

/** `12 passed, 1 failed, 3 skipped, 2 warned, 1 not applicable, 0 timed out, 0 errors, 0 info` */
export function countsLine(counts: VerdictCounts): string {
  return COUNT_WORDS.map(([verdict, word]) => `${counts[verdict]} ${word}`).join(', ');
}

/**
 * The closing line of a run: the counts line, and when the run used a baseline how it fared:
 * `..., 0 info, 2 expected failures, 1 stale` (expected failures are among the failed, warned or
 * timed-out cases; stale entries are listed cases that now pass).
 */
export function runCountsLine(run: Pick<RunResult, 'summary' | 'cases' | 'options'>): string {
  const line = countsLine(run.summary);
  if (run.options['baselineEntries'] === undefined) return line;
  const { expectedFailures, stale } = baselineCounts(run.cases);
  return `${line}, ${expectedFailures} expected failure${expectedFailures === 1 ? '' : 's'}, ${stale} stale`;
}

/** Whether a stale baseline entry fails the run (--fail-on-stale). */
export function failsOnStale(run: Pick<RunResult, 'options'>): boolean {
  return run.options['failOnStale'] === true;
}

/**
 * Whether a case fails the run: a failing verdict the baseline does not expect, or a stale
 * baseline entry under --fail-on-stale.
 */
export function failsRun(result: CaseResult, strict: boolean, failOnStale: boolean): boolean {
  if (result.baseline === 'stale') return failOnStale;
  return isFailing(result.verdict, strict) && !(result.baseline === 'expected-failure' && result.verdict !== 'ERROR');
}

/** What the filters left out, for a report header: `103 not selected (--shard 1/2)`, or undefined. */
export function notSelectedText(run: Pick<RunResult, 'notSelected' | 'options'>): string | undefined {
  if (!run.notSelected) return undefined;
  const filters = [
    ...(Array.isArray(run.options['suites']) ? [`--suite ${(run.options['suites'] as string[]).join(',')}`] : []),
    ...(Array.isArray(run.options['cases']) ? [`--case ${(run.options['cases'] as string[]).join(',')}`] : []),
    ...(Array.isArray(run.options['exclude']) ? [`--exclude ${(run.options['exclude'] as string[]).join(',')}`] : []),
    ...(typeof run.options['shard'] === 'string' ? [`--shard ${run.options['shard']}`] : []),
  ];
  return `${run.notSelected} not selected${filters.length > 0 ? ` (${filters.join(' ')})` : ''}`;
}

/** Whether the run asked for --strict (WARN counts as a failure). */
export function isStrict(run: Pick<RunResult, 'options'>): boolean {
  return run.options['strict'] === true;
}

/** Verdicts that fail the run: FAIL, TIMEOUT, ERROR, and WARN under strict. */
export function isFailing(verdict: Verdict, strict: boolean): boolean {
  return verdict === 'FAIL' || verdict === 'TIMEOUT' || verdict === 'ERROR' || (strict && verdict === 'WARN');
}

/** Cases a reader wants explained: every failing one and every WARN (strict or not). */
export function needsExplanation(result: CaseResult, strict: boolean): boolean {
  return isFailing(result.verdict, strict) || result.verdict === 'WARN';
}

/** Cases grouped by suite, suites in order of first appearance, cases in run order. */
export function groupBySuite(cases: readonly CaseResult[]): Map<string, CaseResult[]> {
  const suites = new Map<string, CaseResult[]>();
  for (const result of cases) {
    const list = suites.get(result.suite);
    if (list) list.push(result);
    else suites.set(result.suite, [result]);
  }
  return suites;
}

/**
 * Text safe to print on a terminal: control characters (ESC, BEL, CR...) and bidirectional
 * overrides shown as `\uXXXX`, so a target's strings cannot move the cursor or recolour output.
 * Newlines and tabs are kept.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Cuts `text` to `max` characters, saying how much was left out. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more chars)`;
}

/** JSON-like text of any value: BigInt as its digits, bytes as hex, cycles and functions named. */
export function displayJson(value: unknown, indent = 0): string {
  return write(value, indent, '', new Set());
}

function write(value: unknown, indent: number, pad: string, seen: Set<object>): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function' || typeof value === 'symbol') return `<${typeof value}>`;
  if (value instanceof Uint8Array) return `<${value.byteLength} bytes ${toHex(value, 64)}>`;
  const object = value as object;
  if (seen.has(object)) return '<circular>';
  seen.add(object);
  const inner = pad + ' '.repeat(indent);
  const open = indent > 0 ? `\n${inner}` : '';
  const close = indent > 0 ? `\n${pad}` : '';
  const separator = indent > 0 ? `,\n${inner}` : ',';
  let text: string;
  if (Array.isArray(value)) {
    text = value.length === 0 ? '[]' : `[${open}${value.map((item) => write(item, indent, inner, seen)).join(separator)}${close}]`;
  } else {
    const members = Object.entries(object)
      .filter(([, member]) => member !== undefined)
      .map(([key, member]) => `${JSON.stringify(key)}:${indent > 0 ? ' ' : ''}${write(member, indent, inner, seen)}`);
    text = members.length === 0 ? '{}' : `{${open}${members.join(separator)}${close}}`;
  }
  seen.delete(object);
  return text;
}

function toHex(bytes: Uint8Array, max: number): string {
  const shown = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max)).toString('hex');
  return bytes.byteLength > max ? `${shown}…` : shown;
}

/** → sent by this tool, ← received from the target, • local event. */
export function arrow(direction: Direction): string {
  return direction === 'sent' ? '→' : direction === 'received' ? '←' : '•';
}

/** `control`, `stream 4 (request 3, tag 1)`, `datagram 0x02 (request 7)`, `http POST /mcp 200`... */
export function describeChannel(channel: TranscriptChannel): string {
  switch (channel.kind) {
    case 'control':
      return 'control';
    case 'stream':
      return channel.header
        ? `stream ${channel.streamId} (request ${channel.header.requestId}, tag ${channel.header.streamTag})`
        : `stream ${channel.streamId}`;
    case 'datagram':
      return `datagram 0x${channel.channel.toString(16).padStart(2, '0')}${channel.requestId === undefined ? '' : ` (request ${channel.requestId})`}`;
    case 'http':
      return ['http', channel.method, channel.url, channel.status].filter((part) => part !== undefined).join(' ');
    case 'stdio':
      return `stdio ${channel.fd}`;
    case 'session':
      return 'session';
  }
}

/** Hex of an entry, spaced per byte and cut to `maxBytes`, saying how many bytes there were. */
export function describeHex(entry: TranscriptEntry, maxBytes: number): string {
  const hex = entry.hex ?? '';
  const kept = hex.slice(0, maxBytes * 2).replace(/(..)(?!$)/g, '$1 ');
  const cut = hex.length > maxBytes * 2 || entry.truncated === true;
  return `hex ${kept}${cut ? ' …' : ''} (${entry.byteLength} bytes)`;
}

/** One line for an entry's content: the decoded message as compact JSON, else why not and the hex. */
export function describeEntry(entry: TranscriptEntry, maxChars: number): string {
  const parts: string[] = [];
  if (entry.decoded !== undefined) parts.push(truncate(displayJson(entry.decoded), maxChars));
  else {
    const omitted = omittedMessage(entry);
    if (omitted !== undefined) parts.push(omitted);
    if (entry.error) parts.push(`[${entry.error.code}] ${entry.error.message}`);
    if (entry.hex !== undefined) parts.push(describeHex(entry, Math.max(8, Math.floor(maxChars / 3))));
    else if (entry.byteLength > 0) parts.push(`(${entry.byteLength} bytes, not kept)`);
  }
  if (entry.note) parts.push(`(${entry.note})`);
  return parts.join(' ');
}

/**
 * What an entry over the transcript's message limit was, as far as it was kept: `response id 3 of
 * 60000123 bytes (over the message limit: sha256 5f3a…)`; undefined for an entry kept whole.
 */
export function omittedMessage(entry: TranscriptEntry): string | undefined {
  if (entry.sha256 === undefined && entry.summary === undefined) return undefined;
  const sha = entry.sha256 === undefined ? '' : `: sha256 ${entry.sha256}`;
  return `${entry.summary ?? 'message'} of ${entry.byteLength} bytes (over the message limit, not kept whole${sha})`;
}

/** Milliseconds as `12 ms` or `1.5 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
