// `mock-client --download FILE`: the content of an execution stream (or, without WebTransport, the
// inline content standing in for it) written to a file, with a byte progress bar on a terminal, and
// its length checked against what was announced (or given with --expect-bytes). A stream that was
// reset, reported by $/streamError, or came short leaves no file behind.
import { closeSync, createWriteStream, openSync, rmSync, statSync, type WriteStream } from 'node:fs';
import type { ConsoleOutput } from '../../report/console.js';
import type { StreamInfo, StreamOutcome } from '../../peer/client/streams.js';
import { CliUsageError } from '../errors.js';
import { byteProgress, DEFAULT_COLUMNS, redrawLine } from './progress-bar.js';

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
    const file = createWriteStream(this.path);
    this.#file = file;
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
      close: () => new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve()))),
      abort: () => void file.destroy(),
    });
  };

  /** Writes content that came inline (a resource blob, a file's base64 content) instead of on a stream. */
  async writeInline(bytes: Uint8Array): Promise<void> {
    const file = createWriteStream(this.path);
    this.#file = file;
    await new Promise<void>((resolve, reject) => {
      file.on('error', reject);
      file.end(bytes, () => resolve());
    });
    this.#written = bytes.byteLength;
    this.#draw();
  }

  /** Verdict for a stream written through `sink` (or kept in memory: then its data is written here). */
  async finishStream(outcome: StreamOutcome): Promise<DownloadVerdict> {
    this.#endProgress();
    const name = `execution stream ${outcome.streamTag} of request ${outcome.requestId}`;
    if (!outcome.complete) return this.#fail(`${name}: ${outcome.failure ?? 'it did not complete'}`);
    if (this.#taken === undefined) {
      if (outcome.data === undefined) return this.#fail(`${name} was not kept (larger than the in-memory limit)`);
      await this.writeInline(outcome.data);
      this.#endProgress();
    }
    return this.#verify(outcome.bytes, this.#options.expectedBytes ?? outcome.expectedBytes, name);
  }

  /** Verdict for inline content written with `writeInline`; `announced` is the size the result stated. */
  finishInline(what: string, announced: number | undefined): DownloadVerdict {
    this.#endProgress();
    return this.#verify(this.#written, this.#options.expectedBytes ?? announced, what);
  }

  /** Nothing to download came: the empty file is removed. */
  nothing(why: string): DownloadVerdict {
    return this.#fail(why);
  }

  #verify(received: number, expected: number | undefined, what: string): DownloadVerdict {
    const onDisk = statSync(this.path).size;
    if (onDisk !== received) return this.#fail(`${what}: ${received} bytes received but ${onDisk} on disk`);
    if (expected !== undefined && expected !== received) return this.#fail(`${what}: ${received} bytes received, ${expected} expected (length differs)`);
    const check = expected === undefined ? 'length not announced, not verified' : 'length verified';
    return { ok: true, bytes: received, verified: expected !== undefined, text: `downloaded ${received} bytes from ${what} to ${this.path} (${check})` };
  }

  #fail(text: string): DownloadVerdict {
    this.#file?.destroy();
    rmSync(this.path, { force: true });
    return { ok: false, text: `download failed: ${text}; ${this.path} removed` };
  }

  #draw(): void {
    const out = this.#options.progress;
    if (out?.isTTY !== true) return;
    out.write(redrawLine(byteProgress(this.#written, this.#total, out.columns ?? DEFAULT_COLUMNS)));
    this.#progressDrawn = true;
  }

  #endProgress(): void {
    if (!this.#progressDrawn) return;
    this.#progressDrawn = false;
    this.#options.progress?.write('\n');
  }
}
