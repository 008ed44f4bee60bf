import { describe, expect, it } from 'vitest';
import { VERDICTS, countVerdicts } from '../../src/harness/result.js';
import { escapeHtml, html } from '../../src/report/html-escape.js';
import { renderHtml } from '../../src/report/html.js';
import { HOSTILE, makeCase, sampleRun } from './run-fixture.js';

/** Every start tag in the document, with script and style bodies left out. */
function startTags(page: string): string[] {
  const markup = page.replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/g, '$1$2').replace(/(<style\b[^>]*>)[\s\S]*?(<\/style>)/g, '$1$2');
  return [...markup.matchAll(/<[a-zA-Z](?:[^>"]|"[^"]*")*>/g)].map((match) => match[0]);
}

/** A start tag with its attribute values emptied, so only names written by the reporter remain. */
function outsideValues(tag: string): string {
  return tag.replace(/"[^"]*"/g, '""');
}

/** One case's <details> block, from its start tag to its closing tag. */
function caseBlock(page: string, id: string): string {
  const at = page.indexOf(`<code>${escapeHtml(id)}</code>`);
  expect(at, id).toBeGreaterThan(-1);
  return page.slice(page.lastIndexOf('<details class="case', at), page.indexOf('</div>\n</details>\n', at));
}

describe('HTML report', () => {
  const hostileCase = makeCase('FAIL', 11, {
    id: `flow/"><script>alert(2)</script>`,
    suite: `flow" onmouseover="alert(3)`,
    title: HOSTILE,
    reason: HOSTILE,
    rerun: `run --case '"><img src=x onerror=alert(4)>'`,
  });
  const page = renderHtml(sampleRun({}, [hostileCase]));

  it('escapes every target-controlled string: no element or attribute comes from the data', () => {
    const tags = startTags(page);
    const names = new Set(tags.map((tag) => /^<([a-zA-Z0-9-]+)/.exec(tag)![1]!.toLowerCase()));
    expect(names.has('img')).toBe(false);
    expect(tags.filter((tag) => tag.startsWith('<script'))).toHaveLength(1);
    for (const tag of tags) expect(outsideValues(tag)).not.toMatch(/\son[a-z]+=/i);
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;');
    expect(page).toContain('data-suite="flow&#34; onmouseover=&#34;alert(3)"');
  });

  it('is self-contained: nothing loaded from anywhere, only its own nonce’d style and script run', () => {
    for (const tag of startTags(page)) expect(outsideValues(tag)).not.toMatch(/\s(src|href|action)=/i);
    expect(page).not.toMatch(/<link\b/i);
    const nonce = /script-src 'nonce-([^']+)'/.exec(page)?.[1];
    expect(nonce).toBeDefined();
    expect(page).toContain(`<script nonce="${nonce}">`);
    expect(page).toContain(`<style nonce="${nonce}">`);
    expect(page).toContain("default-src 'none'");
    // The inline script parses (compiled, not run).
    const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(page)![1]!;
    expect(() => new Function(script)).not.toThrow();
    // The stylesheet is inserted as written, not escaped.
    expect(page).toContain('details.case > summary {');
  });

  it('shows the counts at the top, a filter per verdict and per suite', () => {
    const top = page.slice(0, page.indexOf('<main>'));
    expect(top).toContain('<span class="n">2</span> failed');
    expect(top).toContain('<span class="n">1</span> timed out');
    expect(top).toContain('<span class="n">9</span> total');
    expect(top).toContain('1 passed, 2 failed, 1 skipped, 1 warned, 1 not applicable, 1 timed out, 1 errors, 1 info');
    for (const verdict of VERDICTS) expect(top).toContain(`<input type="checkbox" name="verdict" value="${verdict}" checked>`);
    expect(top).toContain('<option value="negotiation">negotiation</option>');
    expect(top).toContain('<option value="flow">flow</option>');
    expect(top).toContain('4 failing');
  });

  it('opens failing cases with checks, requirement text, transcript and a copyable rerun', () => {
    const failing = caseBlock(page, 'flow/fail-case');
    expect(failing).toMatch(/^<details class="case failing" data-verdict="FAIL" data-suite="flow" data-search="[^"]*" open>/);
    expect(failing).toContain('<blockquote>The initialize request and its result MUST be JSON.</blockquote>');
    expect(failing).toContain('<td>the result is JSON</td><td><pre>{\n  &#34;encoding&#34;: &#34;json&#34;\n}</pre></td>');
    // Transcript table: arrows, channels, pretty-printed JSON, hex for what did not decode.
    expect(failing).toContain('<td class="arrow" title="sent">→</td><td>control</td>');
    expect(failing).toContain('  &#34;method&#34;: &#34;initialize&#34;,');
    expect(failing).toContain('<div class="error"><code>INVALID_JSON</code> Unexpected end of JSON input</div><pre class="hex">000000  7b 22 69 64 22</pre>');
    expect(failing).toContain('<td>stream 4 (request 7, tag 1)</td>');
    expect(failing).toContain('… 9000 bytes in all');
    expect(failing).toContain('<code>npx mcp-flow-conformance run --case flow/fail-case</code> <button type="button" class="copy" data-copy="npx mcp-flow-conformance run --case flow/fail-case">copy</button>');
    expect(caseBlock(page, 'negotiation/pass-case')).toMatch(/^<details class="case" data-verdict="PASS"[^>]*>\n/);
  });

  it('renders an empty run', () => {
    const empty = renderHtml({ ...sampleRun(), cases: [], summary: countVerdicts([]), exitCode: 0 });
    expect(empty).toContain('<span class="n">0</span> total');
    expect(empty).toContain('conformant');
    expect(empty).not.toContain('<details class="case');
  });

  it('treats WARN as failing under strict', () => {
    const strict = renderHtml(sampleRun({ strict: true }));
    expect(caseBlock(strict, 'negotiation/warn-case')).toMatch(/^<details class="case failing" data-verdict="WARN"/);
    expect(caseBlock(page, 'negotiation/warn-case')).toMatch(/^<details class="case" data-verdict="WARN"/);
  });
});

describe('html template tag', () => {
  it('escapes interpolations and keeps nested html', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${`"'<>&\``}">${inner}${[1, '<', null, undefined, false]}</p>`.text).toBe(
      '<p title="&#34;&#39;&#60;&#62;&#38;&#96;"><b>&#60;i&#62;</b>1&#60;</p>',
    );
  });
});

describe('HTML report: the baseline and the selection', () => {
  const expected = makeCase('FAIL', 1, { id: 'flow/expected', baseline: 'expected-failure', baselineReason: 'known bug #12' });
  const stale = makeCase('PASS', 0, { id: 'negotiation/stale', baseline: 'stale', baselineReason: 'was broken' });
  const cases = [expected, stale];
  const run = { ...sampleRun(), cases, summary: countVerdicts(cases), exitCode: 0 as const, notSelected: 4, options: { strict: false, baselineEntries: 2, shard: '2/3' } };

  it('shows expected and stale counts beside the verdicts, and does not call a run with expected failures failing', () => {
    const page = renderHtml(run);
    const top = page.slice(0, page.indexOf('<main>'));
    expect(top).toContain('<span class="n">1</span> expected failures</span>');
    expect(top).toContain('<span class="n">1</span> stale</span>');
    expect(top).toContain('1 passed, 1 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info, 1 expected failure, 1 stale');
    expect(top).toContain('<span class="status good">passing, 1 expected failure</span>');
    expect(top).toContain('<dt>Not selected</dt><dd>4 not selected (--shard 2/3): left out by the filters, not in this report</dd>');
    expect(caseBlock(page, 'flow/expected')).toMatch(/^<details class="case" data-verdict="FAIL"/);
    expect(caseBlock(page, 'flow/expected')).toContain('an expected failure: it does not fail the run (<q>known bug #12</q>)');
  });

  it('marks a stale entry failing under --fail-on-stale', () => {
    const page = renderHtml({ ...run, exitCode: 1, options: { ...run.options, failOnStale: true } });
    expect(page).toContain('<span class="status bad">1 failing</span>');
    expect(caseBlock(page, 'negotiation/stale')).toMatch(/^<details class="case failing" data-verdict="PASS"/);
  });
});
