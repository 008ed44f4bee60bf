// A stdio server's stderr as the client keeps it: lines for people, never parsed as protocol.
// Each line goes on the transcript; the first and the latest lines are kept (a server may write
// without end), each cut to a length, and a line too long to read is skipped and noted.
import type { Readable } from 'node:stream';
import { BoundedList } from '../bounded-list.js';
import { pacedReading } from '../pacing.js';
import type { Transcript } from '../transcript.js';
import { LineDecoder, isOverflow } from './line-decoder.js';

/** Longest stderr line read (longer ones are skipped and noted); stderr is for people, not protocol. */
const MAX_STDERR_LINE_BYTES = 64 * 1024;
/** Characters of a stderr line kept in `items()` and the transcript. */
const STDERR_LINE_CHARS = 4096;
/** stderr lines kept: the first and the latest this many (a server may write without end). */
const STDERR_FIRST_LINES = 100;
const STDERR_LATEST_LINES = 900;

/** Reads `stderr` to its end into bounded lines, each recorded on `transcript`. */
export class StderrLines {
  readonly #lines = new BoundedList<string>(STDERR_FIRST_LINES, STDERR_LATEST_LINES);

  constructor(stderr: Readable, transcript: Transcript, maxLineBytes?: number) {
    const decoder = new LineDecoder(Math.min(maxLineBytes ?? MAX_STDERR_LINE_BYTES, MAX_STDERR_LINE_BYTES));
    const take = (items: ReturnType<LineDecoder['push']>) => {
      for (const item of items) {
        if (isOverflow(item)) {
          transcript.record({ direction: 'received', channel: { kind: 'stdio', fd: 'stderr' }, byteLength: item.byteLength, note: 'over-long stderr line skipped' });
          continue;
        }
        const text = Buffer.from(item.content).toString('utf8').replace(/\r$/, '');
        const line = text.length > STDERR_LINE_CHARS ? `${text.slice(0, STDERR_LINE_CHARS)}… (${text.length - STDERR_LINE_CHARS} more characters)` : text;
        this.#lines.push(line);
        transcript.record({ direction: 'received', channel: { kind: 'stdio', fd: 'stderr' }, bytes: item.wire, note: line });
      }
    };
    // A server that floods stderr cannot keep timers (the deadlines that end a case) from firing.
    const paced = pacedReading(stderr);
    stderr.on('data', (chunk: Buffer) => {
      take(decoder.push(chunk));
      paced();
    });
    stderr.on('end', () => take(decoder.end()));
  }

  /** The lines kept so far. */
  items(): readonly string[] {
    return this.#lines.items();
  }
}
