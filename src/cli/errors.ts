// Errors of the command line itself: an option value that cannot be used. Each names the option,
// so the user sees one line saying what to change (exit code 2).
import { TargetOptionError } from '../harness/errors.js';

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

/** Runs `parse`, turning a target option the library refused (TargetOptionError) into the usage error it is here. */
export function usageErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TargetOptionError) throw new CliUsageError(error.option, error.detail, { cause: error });
    throw error;
  }
}
