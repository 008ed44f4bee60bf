// judgeCase and applicability, table by table: how a case's verdict follows from the checks it
// recorded and how it ended, with no target, connection or timer involved.
import { describe, expect, it } from 'vitest';
import {
  applicability,
  INTERRUPTED_WHILE_RUNNING,
  judgeCase,
  TargetPreconditionError,
  type CaseOutcome,
  type CheckResult,
  type Discovery,
  type JudgeCaseOptions,
  type TargetDescription,
  type TranscriptFinding,
  type Verdict,
} from '../../src/harness/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { ConnectionClosedError } from '../../src/transport/errors.js';

const catalog = requirements();
// Levels as the catalog has them: CORE-RPC-1 and CORE-RPC-4 MUST, FLOW-PROMPT-15 SHOULD, FLOW-PROMPT-9 INFO.
const MUST = 'CORE-RPC-1';
const OTHER_MUST = 'CORE-RPC-4';
const SHOULD = 'FLOW-PROMPT-15';
const INFO = 'FLOW-PROMPT-9';

function check(requirement: string, verdict: Verdict, extra: Partial<CheckResult> = {}): CheckResult {
  return { requirement, level: catalog.get(requirement).level, verdict, message: `${requirement} ${verdict.toLowerCase()}`, ...extra };
}

function options(declared: readonly string[], extra: Partial<JudgeCaseOptions> = {}): JudgeCaseOptions {
  return { caseId: 'suite/case', requirements: declared, catalog, ...extra };
}

function finding(requirement: string | undefined, seq: number, extra: Partial<TranscriptFinding> = {}): TranscriptFinding {
  return {
    kind: 'violation',
    schema: 'core/2025-06-18/tools-list.result.schema.json',
    requirement,
    annotated: [OTHER_MUST],
    pointer: '/result/tools',
    issues: [{ instancePath: '/result/tools', keyword: 'type', message: 'must be array', schemaPath: '#/type', params: {} }],
    extraMembers: [],
    direction: 'received',
    seq,
    message: { jsonrpc: '2.0', id: 1, result: { tools: 'none' } },
    ...extra,
  };
}

const RETURNED: CaseOutcome = { kind: 'returned' };

describe('judgeCase: the worst check decides', () => {
  const rows: { name: string; checks: CheckResult[]; declared?: string[]; strict?: boolean; verdict: Verdict; reason?: string | RegExp }[] = [
    { name: 'every check held', checks: [check(MUST, 'PASS')], verdict: 'PASS' },
    { name: 'a MUST broken', checks: [check(MUST, 'PASS'), check(MUST, 'FAIL', { expected: 1, actual: 2 })], verdict: 'FAIL', reason: `${MUST} fail: expected 1, got 2` },
    { name: 'a SHOULD broken', checks: [check(SHOULD, 'WARN')], declared: [SHOULD], verdict: 'WARN', reason: `${SHOULD} warn (did not hold)` },
    { name: 'a SHOULD broken under --strict', checks: [check(SHOULD, 'WARN')], declared: [SHOULD], strict: true, verdict: 'FAIL', reason: `${SHOULD} warn (did not hold) (a SHOULD, failed under --strict)` },
    { name: 'a FAIL outranks a WARN', checks: [check(SHOULD, 'WARN'), check(MUST, 'FAIL')], declared: [MUST, SHOULD], verdict: 'FAIL', reason: `${MUST} fail (did not hold)` },
    { name: 'an INFO of a declared requirement names the reading', checks: [check(MUST, 'PASS'), check(MUST, 'INFO')], verdict: 'INFO', reason: `${MUST} info` },
    { name: 'an INFO of an undeclared requirement leaves the verdict alone', checks: [check(MUST, 'PASS'), check(INFO, 'INFO')], verdict: 'PASS' },
    { name: 'an ERROR check outranks a FAIL', checks: [check(MUST, 'FAIL'), check(MUST, 'ERROR')], verdict: 'ERROR', reason: `${MUST} error (did not hold)` },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const judged = judgeCase(row.checks, RETURNED, options(row.declared ?? [MUST], { strict: row.strict ?? false }));
      expect(judged.verdict).toBe(row.verdict);
      if (row.reason === undefined) expect(judged.reason).toBeUndefined();
      else expect(judged.reason).toBe(row.reason);
    });
  }

  it('names the text of the first failed requirement, and asks for a transcript excerpt on failures only', () => {
    const failed = judgeCase([check(MUST, 'PASS'), check(OTHER_MUST, 'FAIL')], RETURNED, options([MUST, OTHER_MUST]));
    expect(failed.requirementText).toBe(catalog.get(OTHER_MUST).text);
    expect(failed.excerpt).toEqual({});
    const passed = judgeCase([check(MUST, 'PASS')], RETURNED, options([MUST]));
    expect(passed.requirementText).toBeUndefined();
    expect(passed.excerpt).toBeUndefined();
  });
});

describe('judgeCase: how the case ended', () => {
  const evidence = () => ({ requirement: 'WT-FRAME-1', text: 'the harness refused 1 frame(s) the server sent' });
  const rows: { name: string; outcome: CaseOutcome; checks?: CheckResult[]; extra?: Partial<JudgeCaseOptions>; verdict: Verdict; reason?: string | RegExp; added?: Partial<CheckResult> }[] = [
    { name: 'not applicable', outcome: { kind: 'not-applicable', reason: 'needs tools' }, verdict: 'NOT_APPLICABLE', reason: 'needs tools' },
    {
      name: 'discovery failed: the first requirement fails at its level',
      outcome: { kind: 'discovery-failed', error: { code: 'DISCOVERY_TIMEOUT', message: 'no answer' } },
      verdict: 'FAIL',
      reason: 'discovery failed: no answer',
      added: { requirement: MUST, verdict: 'FAIL', actual: 'DISCOVERY_TIMEOUT: no answer' },
    },
    { name: 'the applicability rule threw', outcome: { kind: 'applicability-threw', error: new Error('bug') }, verdict: 'ERROR', reason: /^the applicability rule threw: Error: bug/ },
    { name: 'interrupted while running', outcome: { kind: 'interrupted' }, checks: [check(MUST, 'FAIL')], verdict: 'SKIPPED', reason: INTERRUPTED_WHILE_RUNNING },
    { name: 'past its limit', outcome: { kind: 'timed-out', limitMs: 100, abandoned: false, graceMs: 50 }, checks: [check(MUST, 'PASS')], verdict: 'TIMEOUT', reason: 'the case ran past its time limit of 100 ms' },
    {
      name: 'past its limit and abandoned',
      outcome: { kind: 'timed-out', limitMs: 100, abandoned: true, graceMs: 50 },
      verdict: 'TIMEOUT',
      reason: 'the case ran past its time limit of 100 ms and had not returned 50 ms later',
    },
    {
      name: 'a precondition the target broke: its requirement, at its level, with what came',
      outcome: { kind: 'threw', error: new TargetPreconditionError('tools/list was not answered', { requirement: SHOULD, actual: { error: { code: -32601, message: 'no' } } }) },
      verdict: 'WARN',
      reason: 'precondition failed: tools/list was not answered: got error -32601 "no"',
      added: { requirement: SHOULD, verdict: 'WARN' },
    },
    {
      name: 'a precondition naming no catalog requirement is charged to the first declared',
      outcome: { kind: 'threw', error: new TargetPreconditionError('no session', { requirement: 'NOT-A-REQ-1' }) },
      verdict: 'FAIL',
      reason: 'precondition failed: no session',
      added: { requirement: MUST, message: 'precondition failed: no session' },
    },
    {
      name: 'the connection lost: the case cut short fails its first requirement, with the evidence',
      outcome: { kind: 'threw', error: new ConnectionClosedError('gone') },
      extra: { evidence },
      verdict: 'FAIL',
      added: { requirement: MUST, message: `the case could not finish (${evidence().text})`, actual: { code: 'CONNECTION_CLOSED', message: 'gone' } },
    },
    { name: 'the connection lost after a failed check: that check decides', outcome: { kind: 'threw', error: new ConnectionClosedError('gone') }, checks: [check(OTHER_MUST, 'FAIL')], verdict: 'FAIL', reason: `${OTHER_MUST} fail (did not hold)` },
    { name: 'the case itself threw', outcome: { kind: 'threw', error: new TypeError('x is undefined') }, checks: [check(MUST, 'FAIL')], verdict: 'ERROR', reason: /^TypeError: x is undefined/ },
    { name: 'returned without a check, nothing seen', outcome: RETURNED, verdict: 'ERROR', reason: 'case suite/case returned without recording any check' },
    {
      name: 'returned without a check after the peer took it off its path: charged to what the peer broke',
      outcome: RETURNED,
      extra: { evidence },
      verdict: 'FAIL',
      added: { requirement: 'WT-FRAME-1', message: `precondition failed: the case ended before it could judge anything: ${evidence().text}` },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const recorded = row.checks ?? [];
      const judged = judgeCase(recorded, row.outcome, options([MUST], row.extra));
      expect(judged.verdict).toBe(row.verdict);
      if (row.reason instanceof RegExp) expect(judged.reason).toMatch(row.reason);
      else if (row.reason !== undefined) expect(judged.reason).toBe(row.reason);
      if (row.added) expect(judged.checks.slice(recorded.length)).toEqual([expect.objectContaining(row.added)]);
      else expect(judged.checks).toHaveLength(recorded.length);
    });
  }
});

describe('judgeCase: the schema findings of the transcript', () => {
  it('a broken shape of a declared requirement fails the case, with the excerpt around its message', () => {
    const judged = judgeCase([check(MUST, 'PASS')], RETURNED, options([MUST, OTHER_MUST], { findings: () => [finding(OTHER_MUST, 7)] }));
    expect(judged.verdict).toBe('FAIL');
    expect(judged.checks.at(-1)).toMatchObject({ requirement: OTHER_MUST, verdict: 'FAIL' });
    expect(judged.excerpt).toEqual({ around: 7 });
  });

  it('one of a requirement the case does not declare is a note that leaves the verdict alone', () => {
    const judged = judgeCase([check(MUST, 'PASS')], RETURNED, options([MUST], { findings: () => [finding(OTHER_MUST, 7)] }));
    expect(judged.verdict).toBe('PASS');
    expect(judged.checks.at(-1)?.message).toMatch(/seen; judged by the cases that check CORE-RPC-4/);
  });

  it('a place no requirement owns is noted; a shape the harness broke is a bug in the case', () => {
    expect(judgeCase([check(MUST, 'PASS')], RETURNED, options([MUST], { findings: () => [finding(undefined, 3)] })).verdict).toBe('PASS');
    const own = judgeCase([check(MUST, 'PASS')], RETURNED, options([MUST], { findings: () => [finding(OTHER_MUST, 3, { direction: 'sent' })] }));
    expect(own.verdict).toBe('ERROR');
  });

  it('an erroring case is not judged by its transcript; a failure besides the schema one takes the last entries', () => {
    let asked = false;
    const errored = judgeCase([], { kind: 'threw', error: new Error('bug') }, options([MUST], { findings: () => ((asked = true), [finding(MUST, 1)]) }));
    expect(errored.verdict).toBe('ERROR');
    expect(asked).toBe(false);
    const both = judgeCase([check(MUST, 'FAIL')], RETURNED, options([MUST, OTHER_MUST], { findings: () => [finding(OTHER_MUST, 7)] }));
    expect(both.excerpt).toEqual({});
  });
});

describe('applicability', () => {
  const discovery: Discovery = { tools: ['echo'] };
  const target: TargetDescription = { description: 'mock', transport: 'http', rerunArgs: [] };
  const rows: { name: string; c: Parameters<typeof applicability>[0]; discovery?: Discovery; expected: CaseOutcome['kind'] | undefined }[] = [
    { name: 'no rule: applies', c: {}, expected: undefined },
    { name: 'another transport', c: { transports: ['webtransport'] }, expected: 'not-applicable' },
    { name: 'its transport', c: { transports: ['http', 'stdio'] }, expected: undefined },
    { name: 'a rule that holds', c: { applies: () => true }, expected: undefined },
    { name: 'a rule that says why not', c: { applies: () => 'no tools' }, expected: 'not-applicable' },
    { name: 'a rule after a failed discovery', c: { applies: () => true }, discovery: { error: { code: 'X', message: 'y' } }, expected: 'discovery-failed' },
    {
      name: 'a rule that throws',
      c: {
        applies: () => {
          throw new Error('bug');
        },
      },
      expected: 'applicability-threw',
    },
  ];
  for (const row of rows) {
    it(row.name, () => expect(applicability(row.c, row.discovery ?? discovery, target)?.kind).toBe(row.expected));
  }
});
