// Report errors: one class per failure, each with a stable `code` (undici style).

export class ReportError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A report file could not be written (folder not creatable, path is a directory, no permission...). */
export class ReportWriteError extends ReportError {
  readonly path: string;
  readonly format: string;
  constructor(format: string, path: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super('REPORT_WRITE_FAILED', `cannot write the ${format} report to ${path}: ${why}`, { cause });
    this.path = path;
    this.format = format;
  }
}

/** A value in the run cannot be put in a report (e.g. an object that contains itself). */
export class ReportValueError extends ReportError {
  /** Where in the run the value sits, as a JSON pointer. */
  readonly pointer: string;
  constructor(pointer: string, message: string) {
    super('REPORT_UNSERIALISABLE_VALUE', `${pointer || '/'}: ${message}`);
    this.pointer = pointer;
  }
}

/** A JSON report that is not one this tool wrote (wrong header, unsupported version, not JSON). */
export class ReportFormatError extends ReportError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('REPORT_FORMAT_INVALID', message, options);
  }
}
