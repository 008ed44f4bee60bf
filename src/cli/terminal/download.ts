// `mock-client --download FILE`: the content of an execution stream (or, without WebTransport, the
// inline content standing in for it) written to a file, with a byte progress bar on a terminal, and
// its length checked against what was announced (or given with --expect-bytes). A stream that was
// reset, reported by $/streamError, or came short leaves no file behind.
import { closeSync, createWriteStream, openSync, rmSync, statSync, type WriteStream } from 'node:fs';
import type { ConsoleOutput } from '../../report/console.js';
import type { StreamInfo, StreamOutcome } from '../../peer/client/streams.js';
import { CliUsageError } from '../errors.js';
import { byteProgress, redrawLine } from './progress-bar.js';

export interface DownloadOptions {
  /** Where the progress bar is drawn; drawn only when it is a TTY. */
  progress?: ConsoleOutput;
  /** The length the user expects (--expect-bytes); otherwise what the result announced, if anything. */
  expectedBytes?: number;
}

/** What the download came to: written and verified, or why not. */
export type DownloadVerdict = { ok: true; bytes: number; verified: boolean; text: string } | { ok: false; text: string };

export class DownloadFile {
  readonly path: string;
  readonly #options: DownloadOptions;
  #file: WriteStream | undefined;
  #taken: StreamInfo | undefined;
  #written = 0;
  #total: number | undefined;
  #progressDrawn = false;
  /** How the stream written through `sink` ended: FIN, or a reset with its reason. */
  #ended: 'fin' | { reset: string } | undefined;
  #onEnded: (() => void) | undefined;
  #streamError: string | undefined;
  #writeError: string | undefined;

  /** Checks that `path` can be written (CliUsageError naming --download otherwise). */
  constructor(path: string, options: DownloadOptions = {}) {
    try {
      closeSync(openSync(path, 'w'));
    } catch (error) {
      throw new CliUsageError('--download', `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
    this.path = path;
    this.#options = options;
    this.#total = options.expectedBytes;
  }

  /** The stream written to the file (the first one of the call), if one was. */
  get stream(): StreamInfo | undefined {
    return this.#taken;
  }

  /** For CallOptions.download: the first execution stream goes to the file, any other stays in memory. */
  readonly sink = (stream: StreamInfo): WritableStream<Uint8Array> | undefined => {
    if (this.#taken) return undefined;
    this.#taken = stream;
    const file = this.#open();
    return new WritableStream<Uint8Array>({
      write: (chunk) =>
        new Promise<void>((resolve, reject) => {
          file.write(chunk, (error) => {
            if (error) return reject(error);
            this.#written += chunk.byteLength;
            this.#draw();
            resolve();
          });
        }),
      close: () =>
        new Promise<void>((resolve, reject) =>
          file.end((error?: Error | null) => {
            if (error) return reject(error);
            this.#ended = 'fin';
            this.#onEnded?.();
            resolve();
          }),
        ),
      abort: (reason: unknown) => {
        this.#ended = { reset: reason instanceof Error ? reason.message : String(reason) };
        file.destroy();
        this.#onEnded?.();
      },
    });
  };

  /** `$/streamError` for the stream being written (kept for the verdict). */
  streamError(params: Record<string, unknown>): void {
    const taken = this.#taken;
    if (taken && params['requestId'] === taken.requestId && params['streamTag'] === taken.streamTag) {
      this.#streamError = typeof params['error'] === 'string' ? params['error'] : JSON.stringify(params['error'] ?? 'unspecified');
    }
  }

  /**
   * Verdict for the stream `sink` took when the result did not name it (e.g. a tool that failed
   * mid-transfer answers isError without a ref/stream): never a successful download.
   */
  async unnamedStream(graceMs = 5000): Promise<DownloadVerdict | undefined> {
    const taken = this.#taken;
    if (!taken) return undefined;
    // The stream may still be arriving (the result came first): give it time to end or be reset.
    if (this.#ended === undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.#onEnded = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.#endProgress();
    const name = `execution stream ${taken.streamTag} of request ${taken.requestId}`;
    const ended = this.#ended === undefined ? 'did not end' : this.#ended === 'fin' ? 'ended' : `was reset (${this.#ended.reset})`;
    const reported = this.#streamError !== undefined ? `, reported failed by $/streamError: ${this.#streamError}` : '';
    return this.#fail(`${name} ${ended} after ${this.#written} bytes${reported}, and the result does not name it`);
  }

  /** Writes content that came inline (a resource blob, a file's base64 content) instead of on a stream. */
  async writeInline(bytes: Uint8Array): Promise<void> {
    const file = this.#open();
    await new Promise<void>((resolve, reject) => {
      file.once('error', reject);
      file.end(bytes, () => resolve());
    });
    this.#written = bytes.byteLength;
    this.#draw();
  }

  /** Verdict for a stream written through `sink` (or kept in memory: then its data is written here). */
  async finishStream(outcome: StreamOutcome): Promise<DownloadVerdict> {
    this.#endProgress();
    const name = `execution stream ${outcome.streamTag} of request ${outcome.requestId}`;
    if (!outcome.complete) {
      const reported = this.#streamError !== undefined && !(outcome.failure ?? '').includes('$/streamError') ? ` ($/streamError: ${this.#streamError})` : '';
      return this.#fail(`${name}: ${outcome.failure ?? 'it did not complete'}${reported}`);
    }
    if (this.#taken === undefined) {
      if (outcome.data === undefined) return this.#fail(`${name} was not kept (larger than the in-memory limit)`);
      await this.writeInline(outcome.data);
      this.#endProgress();
    }
    return this.#verify(outcome.bytes, this.#options.expectedBytes ?? outcome.expectedBytes, name);
  }

  /** Verdict for inline content written with `writeInline`; `announced` is the size the result stated. */
  finishInline(what: string, announced: number | undefined): Promise<DownloadVerdict> {
    this.#endProgress();
    return this.#verify(this.#written, this.#options.expectedBytes ?? announced, what);
  }

  /** Nothing to download came: the empty file is removed. */
  nothing(why: string): Promise<DownloadVerdict> {
    return this.#fail(why);
  }

  async #verify(received: number, expected: number | undefined, what: string): Promise<DownloadVerdict> {
    if (this.#writeError !== undefined) return this.#fail(`${what}: writing ${this.path} failed: ${this.#writeError}`);
    const onDisk = statSync(this.path).size;
    if (onDisk !== received) return this.#fail(`${what}: ${received} bytes received but ${onDisk} on disk`);
    if (expected !== undefined && expected !== received) return this.#fail(`${what}: ${received} bytes received, ${expected} expected (length differs)`);
    const check = expected === undefined ? 'length not announced, not verified' : 'length verified';
    return { ok: true, bytes: received, verified: expected !== undefined, text: `downloaded ${received} bytes from ${what} to ${this.path} (${check})` };
  }

  #open(): WriteStream {
    const file = createWriteStream(this.path);
    // A failed write rejects the write in progress; the verdict reports it, the process must not die of it.
    file.on('error', (error) => (this.#writeError ??= error.message));
    this.#file = file;
    return file;
  }

  async #fail(text: string): Promise<DownloadVerdict> {
    // The file is opened asynchronously: removing it before its stream closed would let the open recreate it.
    const file = this.#file;
    if (file && !file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()).destroy());
    rmSync(this.path, { force: true });
    return { ok: false, text: `download failed: ${text}; ${this.path} removed` };
  }

  #draw(): void {
    const out = this.#options.progress;
    if (out?.isTTY !== true) return;
    out.write(redrawLine(byteProgress(this.#written, this.#total, out.columns)));
    this.#progressDrawn = true;
  }

  /** Ends the progress bar's line (before other output). */
  endProgress(): void {
    this.#endProgress();
  }

  #endProgress(): void {
    if (!this.#progressDrawn) return;
    this.#progressDrawn = false;
    this.#options.progress?.write('\n');
  }
}
