// Verdict tables: the verdict of every case in a run, pinned in test/verdicts/<group>.json and
// compared on every run. They prove that work meant to change no verdict (speed, restructuring)
// changed none: the correct mocks, every fault and every real peer get exactly the verdicts they
// got before. A case whose verdict the documents let depend on timing (a cancel racing the end
// of a call, say) is pinned to the verdicts it may get, written "PASS|INFO".
//
//   UPDATE_VERDICTS=1 npx vitest run <files>   rewrites the tables those files check
//
// Updating keeps an entry whose alternatives still cover what was observed, so a pinned race is not
// narrowed by one lucky run. A changed table is a reviewed change: the diff shows every verdict moved.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'verdicts');

/** Case id -> verdict, or several verdicts joined by '|'. */
export type VerdictTable = Record<string, string>;
/** Table name -> table. */
type VerdictGroup = Record<string, VerdictTable>;

export const UPDATING_VERDICTS = process.env['UPDATE_VERDICTS'] === '1';

function groupFile(group: string): string {
  if (!/^[a-z0-9][a-z0-9/-]*$/.test(group)) throw new TypeError(`verdict group names are lower-case paths, got ${JSON.stringify(group)}`);
  return join(root, `${group}.json`);
}

function readGroup(group: string): VerdictGroup {
  const file = groupFile(group);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as VerdictGroup) : {};
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every pinned table of the groups whose names start with `prefix` (e.g. "self-test/faults-"), by table name. */
export function pinnedTables(prefix: string): Record<string, VerdictTable> {
  const slash = prefix.lastIndexOf('/');
  const dir = join(root, prefix.slice(0, slash + 1));
  const tables: Record<string, VerdictTable> = {};
  for (const file of existsSync(dir) ? readdirSync(dir).sort() : []) {
    const group = `${prefix.slice(0, slash + 1)}${file.replace(/\.json$/, '')}`;
    if (file.endsWith('.json') && group.startsWith(prefix)) Object.assign(tables, readGroup(group));
  }
  return tables;
}

/** The table of a run: every case that was selected (SKIPPED ones, left out by filters or an interruption, are not pinned). */
export function tableOf(cases: readonly { id: string; verdict: string }[]): VerdictTable {
  return Object.fromEntries(cases.filter((c) => c.verdict !== 'SKIPPED').map((c) => [c.id, c.verdict]));
}

/** Lines naming every difference between a pinned table and an observed one (empty when they agree). */
export function tableChanges(name: string, pinned: VerdictTable | undefined, observed: VerdictTable): string[] {
  if (pinned === undefined) return [`${name}: no pinned table (run with UPDATE_VERDICTS=1 to pin ${Object.keys(observed).length} verdicts)`];
  const lines: string[] = [];
  for (const [id, verdict] of Object.entries(observed)) {
    const allowed = pinned[id];
    if (allowed === undefined) lines.push(`${name}: ${id} is new (${verdict})`);
    else if (!allowed.split('|').includes(verdict)) lines.push(`${name}: ${id} was ${allowed}, now ${verdict}`);
  }
  for (const id of Object.keys(pinned)) if (!(id in observed)) lines.push(`${name}: ${id} (${pinned[id]}) did not run`);
  return lines;
}

/**
 * Compares a run's verdicts with table `name` of `group` (test/verdicts/<group>.json) and returns the
 * differences; with UPDATE_VERDICTS=1 it pins the observed verdicts instead (keeping alternatives
 * that still cover them) and returns nothing. Tables of one group are written by one test file.
 */
export function checkVerdictTable(group: string, name: string, cases: readonly { id: string; verdict: string }[]): string[] {
  const observed = tableOf(cases);
  const tables = readGroup(group);
  if (!UPDATING_VERDICTS) return tableChanges(name, tables[name], observed);
  const before = tables[name] ?? {};
  const kept: VerdictTable = {};
  for (const [id, verdict] of Object.entries(observed)) {
    const allowed = before[id];
    kept[id] = allowed !== undefined && allowed.split('|').includes(verdict) ? allowed : verdict;
  }
  tables[name] = sorted(kept);
  const file = groupFile(group);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(sorted(tables), null, 2)}\n`);
  return [];
}
