// The HTML report: one self-contained file (inline CSS and JS, no network, a CSP that allows only
// its own nonce'd style and script). Summary counts on top, filters by verdict, suite and text,
// every case expandable with its checks, requirement text, transcript table and rerun command.
import { randomBytes } from 'node:crypto';
import { VERDICTS, type CaseResult, type CheckResult, type RunResult, type Verdict } from '../harness/result.js';
import type { TranscriptEntry } from '../transport/transcript.js';
import { baselineCounts } from '../harness/baseline.js';
import { COUNT_WORDS, arrow, describeChannel, displayJson, failsOnStale, failsRun, formatDuration, groupBySuite, isStrict, notSelectedText, omittedMessage, runCountsLine } from './format.js';
import { SafeHtml, html } from './html-escape.js';

export interface HtmlOptions {
  /** WARN counts as failing. Default: the run's `options.strict`. */
  strict?: boolean;
  /** Bytes of hex shown per transcript entry. Default 1024. */
  maxHexBytes?: number;
}

const WORDS = new Map(COUNT_WORDS);

/** The HTML report text. */
export function renderHtml(run: RunResult, options: HtmlOptions = {}): string {
  const strict = options.strict ?? isStrict(run);
  const maxHexBytes = options.maxHexBytes ?? 1024;
  const nonce = randomBytes(16).toString('base64');
  const failOnStale = failsOnStale(run);
  const suites = groupBySuite(run.cases);
  const failing = run.cases.filter((result) => failsRun(result, strict, failOnStale)).length;
  const withBaseline = run.options['baselineEntries'] !== undefined;
  const { expectedFailures, stale } = baselineCounts(run.cases);
  const notSelected = notSelectedText(run);
  const status = run.error !== undefined ? 'not run' : run.interrupted ? 'interrupted' : failing > 0 ? `${failing} failing` : run.exitCode !== 0 ? `exit code ${run.exitCode}` : expectedFailures > 0 ? `passing, ${expectedFailures} expected failure${expectedFailures === 1 ? '' : 's'}` : 'conformant';
  const title = `MCP Flow conformance: ${run.target.description}`;

  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style nonce="${nonce}">${new SafeHtml(STYLE)}</style>
</head>
<body>
<header>
<h1>${run.tool.name} ${run.tool.version} <span class="${failing > 0 || run.exitCode !== 0 ? 'status bad' : 'status good'}">${status}</span></h1>
<dl class="meta">
<dt>${run.target.role === 'client' ? 'Client under test' : 'Target'}</dt><dd><code>${run.target.description}</code> over ${run.target.transport}</dd>
${run.target.protocolVersion === undefined ? '' : html`<dt>Protocol version</dt><dd><code>${run.target.protocolVersion}</code></dd>`}
${run.target.serverInfo === undefined ? '' : html`<dt>Server info</dt><dd><pre>${displayJson(run.target.serverInfo, 2)}</pre></dd>`}
${run.target.clientInfo === undefined ? '' : html`<dt>Client info</dt><dd><pre>${displayJson(run.target.clientInfo, 2)}</pre></dd>`}
${run.target.capabilities === undefined ? '' : html`<dt>Capabilities</dt><dd><details><summary>declared capabilities</summary><pre>${displayJson(run.target.capabilities, 2)}</pre></details></dd>`}
<dt>Started</dt><dd>${new Date(run.startedAt).toISOString()} (${formatDuration(run.durationMs)})</dd>
<dt>Options</dt><dd><code>${displayJson(run.options)}</code></dd>
${notSelected === undefined ? '' : html`<dt>Not selected</dt><dd>${notSelected}: left out by the filters, not in this report</dd>`}
<dt>Exit code</dt><dd>${run.exitCode}${strict ? ' (strict: WARN fails)' : ''}</dd>
</dl>
<div class="summary">
${VERDICTS.map((verdict) => html`<button type="button" class="tile v-${verdict}" data-only="${verdict}" title="show only ${verdict}"><span class="n">${run.summary[verdict]}</span> ${WORDS.get(verdict)}</button>`)}
<span class="tile total"><span class="n">${run.summary.total}</span> total</span>
${withBaseline ? html`<span class="tile baseline" title="listed in the baseline and still failing: they do not fail the run"><span class="n">${expectedFailures}</span> expected failures</span>
<span class="tile baseline${stale > 0 ? ' stale' : ''}" title="listed in the baseline but now passing: remove them${failOnStale ? ' (they fail the run: --fail-on-stale)' : ''}"><span class="n">${stale}</span> stale</span>` : ''}
</div>
<p class="counts" id="counts-line">${runCountsLine(run)}</p>
${run.error === undefined ? '' : html`<p class="run-error">The run stopped before its cases ran: ${run.error.message} <code>${run.error.code}</code></p>`}
</header>
<nav class="filters">
<fieldset><legend>Verdict</legend>
${VERDICTS.map((verdict) => html`<label class="v-${verdict}"><input type="checkbox" name="verdict" value="${verdict}" checked> ${verdict} (${run.summary[verdict]})</label>`)}
</fieldset>
<label>Suite <select id="suite"><option value="">all suites</option>${[...suites.keys()].map((suite) => html`<option value="${suite}">${suite}</option>`)}</select></label>
<label>Search <input type="search" id="search" placeholder="case ID, title, requirement"></label>
<button type="button" id="expand-failing">expand failing</button>
<button type="button" id="collapse">collapse all</button>
<span id="shown"></span>
</nav>
<main>
${[...suites].map(([suite, cases]) => renderSuite(suite, cases, strict, failOnStale, maxHexBytes))}
</main>
<script nonce="${nonce}">${new SafeHtml(SCRIPT)}</script>
</body>
</html>
`;
  return page.text;
}

function renderSuite(suite: string, cases: CaseResult[], strict: boolean, failOnStale: boolean, maxHexBytes: number): SafeHtml {
  const counts = VERDICTS.map((verdict) => [verdict, cases.filter((result) => result.verdict === verdict).length] as const).filter(([, n]) => n > 0);
  return html`<section class="suite" data-suite="${suite}">
<h2>${suite} <small>${counts.map(([verdict, n]) => html`<span class="badge v-${verdict}">${n} ${verdict}</span> `)}</small></h2>
${cases.map((result) => renderCase(result, strict, failOnStale, maxHexBytes))}
</section>
`;
}

function renderCase(result: CaseResult, strict: boolean, failOnStale: boolean, maxHexBytes: number): SafeHtml {
  const failing = failsRun(result, strict, failOnStale);
  const search = [result.id, result.title, ...result.requirements].join(' ').toLowerCase();
  return html`<details class="case${failing ? ' failing' : ''}" data-verdict="${result.verdict}" data-suite="${result.suite}" data-search="${search}"${failing ? html` open` : ''}>
<summary><span class="badge v-${result.verdict}">${result.verdict}</span> <code>${result.id}</code> ${result.title} <span class="dim">${formatDuration(result.durationMs)}</span>${result.baseline === 'expected-failure' ? html` <span class="tag">expected failure</span>` : ''}${result.baseline === 'stale' ? html` <span class="tag warn">baseline stale</span>` : ''}</summary>
<div class="body">
<dl>
<dt>Requirements</dt><dd>${result.requirements.map((id) => html`<code>${id}</code> `)}(${result.level})</dd>
${result.reason === undefined ? '' : html`<dt>Reason</dt><dd>${result.reason}</dd>`}
${result.baseline === undefined ? '' : html`<dt>Baseline</dt><dd>${result.baseline === 'stale' ? 'listed as an expected failure, but now passes: remove the entry' : 'an expected failure: it does not fail the run'}${result.baselineReason === undefined ? '' : html` (<q>${result.baselineReason}</q>)`}</dd>`}
${result.requirementText === undefined ? '' : html`<dt>Requirement</dt><dd><blockquote>${result.requirementText}</blockquote></dd>`}
${result.seed === undefined ? '' : html`<dt>Seed</dt><dd><code>${result.seed}</code>${result.path === undefined ? '' : html` path <code>${result.path}</code>`}</dd>`}
<dt>Time limit</dt><dd>${formatDuration(result.timeLimitMs)}</dd>
</dl>
${result.checks.length === 0 ? '' : renderChecks(result.checks)}
${result.transcript && result.transcript.length > 0 ? renderTranscript(result.transcript, maxHexBytes) : ''}
<div class="rerun"><span>Rerun</span> <code>${result.rerun}</code> <button type="button" class="copy" data-copy="${result.rerun}">copy</button></div>
</div>
</details>
`;
}

function renderChecks(checks: CheckResult[]): SafeHtml {
  return html`<table class="checks">
<thead><tr><th>Verdict</th><th>Requirement</th><th>Check</th><th>Expected</th><th>Actual</th></tr></thead>
<tbody>
${checks.map(
  (check) => html`<tr><td><span class="badge v-${check.verdict}">${check.verdict}</span></td><td><code>${check.requirement}</code> ${check.level}</td><td>${check.message}</td><td>${'expected' in check ? html`<pre>${displayJson(check.expected, 2)}</pre>` : ''}</td><td>${'actual' in check ? html`<pre>${displayJson(check.actual, 2)}</pre>` : ''}</td></tr>
`,
)}</tbody>
</table>
`;
}

function renderTranscript(entries: TranscriptEntry[], maxHexBytes: number): SafeHtml {
  const first = entries[0]?.at ?? 0;
  return html`<table class="transcript">
<thead><tr><th>#</th><th>Time</th><th></th><th>Channel</th><th>Bytes</th><th>Message</th></tr></thead>
<tbody>
${entries.map(
  (entry) => html`<tr class="dir-${entry.direction}"><td>${entry.seq}</td><td>+${entry.at - first} ms</td><td class="arrow" title="${entry.direction}">${arrow(entry.direction)}</td><td>${describeChannel(entry.channel)}</td><td>${entry.byteLength}</td><td>${renderEntryBody(entry, maxHexBytes)}</td></tr>
`,
)}</tbody>
</table>
`;
}

function renderEntryBody(entry: TranscriptEntry, maxHexBytes: number): SafeHtml {
  const hex = entry.hex ?? '';
  const shownHex = hex.slice(0, maxHexBytes * 2);
  const cut = shownHex.length < hex.length || entry.truncated === true;
  const omitted = omittedMessage(entry);
  return html`${omitted === undefined ? '' : html`<div class="note">${omitted}</div>`}${entry.note === undefined ? '' : html`<div class="note">${entry.note}</div>`}${entry.error === undefined ? '' : html`<div class="error"><code>${entry.error.code}</code> ${entry.error.message}</div>`}${entry.decoded === undefined ? '' : html`<pre class="json">${displayJson(entry.decoded, 2)}</pre>`}${hex === '' ? '' : entry.decoded === undefined ? html`<pre class="hex">${hexLines(shownHex)}${cut ? `\n… ${entry.byteLength} bytes in all` : ''}</pre>` : html`<details><summary>hex</summary><pre class="hex">${hexLines(shownHex)}${cut ? `\n… ${entry.byteLength} bytes in all` : ''}</pre></details>`}`;
}

/** Hex as 16 bytes a line, bytes spaced. */
function hexLines(hex: string): string {
  const lines: string[] = [];
  for (let offset = 0; offset < hex.length; offset += 32) {
    const line = hex.slice(offset, offset + 32).replace(/(..)(?!$)/g, '$1 ');
    lines.push(`${(offset / 2).toString(16).padStart(6, '0')}  ${line}`);
  }
  return lines.join('\n');
}

const VERDICT_COLOURS: Record<Verdict, string> = {
  PASS: '#1a7f37',
  FAIL: '#cf222e',
  WARN: '#9a6700',
  INFO: '#0969da',
  NOT_APPLICABLE: '#6e7781',
  SKIPPED: '#6e7781',
  TIMEOUT: '#bc4c00',
  ERROR: '#8250df',
};

const STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #656d76; --line: #d0d7de; --panel: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --line: #30363d; --panel: #161b22; } }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; max-width: 1200px; padding: 1rem 1.5rem 4rem; }
code, pre { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; max-height: 28em; overflow: auto; }
h1 { font-size: 1.5rem; margin: .5rem 0; } h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
.status { font-size: .9rem; padding: .15rem .6rem; border-radius: 1rem; color: #fff; vertical-align: middle; }
.status.good { background: #1a7f37; } .status.bad { background: #cf222e; }
dl.meta, .body dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0; }
dt { color: var(--muted); } dd { margin: 0; min-width: 0; }
.summary { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0 .25rem; }
.tile { border: 1px solid var(--line); background: var(--panel); color: var(--fg); border-radius: .5rem; padding: .4rem .8rem; font: inherit; cursor: pointer; border-left-width: 6px; }
.tile .n { font-weight: 700; font-size: 1.2rem; margin-right: .25rem; }
.tile.total, .tile.baseline { cursor: default; }
.tile.baseline { border-left-color: var(--muted); } .tile.baseline.stale { border-left-color: #9a6700; }
.counts { color: var(--muted); margin: .25rem 0 1rem; }
.run-error { color: #cf222e; font-weight: 600; }
.filters { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line); padding: .5rem 0; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; z-index: 1; }
.filters fieldset { border: 0; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: .25rem .75rem; }
.filters legend { float: left; margin-right: .5rem; color: var(--muted); }
.badge { display: inline-block; min-width: 4.5em; text-align: center; border-radius: .25rem; padding: 0 .35rem; color: #fff; font-size: 12px; font-weight: 600; }
details.case { border: 1px solid var(--line); border-radius: .375rem; margin: .35rem 0; background: var(--bg); }
details.case > summary { cursor: pointer; padding: .35rem .6rem; list-style-position: inside; }
details.case.failing > summary { background: var(--panel); }
.body { padding: .25rem .9rem .8rem; border-top: 1px solid var(--line); }
.dim { color: var(--muted); font-size: 12px; }
.tag { border: 1px solid var(--line); border-radius: 1rem; padding: 0 .5rem; font-size: 12px; } .tag.warn { border-color: #9a6700; }
blockquote { margin: 0; padding-left: .75rem; border-left: 3px solid var(--line); font-style: italic; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; table-layout: auto; }
th, td { border: 1px solid var(--line); padding: .25rem .4rem; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td pre { max-width: 60ch; }
.transcript td:nth-child(6) pre { max-width: none; }
.transcript .arrow { font-size: 1.1rem; text-align: center; }
tr.dir-sent .arrow { color: #0969da; } tr.dir-received .arrow { color: #1a7f37; } tr.dir-local td { color: var(--muted); }
.note { color: var(--muted); font-style: italic; } .error { color: #cf222e; }
.rerun { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; } .rerun > span { color: var(--muted); }
.rerun code { background: var(--panel); padding: .15rem .4rem; border-radius: .25rem; }
button { font: inherit; cursor: pointer; }
.hidden { display: none; }
${VERDICTS.map((verdict) => `.badge.v-${verdict} { background: ${VERDICT_COLOURS[verdict]}; } .tile.v-${verdict} { border-left-color: ${VERDICT_COLOURS[verdict]}; }`).join('\n')}
`;

// Filtering and copying only; the script reads no report data except the DOM it filters. STYLE and
// SCRIPT are constants of this file, inserted unescaped (neither contains `</`).
const SCRIPT = `
(function () {
  var cases = Array.prototype.slice.call(document.querySelectorAll('details.case'));
  var suites = Array.prototype.slice.call(document.querySelectorAll('section.suite'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[name=verdict]'));
  var suite = document.getElementById('suite');
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  function apply() {
    var verdicts = {};
    boxes.forEach(function (box) { verdicts[box.value] = box.checked; });
    var text = search.value.trim().toLowerCase();
    var count = 0;
    cases.forEach(function (node) {
      var visible = verdicts[node.dataset.verdict] && (!suite.value || node.dataset.suite === suite.value) &&
        (!text || node.dataset.search.indexOf(text) !== -1);
      node.classList.toggle('hidden', !visible);
      if (visible) count++;
    });
    suites.forEach(function (section) {
      section.classList.toggle('hidden', !section.querySelector('details.case:not(.hidden)'));
    });
    shown.textContent = count + ' of ' + cases.length + ' cases shown';
  }
  boxes.forEach(function (box) { box.addEventListener('change', apply); });
  suite.addEventListener('change', apply);
  search.addEventListener('input', apply);
  Array.prototype.forEach.call(document.querySelectorAll('.tile[data-only]'), function (tile) {
    tile.addEventListener('click', function () {
      var only = tile.dataset.only;
      var already = boxes.every(function (box) { return box.checked === (box.value === only); });
      boxes.forEach(function (box) { box.checked = already || box.value === only; });
      apply();
    });
  });
  document.getElementById('expand-failing').addEventListener('click', function () {
    cases.forEach(function (node) { node.open = node.classList.contains('failing'); });
  });
  document.getElementById('collapse').addEventListener('click', function () {
    cases.forEach(function (node) { node.open = false; });
  });
  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (button) {
    button.addEventListener('click', function () {
      var text = button.dataset.copy;
      function done(ok) { button.textContent = ok ? 'copied' : 'select and copy'; setTimeout(function () { button.textContent = 'copy'; }, 1500); }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(text)); });
      } else {
        done(fallback(text));
      }
    });
  });
  function fallback(text) {
    var area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (error) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }
  apply();
})();
`;
