// Errors of the interactive terminal: what the person (or the stream standing in for them) did
// that leaves a prompt unanswerable. Each says which prompt or file it was about.

export class TerminalError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Standard input ended while a prompt waited for its answer. */
export class TerminalInputEndedError extends TerminalError {
  readonly prompt: string;
  constructor(prompt: string) {
    super('TERMINAL_INPUT_ENDED', `standard input ended before the prompt ${JSON.stringify(prompt)} was answered`);
    this.prompt = prompt;
  }
}

/** A path typed at a file prompt that cannot be read. */
export class FileAnswerError extends TerminalError {
  readonly path: string;
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('FILE_ANSWER_UNREADABLE', `cannot read the file ${JSON.stringify(path)}: ${reason}`, options);
    this.path = path;
  }
}
