// Errors of the validating proxy and of replay: one class per failure a user (or a record file)
// can cause, each with a stable `code`.

export class ProxyError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** `--listen` is not `wt[:port]`, `http[:port]` or `stdio`. */
export class ListenSpecError extends ProxyError {
  readonly spec: string;
  constructor(spec: string, why: string) {
    super('LISTEN_SPEC', `--listen ${JSON.stringify(spec)}: ${why} (expected wt[:port], http[:port] or stdio)`);
    this.spec = spec;
  }
}

/** The upstream server could not be named, reached or started. */
export class UpstreamError extends ProxyError {
  readonly upstream: string;
  constructor(upstream: string, why: string, options?: { cause?: unknown }) {
    super('UPSTREAM_UNREACHABLE', `upstream ${upstream}: ${why}`, options);
    this.upstream = upstream;
  }
}

/** A record file (`--record` output, `replay --record` input) that cannot be read or used. */
export class RecordFileError extends ProxyError {
  readonly file: string;
  /** 1-based line of the file at fault, when one line is. */
  readonly line: number | undefined;
  constructor(file: string, why: string, line?: number, options?: { cause?: unknown }) {
    super('RECORD_FILE', `record file ${file}${line !== undefined ? ` line ${line}` : ''}: ${why}`, options);
    this.file = file;
    this.line = line;
  }
}
