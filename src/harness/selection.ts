// Which cases a run executes: --suite, --case and --exclude globs, and --shard i/n. Cases left
// out are reported as SKIPPED with the filter that left them out; selecting nothing is an error.
import type { RegisteredCase } from './case.js';
import { InvalidFilterError, NoCasesSelectedError } from './errors.js';

export interface Shard {
  /** 1-based shard number. */
  index: number;
  count: number;
}

export interface CaseFilters {
  /** Only cases of these suites. */
  suites?: readonly string[];
  /** Only cases whose ID matches one of these globs (`*` within a segment, `**` across, `?` one character). */
  cases?: readonly string[];
  /** Leave out cases whose ID matches one of these globs. */
  exclude?: readonly string[];
  shard?: Shard;
}

export interface Selection {
  selected: RegisteredCase[];
  /** Cases left out, each with why. */
  skipped: { case: RegisteredCase; reason: string }[];
}

/** Parses `i/n` (1 <= i <= n). */
export function parseShard(text: string): Shard {
  const match = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(text.trim());
  if (!match) throw new InvalidFilterError('--shard', `${JSON.stringify(text)} is not of the form i/n (e.g. 2/4)`);
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  if (shard.index > shard.count) throw new InvalidFilterError('--shard', `shard ${shard.index} of ${shard.count} does not exist`);
  return shard;
}

/** Turns a case glob into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  if (glob.trim() === '') throw new InvalidFilterError('--case', 'a case glob must not be empty');
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        source += '.*';
        i++;
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** FNV-1a (32 bit) of the case ID: a shard assignment that does not move when other cases are added. */
export function caseHash(id: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(id)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function shardOf(id: string, count: number): number {
  return (caseHash(id) % count) + 1;
}

function describeFilters(filters: CaseFilters): string {
  const parts: string[] = [];
  if (filters.suites?.length) parts.push(`--suite ${filters.suites.join(',')}`);
  if (filters.cases?.length) parts.push(`--case ${filters.cases.join(',')}`);
  if (filters.exclude?.length) parts.push(`--exclude ${filters.exclude.join(',')}`);
  if (filters.shard) parts.push(`--shard ${filters.shard.index}/${filters.shard.count}`);
  return parts.length ? parts.join(' ') : 'no filters';
}

/**
 * Applies the filters in a fixed order (suite, case, exclude, shard) and says for each case left
 * out which filter did it. Throws InvalidFilterError for an unknown suite, NoCasesSelectedError
 * when nothing is left.
 */
export function selectCases(cases: readonly RegisteredCase[], filters: CaseFilters = {}): Selection {
  const knownSuites = new Set(cases.map((c) => c.suite));
  for (const suite of filters.suites ?? []) {
    if (!knownSuites.has(suite)) throw new InvalidFilterError('--suite', `unknown suite ${JSON.stringify(suite)} (known: ${[...knownSuites].join(', ') || 'none'})`);
  }
  if (filters.shard) {
    const { index, count } = filters.shard;
    if (!Number.isInteger(index) || !Number.isInteger(count) || index < 1 || index > count) {
      throw new InvalidFilterError('--shard', `shard ${index}/${count} does not exist`);
    }
  }
  const include = filters.cases?.map(globToRegExp);
  const exclude = filters.exclude?.map((glob) => {
    if (glob.trim() === '') throw new InvalidFilterError('--exclude', 'an exclude glob must not be empty');
    return globToRegExp(glob);
  });
  const selection: Selection = { selected: [], skipped: [] };
  for (const c of cases) {
    let reason: string | undefined;
    if (filters.suites?.length && !filters.suites.includes(c.suite)) reason = `suite ${c.suite} not selected (--suite ${filters.suites.join(',')})`;
    else if (include?.length && !include.some((r) => r.test(c.id))) reason = `ID matches no --case glob (${filters.cases!.join(', ')})`;
    else if (exclude?.some((r) => r.test(c.id))) reason = `ID matches an --exclude glob (${filters.exclude!.join(', ')})`;
    else if (filters.shard && shardOf(c.id, filters.shard.count) !== filters.shard.index) {
      reason = `in shard ${shardOf(c.id, filters.shard.count)}/${filters.shard.count}, not ${filters.shard.index}/${filters.shard.count}`;
    }
    if (reason === undefined) selection.selected.push(c);
    else selection.skipped.push({ case: c, reason });
  }
  if (selection.selected.length === 0) throw new NoCasesSelectedError(`${describeFilters(filters)}; ${cases.length} case(s) registered`);
  return selection;
}
