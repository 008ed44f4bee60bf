// Progress as one terminal line: pure functions from a progress state to the text of the line
// (the caller redraws it in place with `redrawLine`). Interaction progress (000 `progress`:
// current/total/message), MCP progress notifications (progress/total/message) and download bytes.

export interface ProgressState {
  current: number;
  /** Unknown total: no bar, only the count. */
  total?: number;
  message?: string;
}

/** Columns assumed when the terminal does not say. */
export const DEFAULT_COLUMNS = 80;

/**
 * The width to draw in: what the terminal reports, or DEFAULT_COLUMNS when it reports none or 0
 * (a pseudo-terminal without a size, a CI log) or a width no line fits in.
 */
export function usableColumns(columns: number | undefined): number {
  return columns !== undefined && Number.isFinite(columns) && columns >= 20 ? Math.floor(columns) : DEFAULT_COLUMNS;
}

function fit(text: string, columns: number): string {
  const chars = [...text];
  return chars.length <= columns ? text : `${chars.slice(0, Math.max(0, columns - 3)).join('')}...`;
}

function bar(fraction: number, width: number): string {
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

function barWidth(columns: number): number {
  return Math.max(10, Math.min(30, Math.floor(columns / 3)));
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** `[#####-----] 2/5 Step 2 of 5`, at most `columns` characters. */
export function progressBar(state: ProgressState, terminalColumns?: number): string {
  const columns = usableColumns(terminalColumns);
  const message = state.message !== undefined && state.message !== '' ? ` ${state.message}` : '';
  if (state.total === undefined || !(state.total > 0)) return fit(`[${number(state.current)}]${message}`, columns);
  const width = barWidth(columns);
  return fit(`${bar(state.current / state.total, width)} ${number(state.current)}/${number(state.total)}${message}`, columns);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** `[#####-----]  50% 1.0 MiB / 2.0 MiB`, or the bytes so far when the length is not known. */
export function byteProgress(received: number, total: number | undefined, terminalColumns?: number): string {
  const columns = usableColumns(terminalColumns);
  if (total === undefined || !(total > 0)) return fit(`${formatBytes(received)} received`, columns);
  const percent = `${Math.floor((Math.min(received, total) / total) * 100)}%`.padStart(4);
  return fit(`${bar(received / total, barWidth(columns))} ${percent} ${formatBytes(received)} / ${formatBytes(total)}`, columns);
}

/** What redraws `line` in place of the terminal's current line (carriage return, erase to end). */
export function redrawLine(line: string): string {
  return `\r${line}\x1b[K`;
}

/** Where a progress line is drawn. */
export interface ProgressOutput {
  write(text: string): unknown;
  columns?: number;
}

/**
 * One progress line on an output: redrawn in place on a terminal (call `end` before other output
 * so it keeps its line), one line per change otherwise.
 */
export class ProgressLine {
  readonly #output: ProgressOutput;
  readonly #terminal: boolean;
  #drawn = false;
  #last = '';

  constructor(output: ProgressOutput, terminal: boolean) {
    this.#output = output;
    this.#terminal = terminal;
  }

  show(state: ProgressState): void {
    const line = progressBar(state, this.#output.columns);
    if (this.#terminal) {
      this.#output.write(redrawLine(line));
      this.#drawn = true;
    } else if (line !== this.#last) {
      this.#output.write(`${line}\n`);
    }
    this.#last = line;
  }

  /** Ends a line drawn in place, so the next output starts on a line of its own. */
  end(): void {
    if (!this.#drawn) return;
    this.#drawn = false;
    this.#output.write('\n');
  }
}
