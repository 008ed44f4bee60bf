import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RunEvent } from '../../src/harness/runner.js';
import { countVerdicts, type RunResult } from '../../src/harness/result.js';
import { ConsoleReporter, renderConsoleReport, useColour } from '../../src/report/console.js';
import type { ReportEvent } from '../../src/report/events.js';
import { makeCase, sampleRun } from './run-fixture.js';

const ANSI = /\u001b\[/;

function lastLine(text: string): string {
  const lines = text.trimEnd().split('\n');
  return lines[lines.length - 1]!;
}

function capture(isTTY: boolean): { out: { write(text: string): void; isTTY: boolean; columns: number }; text(): string } {
  const chunks: string[] = [];
  return { out: { write: (text: string) => void chunks.push(text), isTTY, columns: 80 }, text: () => chunks.join('') };
}

describe('console report', () => {
  it('ends with the counts line, passed and failed first, every verdict counted', () => {
    const text = renderConsoleReport(sampleRun());
    expect(lastLine(text)).toBe('1 passed, 1 failed, 1 skipped, 1 warned, 1 not applicable, 1 timed out, 1 errors, 1 info');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('counts zeros too', () => {
    const cases = [makeCase('PASS', 0), makeCase('PASS', 2, { id: 'negotiation/second' })];
    const run: RunResult = { ...sampleRun(), cases, summary: countVerdicts(cases), exitCode: 0 };
    expect(lastLine(renderConsoleReport(run))).toBe('2 passed, 0 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
    expect(renderConsoleReport(run)).not.toContain('Failures');
  });

  it('explains a failure: expected and actual, the requirement text, the transcript, the rerun', () => {
    const text = renderConsoleReport(sampleRun());
    const lines = text.split('\n');
    expect(lines).toContain('Failures (3)');
    expect(text).toContain('✗ FAIL flow/fail-case — A FAIL case');
    expect(text).toContain('    reason: initialize answered in CBOR');
    expect(text).toContain('    requirement: "The initialize request and its result MUST be JSON."');
    expect(text).toContain('    FAIL WT-ENC-5 (MUST): the result is JSON');
    expect(text).toContain('      expected: {"encoding":"json"}');
    expect(text).toContain('      actual:   {"encoding":"cbor","firstByte":162}');
    // The passing check of a failing case is not listed.
    expect(text).not.toContain('a response arrived');
    // Transcript: arrows, channel, compact JSON, hex when it did not decode, BigInt as digits.
    expect(text).toContain('      #1 → control  {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}');
    expect(text).toContain('      #2 ← control  [INVALID_JSON] Unexpected end of JSON input hex 7b 22 69 64 22 (5 bytes)');
    expect(text).toContain('      #3 ← stream 4 (request 7, tag 1)  {"id":22539340290692258087863249,');
    expect(text).toContain('      #0 • session  (session open)');
    expect(text).toContain('    seed: 1234   path: 0:1:2');
    expect(text).toContain('    rerun: npx mcp-flow-conformance run --case flow/fail-case');
    // TIMEOUT and ERROR are failures with their reasons.
    expect(text).toContain('⏱ TIMEOUT negotiation/timeout-case');
    expect(text).toContain('    reason: harness bug: TypeError: x is undefined');
  });

  it('lists WARN under warnings, and under failures with strict', () => {
    const relaxed = renderConsoleReport(sampleRun());
    expect(relaxed).toContain('Warnings (1; they fail the run under --strict)');
    const strict = renderConsoleReport(sampleRun({ strict: true }));
    expect(strict).toContain('Failures (4)');
    expect(strict).not.toContain('Warnings (');
    expect(strict).toContain('! WARN negotiation/warn-case — A WARN case');
  });

  it('truncates long values and keeps the last transcript entries', () => {
    const text = renderConsoleReport(sampleRun(), { maxChars: 40, transcriptEntries: 2 });
    expect(text).toContain('transcript (last 2 of 4):');
    expect(text).not.toContain('#1 →');
    expect(text).toMatch(/#3 ← stream 4 \(request 7, tag 1\) {2}.{40}… \(\d+ more chars\)/);
  });

  it('shows the reason of every case that did not pass on its line', () => {
    const text = renderConsoleReport(sampleRun());
    expect(text).toContain('- SKIPPED  flow/skipped-case  A SKIPPED case (17 ms) — excluded by --exclude flow/*');
    expect(text).toContain('- NOT_APPLICABLE  negotiation/not-applicable-case');
    expect(text).toContain('— the server does not declare the flow capability');
    expect(text).toContain('⏱ TIMEOUT  negotiation/timeout-case  A TIMEOUT case (18 ms) — no answer to tools/list within 5000 ms');
    expect(text).toContain('  ✓ PASS  negotiation/pass-case  A PASS case (12 ms)\n');
  });

  it('prints a target’s control characters as escapes, so they cannot drive the terminal', () => {
    const hostile = makeCase('FAIL', 1, {
      id: 'flow/esc',
      title: 'title \u001b[2J\u0007',
      reason: 'reason \u001b]0;owned\u0007 \r overwritten \u202e',
    });
    hostile.transcript![2]!.error = { code: 'INVALID_JSON', message: 'bad \u001b[31m' };
    hostile.transcript![0]!.note = 'note \u009b';
    // JSON text leaves C1 controls, line separators and bidi overrides as they are.
    hostile.checks.push({ requirement: 'WT-ENC-5', level: 'MUST', verdict: 'FAIL', message: 'echo', expected: 'x\u2028', actual: { '\u202ekey': 'csi \u009b2J' } });
    const text = renderConsoleReport(sampleRun({}, [hostile]));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain('title \\u001b[2J\\u0007');
    expect(text).toContain('reason: reason \\u001b]0;owned\\u0007 \\u000d overwritten \\u202e');
    expect(text).toContain('[INVALID_JSON] bad \\u001b[31m');
    expect(text).toContain('(note \\u009b)');
    expect(text).toContain('expected: "x\\u2028"');
    expect(text).toContain('actual:   {"\\u202ekey":"csi \\u009b2J"}');
  });

  it('groups a finished run by suite', () => {
    const text = renderConsoleReport(sampleRun());
    const headers = text.split('\n').filter((line) => line === 'negotiation' || line === 'flow');
    expect(headers).toEqual(['negotiation', 'flow']);
  });
});

describe('colour', () => {
  it('only on a TTY, and never with NO_COLOR set', () => {
    expect(useColour({ write() {}, isTTY: true }, { env: {} })).toBe(true);
    expect(useColour({ write() {}, isTTY: true }, { env: { NO_COLOR: '' } })).toBe(true);
    expect(useColour({ write() {}, isTTY: true }, { env: { NO_COLOR: '1' } })).toBe(false);
    expect(useColour({ write() {}, isTTY: false }, { env: {} })).toBe(false);
    expect(useColour({ write() {} }, { env: {} })).toBe(false);
    expect(useColour({ write() {}, isTTY: false }, { env: {}, color: true })).toBe(true);
  });

  it('paints a TTY and leaves a pipe plain', () => {
    const tty = capture(true);
    const reporter = new ConsoleReporter({ out: tty.out, env: {} });
    reporter.handle({ type: 'run-end', result: sampleRun() });
    expect(tty.text()).toMatch(ANSI);

    const pipe = capture(false);
    new ConsoleReporter({ out: pipe.out, env: {} }).handle({ type: 'run-end', result: sampleRun() });
    expect(pipe.text()).not.toMatch(ANSI);

    const noColor = capture(true);
    new ConsoleReporter({ out: noColor.out, env: { NO_COLOR: '1' } }).handle({ type: 'case-end', result: makeCase('FAIL', 1) });
    expect(noColor.text()).not.toMatch(/\u001b\[\d+m/);
  });
});

describe('live progress', () => {
  it('takes the runner’s events as they are', () => {
    expectTypeOf<RunEvent>().toEqualTypeOf<ReportEvent>();
    const onEvent: (event: RunEvent) => void = new ConsoleReporter({ out: capture(false).out }).handle;
    expect(typeof onEvent).toBe('function');
  });

  it('prints a line per finished case under its suite, with progress against the plan', () => {
    const pipe = capture(false);
    const reporter = new ConsoleReporter({ out: pipe.out, env: {} });
    const first = makeCase('PASS', 0, { id: 'negotiation/a' });
    const second = makeCase('FAIL', 2, { id: 'negotiation/b' });
    const run: RunResult = { ...sampleRun(), cases: [first, second], summary: countVerdicts([first, second]) };
    const events: ReportEvent[] = [
      { type: 'run-start', planned: [{ suite: 'negotiation', caseId: 'negotiation/a' }, { suite: 'negotiation', caseId: 'negotiation/b' }] },
      { type: 'case-start', caseId: 'negotiation/a', suite: 'negotiation' },
      { type: 'case-end', result: first },
      { type: 'case-start', caseId: 'negotiation/b', suite: 'negotiation' },
      { type: 'case-end', result: second },
      { type: 'run-end', result: run },
    ];
    // Unbound, as the runner's `onEvent` receives it.
    const { handle } = reporter;
    for (const event of events) handle(event);
    const lines = pipe.text().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'negotiation',
      '  [1/2] ✓ PASS  negotiation/a  A PASS case (12 ms)',
      '  [2/2] ✗ FAIL  negotiation/b  A FAIL case (14 ms) — initialize answered in CBOR',
    ]);
    // Not a TTY: no status line and no cursor control.
    expect(pipe.text()).not.toContain('\r');
    expect(lastLine(pipe.text())).toBe('1 passed, 1 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info');
  });

  it('keeps a status line on a TTY and clears it before each result line', () => {
    const tty = capture(true);
    const reporter = new ConsoleReporter({ out: tty.out, color: false });
    reporter.handle({ type: 'run-start', planned: [{ suite: 'flow', caseId: 'flow/a' }, { suite: 'flow', caseId: 'flow/b' }] });
    reporter.handle({ type: 'case-start', caseId: 'flow/a', suite: 'flow' });
    expect(tty.text()).toBe('\r\u001b[2Krunning 1: flow 0/2');
    reporter.handle({ type: 'case-start', caseId: 'flow/b', suite: 'flow' });
    reporter.handle({ type: 'case-end', result: makeCase('PASS', 1, { id: 'flow/a' }) });
    const text = tty.text();
    expect(text).toContain('\r\u001b[2Kflow\n  [1/2] ✓ PASS  flow/a');
    expect(text.endsWith('\r\u001b[2Krunning 1: flow 1/2')).toBe(true);
  });

  it('finishes on run-error: clears the status line and names the error last', () => {
    const tty = capture(true);
    const reporter = new ConsoleReporter({ out: tty.out, color: false });
    reporter.handle({ type: 'run-start', planned: [{ suite: 'flow', caseId: 'flow/a' }] });
    reporter.handle({ type: 'case-start', caseId: 'flow/a', suite: 'flow' });
    reporter.handle({ type: 'run-error', error: { code: 'TARGET_UNREACHABLE', message: 'cannot connect to https://127.0.0.1:9/mcp' } });
    const text = tty.text();
    expect(text.endsWith('\r\u001b[2Krun stopped: cannot connect to https://127.0.0.1:9/mcp [TARGET_UNREACHABLE]\n')).toBe(true);
  });
});

describe('console: the baseline', () => {
  function baselineRun(options: Record<string, unknown> = {}): RunResult {
    const expected = makeCase('FAIL', 1, { id: 'flow/expected', baseline: 'expected-failure', baselineReason: 'known bug #12' });
    const stale = makeCase('PASS', 0, { id: 'negotiation/stale', baseline: 'stale', baselineReason: 'was broken' });
    const cases = [expected, stale];
    return { ...sampleRun(), cases, summary: countVerdicts(cases), exitCode: 0, notSelected: 7, options: { strict: false, baselineEntries: 2, exclude: ['x/*'], ...options } };
  }

  it('counts expected failures and stale entries on the closing line and lists them, apart from the failures', () => {
    const text = renderConsoleReport(baselineRun());
    expect(lastLine(text)).toBe('1 passed, 1 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info, 1 expected failure, 1 stale');
    expect(text).not.toContain('Failures (');
    expect(text).toContain('Expected failures (1; listed in the baseline, they do not fail the run)');
    expect(text).toContain('  ✗ FAIL flow/expected — initialize answered in CBOR\n      baseline: known bug #12');
    expect(text).toContain('Stale baseline entries (1; these cases now pass: remove them, or use --fail-on-stale to fail on them)\n  negotiation/stale (PASS) — baseline: was broken');
    expect(text).toContain('2 cases in 1.23 s, 7 not selected (--exclude x/*), exit code 0');
  });

  it('says a stale entry fails the run under --fail-on-stale', () => {
    const text = renderConsoleReport({ ...baselineRun({ failOnStale: true }), exitCode: 1 });
    expect(text).toContain('Stale baseline entries (1; these cases now pass: they fail the run (--fail-on-stale))');
  });

  it('leaves the closing line as it was when the run had no baseline', () => {
    expect(lastLine(renderConsoleReport(sampleRun()))).toMatch(/ 1 info$/);
  });
});

describe('colour from the environment', () => {
  it('FORCE_COLOR colours output that is not a terminal (CI logs) and wins over NO_COLOR; FORCE_COLOR=0 or false turns it off', () => {
    const pipe = { write() {}, isTTY: false };
    const tty = { write() {}, isTTY: true };
    expect(useColour(pipe, { env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(useColour(pipe, { env: { FORCE_COLOR: '' } })).toBe(true);
    expect(useColour(pipe, { env: { FORCE_COLOR: '3', NO_COLOR: '1' } })).toBe(true);
    expect(useColour(tty, { env: { FORCE_COLOR: '0' } })).toBe(false);
    expect(useColour(tty, { env: { FORCE_COLOR: 'false' } })).toBe(false);
    expect(useColour(tty, { env: { NO_COLOR: '1' } })).toBe(false);
    expect(useColour(pipe, { env: { FORCE_COLOR: '1' }, color: false })).toBe(false);
  });
});
