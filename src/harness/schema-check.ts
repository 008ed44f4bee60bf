// The checks a case's transcript gives: what the schemas find in each message (src/judge) as
// checks of that case. A broken shape the target sent is a FAIL or WARN (its requirement's level)
// only in a case that declares the requirement it breaks; every other case that sees the message
// notes it (an INFO check of that requirement, which leaves the case's verdict alone), so one bad
// message counts once. Members the documents do not name are INFO notes (rule 4). A message the
// harness sent that breaks a shape is a bug in the case (ERROR), unless it declares sendsInvalid.
import type { TranscriptFinding } from '../judge/index.js';
import { failureVerdict, type Requirements } from '../protocol/requirements.js';
import type { CheckResult } from './result.js';

export { REF_STREAM_SCHEMA, type TranscriptFinding } from '../judge/index.js';

/** A check of the case's and the transcript position of the message it is about. */
export interface SchemaCheck {
  check: CheckResult;
  seq: number;
}

/** The case a finding is judged in: the requirements it declares (the first one stands in where nothing else is named). */
export interface FindingCase {
  requirements: readonly string[];
}

/** The check one schema finding gives in case `c` (none for extra members the harness itself sent). */
export function schemaCheck(c: FindingCase, catalog: Requirements, finding: TranscriptFinding): CheckResult | undefined {
  const sent = finding.direction === 'sent';
  if (sent && finding.kind === 'extra-members') return undefined;
  const method = (finding.message as { method?: unknown }).method;
  const name = typeof method === 'string' ? method : `response ${JSON.stringify((finding.message as { id?: unknown }).id)}`;
  const what = `${sent ? 'the harness sent' : 'the target sent'} ${name} (transcript #${finding.seq})`;
  const requirement = finding.requirement ?? finding.annotated[0] ?? (c.requirements[0] as string);
  const level = catalog.get(requirement).level;
  if (finding.kind === 'extra-members') {
    return {
      requirement,
      level,
      verdict: 'INFO',
      message: `${what} with member(s) the documents do not name: ${finding.extraMembers.map((m) => m.pointer).join(', ')} (schema ${finding.schema}); allowed, noted`,
      actual: { extraMembers: finding.extraMembers.map((m) => m.pointer), message: finding.message },
    };
  }
  const issue = finding.issues[0];
  const where = finding.pointer === '' ? '(the message itself)' : finding.pointer;
  const broken = `${what} breaking schema ${finding.schema} at ${where}: ${issue?.message ?? 'invalid'}`;
  const actual = { pointer: finding.pointer, keyword: issue?.keyword, issues: finding.issues.slice(0, 5), message: finding.message };
  const expected = `valid against ${finding.schema}`;
  if (sent) {
    return { requirement, level, verdict: 'ERROR', message: `${broken} (a bug in the case: declare sendsInvalid if it is deliberate)`, expected, actual };
  }
  if (finding.requirement === undefined) {
    return { requirement, level, verdict: 'INFO', message: `${broken} (no requirement of the catalog owns this place: noted, not judged)`, expected, actual };
  }
  if (!c.requirements.includes(finding.requirement)) {
    return { requirement, level, verdict: 'INFO', message: `${broken} (seen; judged by the cases that check ${finding.requirement})`, expected, actual };
  }
  return { requirement, level, verdict: failureVerdict(level), message: broken, expected, actual };
}

/** The checks of every finding, each with the transcript position of its message. */
export function schemaChecks(c: FindingCase, catalog: Requirements, findings: readonly TranscriptFinding[]): SchemaCheck[] {
  const checks: SchemaCheck[] = [];
  for (const finding of findings) {
    const check = schemaCheck(c, catalog, finding);
    if (check) checks.push({ check, seq: finding.seq });
  }
  return checks;
}
