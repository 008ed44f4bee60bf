// The console reporter: a line per finished case as the run goes (grouped under its suite, with a
// live status line on a TTY), then every failure explained, then the closing counts line.
import type { CaseResult, CheckResult, RunResult, Verdict } from '../harness/result.js';
import type { ReportEvent, ReportListener } from './events.js';
import {
  arrow,
  describeChannel,
  describeEntry,
  displayJson,
  failsOnStale,
  failsRun,
  formatDuration,
  groupBySuite,
  isStrict,
  needsExplanation,
  notSelectedText,
  printable as p,
  runCountsLine,
  truncate,
} from './format.js';

/** Where the console reporter writes (process.stdout, or a buffer in tests). */
export interface ConsoleOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ConsoleReporterOptions {
  out?: ConsoleOutput;
  /** Force colour on or off. Default: FORCE_COLOR, else on when `out` is a TTY and NO_COLOR is unset or empty. */
  color?: boolean;
  /** Environment read for FORCE_COLOR and NO_COLOR (default process.env). */
  env?: Record<string, string | undefined>;
  /** WARN fails the run. Default: the run's `options.strict` once known, else false. */
  strict?: boolean;
  /** Transcript entries shown per explained case (the last ones). Default 12. */
  transcriptEntries?: number;
  /** Characters of a value or decoded message shown before it is cut. Default 240. */
  maxChars?: number;
  /**
   * Print the error of a run that stopped (`run-error`). Default true; the CLI prints it once
   * itself, as its error line.
   */
  printRunError?: boolean;
}

type Colour = 'red' | 'green' | 'yellow' | 'cyan' | 'magenta' | 'dim' | 'bold';
const ANSI: Record<Colour, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
  dim: [2, 22],
  bold: [1, 22],
};

const MARKS: Record<Verdict, [string, Colour]> = {
  PASS: ['✓', 'green'],
  FAIL: ['✗', 'red'],
  WARN: ['!', 'yellow'],
  INFO: ['i', 'cyan'],
  NOT_APPLICABLE: ['-', 'dim'],
  SKIPPED: ['-', 'dim'],
  TIMEOUT: ['⏱', 'red'],
  ERROR: ['✗', 'magenta'],
};

/**
 * Colour decision: the explicit option; else FORCE_COLOR (set and not "0" or "false": colour even
 * without a terminal, as in GitHub Actions logs; "0"/"false": none); else NO_COLOR set and not
 * empty (https://no-color.org): none; else colour on a TTY.
 */
export function useColour(out: ConsoleOutput, options: Pick<ConsoleReporterOptions, 'color' | 'env'>): boolean {
  if (options.color !== undefined) return options.color;
  const env = options.env ?? process.env;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  const noColor = env['NO_COLOR'];
  return out.isTTY === true && (noColor === undefined || noColor === '');
}

/** Text renderer shared by the live reporter and `renderConsoleReport`. */
export class ConsoleFormatter {
  readonly colour: boolean;
  readonly transcriptEntries: number;
  readonly maxChars: number;

  constructor(options: { colour: boolean; transcriptEntries?: number; maxChars?: number }) {
    this.colour = options.colour;
    this.transcriptEntries = options.transcriptEntries ?? 12;
    this.maxChars = options.maxChars ?? 240;
  }

  paint(colour: Colour, text: string): string {
    if (!this.colour) return text;
    const [open, close] = ANSI[colour];
    return `\u001b[${open}m${text}\u001b[${close}m`;
  }

  /** `  ✓ PASS  negotiation/initialize-json  Initialize is JSON (12 ms)` */
  caseLine(result: CaseResult, progress?: string): string {
    const [mark, colour] = MARKS[result.verdict];
    const verdict = this.paint(colour, `${mark} ${result.verdict}`);
    let line = `  ${progress ? `${this.paint('dim', progress)} ` : ''}${verdict}  ${p(result.id)}  ${p(result.title)} ${this.paint('dim', `(${formatDuration(result.durationMs)})`)}`;
    if (result.baseline === 'expected-failure') line += this.paint('dim', ' [expected failure]');
    if (result.baseline === 'stale') line += this.paint('yellow', ' [baseline stale: now passes]');
    if (result.verdict !== 'PASS' && result.reason) line += this.paint('dim', ` — ${p(truncate(result.reason, this.maxChars))}`);
    return line;
  }

  suiteHeader(suite: string): string {
    return this.paint('bold', p(suite));
  }

  /** A failing or warning case explained: why, the requirement, each broken check, the transcript, the rerun. */
  explain(result: CaseResult): string {
    const [mark, colour] = MARKS[result.verdict];
    return [
      `${this.paint(colour, `${mark} ${result.verdict}`)} ${this.paint('bold', p(result.id))} — ${p(result.title)}`,
      ...this.detailLines(result, '    '),
      ...this.transcriptLines(result, '    '),
      ...(result.seed === undefined ? [] : [`    seed: ${result.seed}${result.path === undefined ? '' : `   path: ${p(result.path)}`}`]),
      ...(result.baseline === 'expected-failure' ? [`    baseline: expected failure${result.baselineReason === undefined ? '' : ` (${p(result.baselineReason)})`}`] : []),
      `    rerun: ${p(result.rerun)}`,
    ].join('\n');
  }

  /** Suite, requirements, reason, requirement text, and every check that did not pass (expected vs actual). */
  detailLines(result: CaseResult, indent = ''): string[] {
    const lines: string[] = [];
    lines.push(`${indent}suite: ${p(result.suite)}   requirements: ${p(result.requirements.join(', ')) || '(none)'} (${result.level})`);
    if (result.reason) lines.push(`${indent}reason: ${p(result.reason)}`);
    if (result.requirementText) lines.push(`${indent}requirement: ${this.paint('cyan', `"${p(result.requirementText)}"`)}`);
    for (const check of result.checks) {
      if (check.verdict !== 'PASS') lines.push(...this.checkLines(check, indent));
    }
    return lines;
  }

  /** The last transcript entries: `#4 ← control  {"jsonrpc":"2.0",...}`. */
  transcriptLines(result: CaseResult, indent = ''): string[] {
    const transcript = result.transcript ?? [];
    if (transcript.length === 0) return [];
    const shown = transcript.slice(-this.transcriptEntries);
    const of = shown.length < transcript.length ? ` (last ${shown.length} of ${transcript.length})` : '';
    const lines = [`${indent}transcript${of}:`];
    for (const entry of shown) {
      const where = p(describeChannel(entry.channel));
      lines.push(`${indent}  #${entry.seq} ${arrow(entry.direction)} ${this.paint('dim', where)}  ${p(describeEntry(entry, this.maxChars))}`);
    }
    return lines;
  }

  private checkLines(check: CheckResult, indent: string): string[] {
    const [, colour] = MARKS[check.verdict];
    const lines = [`${indent}${this.paint(colour, check.verdict)} ${p(check.requirement)} (${check.level}): ${p(check.message)}`];
    if ('expected' in check) lines.push(`${indent}  expected: ${p(truncate(displayJson(check.expected), this.maxChars))}`);
    if ('actual' in check) lines.push(`${indent}  actual:   ${p(truncate(displayJson(check.actual), this.maxChars))}`);
    return lines;
  }

  /**
   * Everything printed once the run ended: the failures explained, warnings, the baseline's
   * expected failures and stale entries, target and time, the counts line last.
   */
  runEnd(run: RunResult, strict: boolean): string {
    const lines: string[] = [];
    const failOnStale = failsOnStale(run);
    const failing = run.cases.filter((result) => result.baseline !== 'stale' && failsRun(result, strict, failOnStale));
    const expected = run.cases.filter((result) => result.baseline === 'expected-failure' && !failsRun(result, strict, failOnStale));
    const stale = run.cases.filter((result) => result.baseline === 'stale');
    const warned = run.cases.filter((result) => !failing.includes(result) && !expected.includes(result) && needsExplanation(result, strict));
    if (failing.length > 0) {
      lines.push('', this.paint('bold', `Failures (${failing.length})`));
      for (const result of failing) lines.push('', this.explain(result));
    }
    if (warned.length > 0) {
      lines.push('', this.paint('bold', `Warnings (${warned.length}; they fail the run under --strict)`));
      for (const result of warned) lines.push('', this.explain(result));
    }
    if (expected.length > 0) {
      lines.push('', this.paint('bold', `Expected failures (${expected.length}; listed in the baseline, they do not fail the run)`));
      for (const result of expected) {
        const [mark, colour] = MARKS[result.verdict];
        lines.push(`  ${this.paint(colour, `${mark} ${result.verdict}`)} ${p(result.id)} — ${p(truncate(result.reason ?? result.verdict, this.maxChars))}`);
        if (result.baselineReason !== undefined) lines.push(`      baseline: ${p(result.baselineReason)}`);
      }
    }
    if (stale.length > 0) {
      const effect = failOnStale ? 'they fail the run (--fail-on-stale)' : 'remove them, or use --fail-on-stale to fail on them';
      lines.push('', this.paint(failOnStale ? 'red' : 'yellow', `Stale baseline entries (${stale.length}; these cases now pass: ${effect})`));
      for (const result of stale) lines.push(`  ${p(result.id)} (${result.verdict})${result.baselineReason === undefined ? '' : ` — baseline: ${p(result.baselineReason)}`}`);
    }
    if (run.error !== undefined) lines.push('', this.paint('red', `run stopped before its cases ran: ${p(run.error.message)} [${p(run.error.code)}]`));
    if (run.interrupted) {
      const left = run.cases.filter((result) => result.verdict === 'SKIPPED').length;
      lines.push('', this.paint('yellow', `interrupted: ${left} case${left === 1 ? '' : 's'} not finished (SKIPPED)`));
    }
    lines.push('');
    lines.push(`target: ${p(run.target.description)} (${p(run.target.transport)})${run.target.protocolVersion ? `, protocol ${p(run.target.protocolVersion)}` : ''}`);
    const left = notSelectedText(run);
    lines.push(`${run.summary.total} cases in ${formatDuration(run.durationMs)}${left === undefined ? '' : `, ${p(left)}`}${strict ? ', strict' : ''}, exit code ${run.exitCode}`);
    const counts = runCountsLine(run);
    lines.push(failing.length > 0 || (failOnStale && stale.length > 0) ? this.paint('red', counts) : this.paint('green', counts));
    return lines.join('\n') + '\n';
  }
}

/** Renders a finished run the way the live reporter prints it (no status line, suites grouped). */
export function renderConsoleReport(run: RunResult, options: Omit<ConsoleReporterOptions, 'out'> = {}): string {
  const chunks: string[] = [];
  const reporter = new ConsoleReporter({ ...options, color: options.color ?? false, out: { write: (text) => chunks.push(text), isTTY: false } });
  // Grouped by suite (in order of first appearance), as parallel workers may have interleaved them.
  for (const cases of groupBySuite(run.cases).values()) {
    for (const result of cases) reporter.handle({ type: 'case-end', result });
  }
  reporter.handle({ type: 'run-end', result: run });
  return chunks.join('');
}

/** Live console reporter: feed it the runner's events. */
export class ConsoleReporter implements ReportListener {
  readonly #out: ConsoleOutput;
  readonly #format: ConsoleFormatter;
  readonly #strict: boolean | undefined;
  readonly #live: boolean;
  readonly #printRunError: boolean;
  /** Planned cases per suite (from `run-start`) and finished ones so far. */
  readonly #planned = new Map<string, number>();
  readonly #done = new Map<string, number>();
  readonly #running = new Map<string, string>();
  #lastSuite: string | undefined;
  #statusShown = false;

  constructor(options: ConsoleReporterOptions = {}) {
    this.#out = options.out ?? process.stdout;
    this.#format = new ConsoleFormatter({
      colour: useColour(this.#out, options),
      ...(options.transcriptEntries === undefined ? {} : { transcriptEntries: options.transcriptEntries }),
      ...(options.maxChars === undefined ? {} : { maxChars: options.maxChars }),
    });
    this.#strict = options.strict;
    this.#live = this.#out.isTTY === true;
    this.#printRunError = options.printRunError ?? true;
  }

  /** Bound, so it can be handed to the runner as `onEvent: reporter.handle`. */
  readonly handle = (event: ReportEvent): void => {
    switch (event.type) {
      case 'run-start':
        for (const { suite } of event.planned) this.#planned.set(suite, (this.#planned.get(suite) ?? 0) + 1);
        break;
      case 'case-start':
        this.#running.set(event.caseId, event.suite);
        this.#redrawStatus();
        break;
      case 'case-end':
        this.#caseEnd(event.result);
        break;
      case 'run-end':
        this.#clearStatus();
        this.#out.write(this.#format.runEnd(event.result, this.#strict ?? isStrict(event.result)));
        break;
      case 'run-error':
        this.#clearStatus();
        this.#running.clear();
        if (this.#printRunError) this.#out.write(`${this.#lastSuite === undefined ? '' : '\n'}${this.#format.paint('red', `run stopped: ${p(event.error.message)} [${p(event.error.code)}]`)}\n`);
        break;
    }
  };

  #caseEnd(result: CaseResult): void {
    this.#running.delete(result.id);
    const done = (this.#done.get(result.suite) ?? 0) + 1;
    this.#done.set(result.suite, done);
    this.#clearStatus();
    let text = '';
    if (result.suite !== this.#lastSuite) {
      text += `${this.#lastSuite === undefined ? '' : '\n'}${this.#format.suiteHeader(result.suite)}\n`;
      this.#lastSuite = result.suite;
    }
    const planned = this.#planned.get(result.suite);
    text += this.#format.caseLine(result, planned === undefined ? undefined : `[${done}/${planned}]`) + '\n';
    this.#out.write(text);
    this.#redrawStatus();
  }

  /** One status line under the results (TTY only): progress per suite with cases running. */
  #redrawStatus(): void {
    if (!this.#live || this.#running.size === 0) return;
    const suites = [...new Set(this.#running.values())].map((suite) => {
      const planned = this.#planned.get(suite);
      const done = this.#done.get(suite) ?? 0;
      return planned === undefined ? `${suite} ${done} done` : `${suite} ${done}/${planned}`;
    });
    const width = Math.max(20, (this.#out.columns ?? 100) - 1);
    const full = `running ${this.#running.size}: ${suites.join(' · ')}`;
    const status = full.length > width ? `${full.slice(0, width - 1)}…` : full;
    this.#out.write(`\r\u001b[2K${this.#format.paint('dim', status)}`);
    this.#statusShown = true;
  }

  #clearStatus(): void {
    if (!this.#statusShown) return;
    this.#out.write('\r\u001b[2K');
    this.#statusShown = false;
  }
}
