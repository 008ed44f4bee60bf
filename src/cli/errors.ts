// Errors of the command line itself: an option value that cannot be used. Each names the option,
// so the user sees one line saying what to change (exit code 2).

export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE';
  /** The option at fault, as typed (`--url`), or the command when no single option is. */
  readonly option: string;
  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super(`${option}: ${message}`, options);
    this.name = new.target.name;
    this.option = option;
  }
}
