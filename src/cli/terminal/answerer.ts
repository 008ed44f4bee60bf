// The interactive Answerer (src/peer/client/answerer.ts) over a terminal: each prompt rendered by
// prompt-view.ts and read with node:readline, a refused answer shown with the server's message and
// suggestion before the question is asked again, progress drawn as a bar redrawn on one line.
// Ctrl-C calls `onInterrupt` (the command aborts the mock client's signal, which sends the
// cancel); a question still waiting when `signal` aborts answers CANCEL. Works over any pair of
// streams, so tests feed it lines without a terminal.
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CANCEL, type Answerer } from '../../peer/client/index.js';
import { parseAnswer, type FileLoader } from './answer-input.js';
import { TerminalInputEndedError } from './errors.js';
import { readFileAnswer } from './file-answer.js';
import { ProgressLine, type ProgressState } from './progress-bar.js';
import { renderPrompt, renderRejection, type Rejection, type TerminalPrompt } from './prompt-view.js';

export interface TerminalAnswererOptions {
  input: Readable;
  output: Writable & { isTTY?: boolean; columns?: number };
  /** Draw for a terminal (progress redrawn in place, readline editing). Default: whether input and output are TTYs. */
  terminal?: boolean;
  /** Reads a path typed at a file prompt. Default: the file system. */
  loadFile?: FileLoader;
  /** Ctrl-C (readline's SIGINT). */
  onInterrupt?: () => void;
  /** When it aborts, a question waiting for its answer answers CANCEL. */
  signal?: AbortSignal;
}

type LineWaiter = { resolve: (line: string) => void; reject: (error: Error) => void };

export class TerminalAnswerer implements Answerer {
  readonly #output: TerminalAnswererOptions['output'];
  readonly #terminal: boolean;
  readonly #loadFile: FileLoader;
  readonly #signal: AbortSignal | undefined;
  readonly #readline: Interface;
  readonly #lines: string[] = [];
  #waiter: LineWaiter | undefined;
  #ended = false;
  readonly #progress: ProgressLine;

  constructor(options: TerminalAnswererOptions) {
    this.#output = options.output;
    this.#terminal = options.terminal ?? (options.output.isTTY === true && (options.input as { isTTY?: boolean }).isTTY === true);
    this.#progress = new ProgressLine(options.output, this.#terminal);
    this.#loadFile = options.loadFile ?? readFileAnswer;
    this.#signal = options.signal;
    this.#readline = createInterface({ input: options.input, output: options.output, terminal: this.#terminal });
    this.#readline.on('line', (line) => {
      if (this.#waiter) {
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter.resolve(line);
      } else this.#lines.push(line);
    });
    this.#readline.on('close', () => {
      this.#ended = true;
      this.#waiter?.reject(new TerminalInputEndedError(''));
      this.#waiter = undefined;
    });
    const onInterrupt = options.onInterrupt;
    if (onInterrupt) this.#readline.on('SIGINT', () => onInterrupt());
  }

  /** Prints whole lines, first ending a progress bar drawn on the current line. */
  print(lines: readonly string[]): void {
    this.#endProgress();
    for (const line of lines) this.#output.write(`${line}\n`);
  }

  async ask(prompt: Record<string, unknown>, state: { sessionId: string; attempt: number; rejected?: Rejection }): Promise<unknown> {
    const view = renderPrompt(prompt as TerminalPrompt);
    if (state.rejected) this.print(renderRejection(state.rejected));
    this.print(view.lines);
    for (;;) {
      const line = await this.#nextLine(view.question, typeof prompt['message'] === 'string' ? prompt['message'] : view.question);
      if (line === CANCEL) return CANCEL;
      const parsed = parseAnswer(prompt as TerminalPrompt, line, this.#loadFile);
      if ('value' in parsed) return parsed.value;
      this.print([`invalid: ${parsed.problem}`]);
    }
  }

  /** Progress of the interaction (each prompt's `progress`) or of a call's progress notifications. */
  progress(update: { requestId: number | string; progress: number; total?: number; message?: string }): void {
    this.showProgress({ current: update.progress, ...(update.total !== undefined ? { total: update.total } : {}), ...(update.message !== undefined ? { message: update.message } : {}) });
  }

  /** Text the server sent besides prompts (an `interaction.continue` without a prompt). */
  message(text: string): void {
    this.print([text]);
  }

  /** Draws a progress bar: redrawn in place on a terminal, one line per change otherwise. */
  showProgress(state: ProgressState): void {
    this.#progress.show(state);
  }

  /** Stops reading the terminal (restores its mode). */
  close(): void {
    this.#endProgress();
    this.#readline.close();
  }

  #endProgress(): void {
    this.#progress.end();
  }

  #nextLine(question: string, promptText: string): Promise<string | typeof CANCEL> {
    const signal = this.#signal;
    if (signal?.aborted) return Promise.resolve(CANCEL);
    this.#endProgress();
    const queued = this.#lines.shift();
    this.#readline.setPrompt(question);
    if (queued !== undefined) {
      // A line typed ahead answers this question: show it after the question, as typed.
      this.#output.write(`${question}${this.#terminal ? '' : queued}\n`);
      return Promise.resolve(queued);
    }
    if (this.#ended) return Promise.reject(new TerminalInputEndedError(promptText));
    this.#readline.prompt();
    return new Promise<string | typeof CANCEL>((resolve, reject) => {
      const onAbort = () => {
        this.#waiter = undefined;
        this.#output.write('\n');
        resolve(CANCEL);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiter = {
        resolve: (line) => {
          signal?.removeEventListener('abort', onAbort);
          if (!this.#terminal) this.#output.write(`${line}\n`);
          resolve(line);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error instanceof TerminalInputEndedError ? new TerminalInputEndedError(promptText) : error);
        },
      };
    });
  }
}
