// JUnit XML (the Jenkins/Ant shape) via junit-report-builder: a <testsuite> per suite, a <testcase>
// per selected case named by its ID (cases the filters left out are only counted, in the suite
// property `notSelected`, so merged shard reports count each case once). FAIL, TIMEOUT (and WARN
// under strict) are <failure>, ERROR is <error>, SKIPPED and NOT_APPLICABLE are
// <skipped message="reason">. A failure the baseline expects is <skipped type="expected-failure"
// message="expected failure: ...">, as pytest writes an xfail: JUnit has no "expected failure"
// element, every JUnit consumer (Jenkins, GitLab, Azure DevOps, the GitHub test-report actions)
// counts <failure> as a failed test and shows a <skipped>'s message, while properties are shown by
// few. A stale baseline entry under --fail-on-stale is <failure type="stale-baseline">.
// Requirement IDs, level, verdict, baseline and seed are properties; the transcript excerpt and the
// rerun command go to <system-out>.
import { createRequire } from 'node:module';
import type { Builder, TestCase } from 'junit-report-builder';
import type { CaseResult, RunResult } from '../harness/result.js';
import { ConsoleFormatter } from './console.js';
import { failsOnStale, groupBySuite, isFailing, isStrict, notSelectedText, runCountsLine, truncate } from './format.js';

// junit-report-builder is CommonJS whose module.exports IS a builder, while its typings declare an
// ES default export: under NodeNext a default import would be typed `{ default: Builder }` but be the
// builder at runtime. require() gives the value its typings describe. The export is a shared
// singleton, so every report starts from `newBuilder()`.
const sharedBuilder = createRequire(import.meta.url)('junit-report-builder') as Builder;

export interface JUnitOptions {
  /** WARN is a <failure>. Default: the run's `options.strict`. */
  strict?: boolean;
  /** Transcript entries written to <system-out> per case. Default 50. */
  transcriptEntries?: number;
}

/** The JUnit XML text for a run. */
export function renderJUnit(run: RunResult, options: JUnitOptions = {}): string {
  const strict = options.strict ?? isStrict(run);
  const text = new ConsoleFormatter({ colour: false, transcriptEntries: options.transcriptEntries ?? 50, maxChars: 2000 });
  const builder = sharedBuilder.newBuilder().name(`${run.tool.name} ${run.tool.version}: ${run.target.description}`);

  if (run.error !== undefined) {
    // A run that stopped before its cases ran: one errored testcase says why, so CI shows it.
    const suite = builder.testSuite().name('run');
    suite.timestamp(new Date(run.startedAt).toISOString());
    suite.property('tool', `${run.tool.name} ${run.tool.version}`);
    suite.property('target', run.target.description);
    suite.property('transport', run.target.transport);
    suite.testCase().className('run').name('run').time(seconds(run.durationMs)).error(truncate(run.error.message, 1000), run.error.code);
  }
  for (const [name, cases] of groupBySuite(run.cases)) {
    const suite = builder.testSuite().name(name);
    const startedAt = Math.min(...cases.map((result) => result.startedAt));
    suite.timestamp(new Date(startedAt).toISOString());
    suite.time(seconds(cases.reduce((sum, result) => sum + result.durationMs, 0)));
    suite.property('tool', `${run.tool.name} ${run.tool.version}`);
    suite.property('target', run.target.description);
    suite.property('transport', run.target.transport);
    if (run.target.protocolVersion) suite.property('protocolVersion', run.target.protocolVersion);
    suite.property('strict', String(strict));
    if (run.notSelected) suite.property('notSelected', notSelectedText(run)!);
    if (run.options['baselineEntries'] !== undefined) suite.property('counts', runCountsLine(run));
    for (const result of cases) addCase(suite.testCase(), result, strict, failsOnStale(run), text);
  }
  return builder.build();
}

function addCase(testCase: TestCase, result: CaseResult, strict: boolean, failOnStale: boolean, text: ConsoleFormatter): void {
  testCase.className(result.suite).name(result.id).time(seconds(result.durationMs));
  for (const requirement of result.requirements) testCase.property('requirement', requirement);
  testCase.property('level', result.level);
  testCase.property('verdict', result.verdict);
  testCase.property('title', result.title);
  if (result.seed !== undefined) testCase.property('seed', String(result.seed));
  if (result.path !== undefined) testCase.property('path', result.path);
  if (result.baseline !== undefined) testCase.property('baseline', result.baseline);
  if (result.baselineReason !== undefined) testCase.property('baselineReason', result.baselineReason);
  testCase.property('rerun', result.rerun);

  const details = cdataText(text.detailLines(result).join('\n'));
  const expectedFailure = result.baseline === 'expected-failure' && result.verdict !== 'ERROR';
  const out: string[] = [];
  if (result.verdict === 'ERROR') {
    testCase.error(message(result), 'ERROR', details);
  } else if (expectedFailure) {
    testCase.skipped();
    skippedMessage(testCase, truncate(`expected failure: ${result.verdict} ${message(result)}${result.baselineReason === undefined ? '' : ` (baseline: ${result.baselineReason})`}`, 1000), 'expected-failure');
    out.push(`expected failure (listed in the baseline): ${result.verdict}`, ...text.detailLines(result));
  } else if (isFailing(result.verdict, strict)) {
    testCase.failure(message(result), result.verdict).stacktrace(details);
  } else if (result.verdict === 'SKIPPED' || result.verdict === 'NOT_APPLICABLE') {
    testCase.skipped();
    skippedMessage(testCase, `${result.verdict}: ${result.reason ?? 'no reason given'}`);
  }
  if (result.baseline === 'stale') {
    const stale = `listed in the baseline as an expected failure${result.baselineReason === undefined ? '' : ` (${result.baselineReason})`}, but now ${result.verdict}: remove the entry`;
    if (failOnStale) testCase.failure(truncate(stale, 1000), 'stale-baseline');
    else out.push(`stale baseline entry: ${stale}`);
  }

  if (result.verdict === 'WARN' && !strict && !expectedFailure) out.push(`WARN (a SHOULD; fails under --strict): ${message(result)}`, ...text.detailLines(result));
  if (result.verdict === 'INFO' && result.reason) out.push(`INFO: ${result.reason}`);
  out.push(...text.transcriptLines(result));
  if (out.length > 0 || result.verdict !== 'PASS') out.push(`rerun: ${result.rerun}`);
  if (out.length > 0) testCase.standardOutput(cdataText(out.join('\n')));
}

/** The one-line <failure>/<error> message: the reason, else the first check that did not pass. */
function message(result: CaseResult): string {
  const check = result.checks.find((item) => item.verdict !== 'PASS' && item.verdict !== 'INFO');
  const why = result.reason ?? (check ? `${check.requirement}: ${check.message}` : result.verdict);
  return truncate(why, 1000);
}

/**
 * junit-report-builder writes a bare <skipped/>; the reason belongs in its `message` (and the kind
 * of skip, where it is not a plain one, in `type`). The case's build is wrapped to set the
 * attributes on the element it just created.
 */
function skippedMessage(testCase: TestCase, reason: string, type?: string): void {
  const build = testCase.build.bind(testCase);
  testCase.build = (parent) => {
    const element = build(parent);
    for (const child of element.children) {
      const node = child as unknown as { name?: string; att?: (name: string, value: string) => unknown };
      if (node.name === 'skipped' && node.att) {
        if (type !== undefined) node.att('type', type);
        node.att('message', reason);
      }
    }
    return element;
  };
}

/**
 * CDATA sections cannot hold `]]>`, and xmlbuilder only splits the first one; every occurrence is
 * broken up here so target-controlled text cannot close the section.
 */
function cdataText(text: string): string {
  return text.replaceAll(']]>', ']] >');
}

function seconds(ms: number): number {
  return Number((ms / 1000).toFixed(3));
}
