// The Markdown summary for CI job summaries: verdict, counts, failing cases with their rerun
// commands, the baseline's entries; text from the target cannot add markup.
import { describe, expect, it } from 'vitest';
import { countVerdicts, type RunResult } from '../../src/harness/result.js';
import { escapeMarkdown, renderMarkdown } from '../../src/report/markdown.js';
import { HOSTILE, makeCase, sampleRun } from './run-fixture.js';

describe('Markdown summary', () => {
  it('says the verdict, the counts, and each failing case with its reason and rerun command', () => {
    const text = renderMarkdown(sampleRun());
    expect(text.startsWith('### MCP Flow conformance: ❌ failed\n')).toBe(true);
    expect(text).toContain('| passed | failed | skipped | warned | not applicable | timed out | errors | info | total |');
    expect(text).toContain('| 1 | 1 | 1 | 1 | 1 | 1 | 1 | 1 | 8 |');
    expect(text).toContain('1 passed, 1 failed, 1 skipped, 1 warned, 1 not applicable, 1 timed out, 1 errors, 1 info');
    expect(text).toContain('#### Failing cases (3)');
    expect(text).toContain('- **FAIL** `flow/fail-case` (WT-ENC-5, WT-FRAME-4) — initialize answered in CBOR');
    expect(text).toContain('  ```sh\n  npx mcp-flow-conformance run --case flow/fail-case\n  ```');
    expect(text).toContain('#### Warnings (a broken SHOULD; they fail the run under --strict) (1)');
  });

  it('lists expected failures and stale entries apart, and a run that passes with them says passed', () => {
    const expected = makeCase('FAIL', 1, { id: 'flow/expected', baseline: 'expected-failure', baselineReason: 'known bug #12' });
    const stale = makeCase('PASS', 0, { id: 'negotiation/stale', baseline: 'stale', baselineReason: 'was broken' });
    const cases = [expected, stale];
    const run: RunResult = { ...sampleRun(), cases, summary: countVerdicts(cases), exitCode: 0, notSelected: 3, options: { strict: false, baselineEntries: 2, shard: '1/2' } };
    const text = renderMarkdown(run);
    expect(text.startsWith('### MCP Flow conformance: ✅ passed')).toBe(true);
    expect(text).not.toContain('Failing cases');
    expect(text).toContain('#### Expected failures (listed in the baseline; they do not fail the run) (1)\n\n- **FAIL** `flow/expected`');
    expect(text).toContain('  baseline: known bug \\#12');
    expect(text).toContain('#### Stale baseline entries: these cases now pass, remove them from the baseline (1)');
    expect(text).toContain('1 expected failure, 1 stale');
    expect(text).toContain('3 not selected \\(--shard 1/2\\): left out by the filters.');
  });

  it('a run that stopped says why', () => {
    const run: RunResult = { ...sampleRun(), cases: [], summary: countVerdicts([]), exitCode: 2, error: { code: 'PREFLIGHT_FAILED', message: 'POST http://x/mcp answered 404 (text/html)' } };
    expect(renderMarkdown(run)).toContain('> The run stopped before its cases ran: POST http://x/mcp answered 404 \\(text/html\\) (`PREFLIGHT_FAILED`)');
  });

  it('escapes what the target controls: no HTML, no links, no code fence it can close', () => {
    const hostile = makeCase('FAIL', 3, { id: 'flow/hostile', reason: `${HOSTILE}\n# heading [link](http://x) \`\`\`` , rerun: "mcp-flow-conformance server --stdio 'x ```y' --case flow/hostile" });
    const run: RunResult = { ...sampleRun(), cases: [hostile], summary: countVerdicts([hostile]) };
    const text = renderMarkdown(run);
    // Outside code spans and fences (where Markdown shows text as is), no HTML is left.
    const prose = text.replace(/^ *(`{3,})sh\n[\s\S]*?\n *\1$/gm, '').replace(/`[^`\n]*`/g, '');
    expect(prose).not.toContain('<script>');
    expect(prose).not.toContain('<img');
    expect(text).not.toContain('[link](');
    expect(text).toContain('\\# heading');
    expect(text).toContain("  ````sh\n  mcp-flow-conformance server --stdio 'x ```y' --case flow/hostile\n  ````");
    expect(escapeMarkdown('a|b\nc')).toBe('a\\|b c');
  });
});
