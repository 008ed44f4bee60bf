// Server-Sent Events (WHATWG HTML §9.2 "event stream interpretation"): an incremental parser for
// text/event-stream bodies and the encoder the mock server writes them with.

export interface SseEvent {
  /** The `event:` field, when the event named one. */
  event?: string;
  /** The `id:` field, when the event carried one. */
  id?: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** The `retry:` field, when it was a valid integer. */
  retry?: number;
  /** The exact text of the event block, for transcripts. */
  raw: string;
}

export interface SseParserOptions {
  /**
   * Characters one event may take (its lines, comments included) before it is given up on: the
   * rest of it is skipped to its blank line and `onOverflow` is told. Default: no limit.
   */
  maxEventChars?: number;
  /** Called with how many characters an over-long event had when it was skipped to its end. */
  onOverflow?: (chars: number) => void;
}

/**
 * Feeds text/event-stream bytes in arbitrary chunks and returns the events completed by each
 * chunk. Lines end with CRLF, LF or CR; a blank line dispatches; comments (":") are skipped;
 * an event whose data is empty is not dispatched, as the standard says. An event over
 * `maxEventChars` is skipped (a stream that never ends its event cannot grow the parser).
 */
export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #maxEventChars: number;
  readonly #onOverflow: ((chars: number) => void) | undefined;
  /** Characters of the over-long event being skipped (undefined when not skipping). */
  #skipped: number | undefined;
  /** While skipping: whether the current line is empty so far (an empty line ends the event). */
  #skipLineEmpty = false;
  #buffer = '';
  #raw = '';
  #data: string[] = [];
  #event: string | undefined;
  #id: string | undefined;
  #retry: number | undefined;
  #sawCr = false;
  #lastDispatched: SseEvent | undefined;

  constructor(options: SseParserOptions = {}) {
    this.#maxEventChars = options.maxEventChars ?? Number.POSITIVE_INFINITY;
    this.#onOverflow = options.onOverflow;
  }

  push(chunk: Uint8Array): SseEvent[] {
    return this.#consume(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Ends the stream: a final event without its blank line is discarded (as the standard says). */
  end(): SseEvent[] {
    const events = this.#consume(this.#decoder.decode());
    this.#buffer = '';
    if (this.#skipped !== undefined) {
      const chars = this.#skipped;
      this.#skipped = undefined;
      this.#onOverflow?.(chars);
    }
    return events;
  }

  #consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    const ends = new LineEnds(text);
    let start = 0;
    let i = 0;
    while (i < text.length) {
      if (this.#skipped !== undefined) {
        i = this.#skip(text, ends, i);
        start = i;
        continue;
      }
      if (text[i] === '\n' && this.#sawCr && start === i) {
        // The LF of a CRLF pair whose CR ended the previous line (possibly in the previous chunk).
        this.#sawCr = false;
        // After a dispatch the LF still belongs to the dispatched event's text (when the CR and LF
        // arrive in different chunks, that event has already been handed out; its raw gets the LF late).
        if (this.#raw === '' && this.#lastDispatched) this.#lastDispatched.raw += '\n';
        else this.#raw += '\n';
        start = ++i;
        continue;
      }
      this.#sawCr = false;
      // Straight to the end of the line: a long line costs one search, not a step per character.
      const end = ends.from(i);
      if (end < 0) break;
      const char = text[end]!;
      const line = this.#buffer + text.slice(start, end);
      this.#buffer = '';
      this.#raw += line + char;
      this.#sawCr = char === '\r';
      start = i = end + 1;
      const event = this.#line(line);
      if (event) events.push(event);
    }
    if (this.#skipped === undefined) this.#buffer += text.slice(start);
    if (this.#skipped === undefined && this.#buffer.length + this.#raw.length > this.#maxEventChars) this.#startSkipping();
    return events;
  }

  /** Gives up on the event being read: its text so far is dropped and the rest is skipped. */
  #startSkipping(): void {
    this.#skipped = this.#buffer.length + this.#raw.length;
    this.#skipLineEmpty = this.#buffer === '';
    this.#buffer = '';
    this.#raw = '';
    this.#data = [];
    this.#event = undefined;
    this.#retry = undefined;
    this.#lastDispatched = undefined;
  }

  /**
   * Skips the over-long event's text from `i` on, up to and including the blank line that ends it;
   * returns where reading goes on (the text's length when the event goes on past it).
   */
  #skip(text: string, ends: LineEnds, i: number): number {
    while (i < text.length) {
      if (text[i] === '\n' && this.#sawCr) {
        // The LF of a CRLF pair: the line already ended at its CR.
        this.#sawCr = false;
        this.#skipped!++;
        i++;
        continue;
      }
      this.#sawCr = false;
      const end = ends.from(i);
      if (end !== i) {
        this.#skipped! += (end < 0 ? text.length : end) - i;
        this.#skipLineEmpty = false;
        if (end < 0) return text.length;
        i = end;
      }
      this.#skipped!++;
      this.#sawCr = text[i] === '\r';
      i++;
      if (!this.#skipLineEmpty) {
        this.#skipLineEmpty = true;
        continue;
      }
      const chars = this.#skipped!;
      this.#skipped = undefined;
      this.#onOverflow?.(chars);
      return i;
    }
    return i;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.#retry = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const raw = this.#raw;
    const data = this.#data;
    const event = this.#event;
    const retry = this.#retry;
    this.#raw = '';
    this.#data = [];
    this.#event = undefined;
    this.#retry = undefined;
    this.#lastDispatched = undefined;
    if (data.length === 0) return undefined;
    const result: SseEvent = { data: data.join('\n'), raw };
    if (event !== undefined && event !== '') result.event = event;
    // The last event id persists across events, as in the standard.
    if (this.#id !== undefined) result.id = this.#id;
    if (retry !== undefined) result.retry = retry;
    this.#lastDispatched = result;
    return result;
  }
}

/** The line ends (CR or LF) of one text, found by searches that each pass over the text once. */
class LineEnds {
  readonly #text: string;
  #lf = -2;
  #cr = -2;

  constructor(text: string) {
    this.#text = text;
  }

  /** Where the line that goes on at `from` ends, or -1 when it does not end in the text (`from` only grows). */
  from(from: number): number {
    if (this.#lf !== -1 && this.#lf < from) this.#lf = this.#text.indexOf('\n', from);
    if (this.#cr !== -1 && this.#cr < from) this.#cr = this.#text.indexOf('\r', from);
    return this.#lf < 0 ? this.#cr : this.#cr < 0 ? this.#lf : Math.min(this.#lf, this.#cr);
  }
}

/** Encodes one event; multi-line data becomes several `data:` lines. */
export function encodeSseEvent(event: { event?: string; id?: string; data: string }): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return text + '\n';
}
