// The proxy's findings as a RunResult, so the report writers of the `server` command (JUnit, JSON,
// HTML) render them unchanged: one case per requirement the proxy judged, in catalog order. A case
// fails (MUST) or warns (SHOULD) with one check per violation of its requirement, and carries the
// record excerpt around the first one. The record keeps every message whole (for replay); what goes
// into the report is held to the default message limit, as a run's transcripts and checks are.
import type { CaseResult, CheckResult, RunResult } from '../harness/result.js';
import { countVerdicts } from '../harness/result.js';
import { failureVerdict, type Requirements } from '../protocol/requirements.js';
import { boundValue, DEFAULT_MAX_MESSAGE_BYTES } from '../transport/message-bound.js';
import { keptEntry, type TranscriptEntry } from '../transport/transcript.js';
import type { ProxyRecord } from '../peer/proxy/record.js';
import type { Violation } from '../peer/proxy/violation.js';

/** The case id of a requirement in the proxy report. */
export function proxyCaseId(requirement: string): string {
  return `proxy/${requirement}`;
}

export interface ProxyReportInput {
  checked: ReadonlySet<string>;
  violations: readonly Violation[];
  record: ProxyRecord;
  requirements: Requirements;
  /** How the proxy was started (for the report header). */
  description: string;
  transport: string;
  startedAt: number;
  options?: Record<string, unknown>;
  /** The command line that runs the proxy again (rerun hint of each case). */
  rerun: string;
}

export function proxyRunResult(input: ProxyReportInput): RunResult {
  const { requirements } = input;
  const ids = new Set([...input.checked, ...input.violations.map((v) => v.requirement)]);
  const ordered = requirements.catalog.requirements.filter((r) => ids.has(r.id));
  const now = Date.now();
  const cases: CaseResult[] = ordered.map((requirement) => {
    const broken = input.violations.filter((v) => v.requirement === requirement.id);
    const checks: CheckResult[] = broken.map((v) => ({
      requirement: v.requirement,
      level: v.level,
      verdict: failureVerdict(v.level),
      message: `session ${v.session} #${v.seq} ${v.direction} ${v.subject}: ${v.message}`,
      ...(v.actual !== undefined ? { actual: boundValue(v.actual, DEFAULT_MAX_MESSAGE_BYTES) } : {}),
    }));
    const verdict = broken.length === 0 ? 'PASS' : failureVerdict(requirement.level);
    const result: CaseResult = {
      id: proxyCaseId(requirement.id),
      suite: 'proxy',
      title: requirement.text.length > 120 ? `${requirement.text.slice(0, 117)}...` : requirement.text,
      requirements: [requirement.id],
      level: requirement.level,
      verdict,
      checks,
      startedAt: input.startedAt,
      durationMs: now - input.startedAt,
      timeLimitMs: 0,
      rerun: input.rerun,
    };
    const first = broken[0];
    if (first) {
      result.reason = `${broken.length} violation(s); first: ${checks[0]!.message}`;
      result.requirementText = requirement.text;
      result.transcript = excerptAround(input.record.entriesOf(first.session), first.seq, 20);
    }
    return result;
  });
  const summary = countVerdicts(cases);
  return {
    tool: { name: 'mcp-flow-conformance', version: '0.1.0' },
    target: { description: input.description, transport: input.transport },
    options: { command: 'proxy', ...input.options },
    startedAt: input.startedAt,
    durationMs: now - input.startedAt,
    cases,
    summary,
    exitCode: input.violations.some((v) => v.level === 'MUST') ? 1 : 0,
  };
}

function excerptAround(entries: readonly TranscriptEntry[], seq: number, count: number): TranscriptEntry[] {
  const index = Math.max(0, entries.findIndex((entry) => entry.seq >= seq));
  const start = Math.max(0, Math.min(index - Math.floor(count / 2), entries.length - count));
  return entries.slice(start, start + count).map((entry) => keptEntry(entry));
}
