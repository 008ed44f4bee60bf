// The command line that re-runs exactly one case against the same target, with the fast-check
// seed and path when the case generated its input.

export const CLI_NAME = 'mcp-flow-conformance';

/** Quotes one argument for a POSIX shell when it needs it. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export interface RerunOptions {
  /** The CLI command (`server` when testing a server). */
  command?: string;
  /** Arguments that select the target (`--url ...`). */
  targetArgs: readonly string[];
  caseId: string;
  seed?: number;
  path?: string;
  /** Kept when not 1, so a slow target gets the same limits again. */
  timeoutScale?: number;
  strict?: boolean;
}

export function rerunCommand(options: RerunOptions): string {
  const args = [CLI_NAME, options.command ?? 'server', ...options.targetArgs, '--case', options.caseId];
  if (options.seed !== undefined) args.push('--seed', String(options.seed));
  if (options.path !== undefined) args.push('--path', options.path);
  if (options.timeoutScale !== undefined && options.timeoutScale !== 1) args.push('--timeout-scale', String(options.timeoutScale));
  if (options.strict) args.push('--strict');
  return args.map(shellQuote).join(' ');
}
