// The Markdown summary of a run, for CI job summaries (GitHub's $GITHUB_STEP_SUMMARY, GitLab and
// others render it): the verdict, the counts, each case that fails the run with its reason and the
// command that re-runs it, then warnings, the baseline's expected failures and stale entries.
// Text from the target (reasons, descriptions) is escaped so it cannot add markup.
import type { CaseResult, RunResult } from '../harness/result.js';
import { COUNT_WORDS, failsOnStale, failsRun, isStrict, notSelectedText, runCountsLine, truncate } from './format.js';

export interface MarkdownOptions {
  /** WARN fails the run. Default: the run's `options.strict`. */
  strict?: boolean;
  /** Cases listed per section before the rest is only counted. Default 50. */
  maxCases?: number;
}

/** Text safe in Markdown: HTML and the characters that start markup are escaped, line breaks joined. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]{}()#+!|~])/g, '\\$1');
}

/** A fenced code block that the content cannot close (the fence is longer than any run of backticks in it). */
function codeBlock(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function caseItem(result: CaseResult, withRerun: boolean): string[] {
  const reason = result.reason === undefined ? '' : ` — ${escapeMarkdown(truncate(result.reason, 400))}`;
  const lines = [`- **${result.verdict}** \`${result.id.replace(/`/g, "'")}\` (${escapeMarkdown(result.requirements.join(', '))})${reason}`];
  if (result.baselineReason !== undefined) lines.push(`  baseline: ${escapeMarkdown(result.baselineReason)}`);
  if (withRerun) lines.push('', ...codeBlock(result.rerun, 'sh').split('\n').map((line) => `  ${line}`), '');
  return lines;
}

function section(title: string, cases: CaseResult[], max: number, withRerun: boolean): string[] {
  if (cases.length === 0) return [];
  const lines = ['', `#### ${title} (${cases.length})`, ''];
  for (const result of cases.slice(0, max)) lines.push(...caseItem(result, withRerun));
  if (cases.length > max) lines.push(`- … and ${cases.length - max} more (see the reports)`);
  return lines;
}

/** The Markdown summary of a run. */
export function renderMarkdown(run: RunResult, options: MarkdownOptions = {}): string {
  const strict = options.strict ?? isStrict(run);
  const max = options.maxCases ?? 50;
  const failOnStale = failsOnStale(run);
  const failing = run.cases.filter((result) => result.baseline !== 'stale' && failsRun(result, strict, failOnStale));
  const stale = run.cases.filter((result) => result.baseline === 'stale');
  const expected = run.cases.filter((result) => result.baseline === 'expected-failure' && !failing.includes(result));
  const warned = run.cases.filter((result) => result.verdict === 'WARN' && !failing.includes(result) && !expected.includes(result));
  const verdict = run.error !== undefined ? '⚠️ not run' : run.interrupted ? '⚠️ interrupted' : run.exitCode === 0 ? '✅ passed' : '❌ failed';
  const lines = [
    `### MCP Flow conformance: ${verdict}`,
    '',
    `Target \`${run.target.description.replace(/`/g, "'")}\` over ${escapeMarkdown(run.target.transport)}${run.target.protocolVersion ? `, protocol ${escapeMarkdown(run.target.protocolVersion)}` : ''}; exit code ${run.exitCode}${strict ? ' (strict: warnings fail)' : ''}.`,
  ];
  if (run.error !== undefined) lines.push('', `> The run stopped before its cases ran: ${escapeMarkdown(run.error.message)} (\`${run.error.code}\`)`);
  const shown = COUNT_WORDS.filter(([verdictName]) => run.summary[verdictName] > 0 || verdictName === 'PASS' || verdictName === 'FAIL');
  lines.push('', `| ${shown.map(([, word]) => word).join(' | ')} | total |`, `|${shown.map(() => '---:').join('|')}|---:|`, `| ${shown.map(([verdictName]) => run.summary[verdictName]).join(' | ')} | ${run.summary.total} |`);
  lines.push('', runCountsLine(run));
  const left = notSelectedText(run);
  if (left !== undefined) lines.push('', `${escapeMarkdown(left)}: left out by the filters.`);
  lines.push(...section('Failing cases', failing, max, true));
  if (stale.length > 0) {
    lines.push(...section(`Stale baseline entries: these cases now pass, ${failOnStale ? 'and fail the run (--fail-on-stale)' : 'remove them from the baseline'}`, stale, max, false));
  }
  lines.push(...section('Warnings (a broken SHOULD; they fail the run under --strict)', warned, max, true));
  lines.push(...section('Expected failures (listed in the baseline; they do not fail the run)', expected, max, false));
  return `${lines.join('\n')}\n`;
}
