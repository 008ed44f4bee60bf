// Which mutation sites the unmutated run executes: V8 block coverage (NODE_V8_COVERAGE) of every
// process the run started from the bundle, mapped back to the TypeScript sources through the
// bundle's source map. A site no process executed cannot be caught by that run: the bench counts
// it as "not reached" instead of spending a run on it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MutationSite } from './sites.js';

interface Mapping {
  generatedLine: number;
  generatedColumn: number;
  source: number;
  originalLine: number;
  originalColumn: number;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes a source map's `mappings` (base64 VLQ, version 3); lines and columns 0-based. */
export function decodeMappings(mappings: string): Mapping[] {
  const out: Mapping[] = [];
  let generatedLine = 0;
  let generatedColumn = 0;
  let source = 0;
  let originalLine = 0;
  let originalColumn = 0;
  let at = 0;
  const vlq = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const digit = BASE64.indexOf(mappings[at++]!);
      value += (digit & 31) << shift;
      shift += 5;
      if ((digit & 32) === 0) break;
    }
    return value & 1 ? -(value >>> 1) : value >>> 1;
  };
  while (at < mappings.length) {
    const c = mappings[at];
    if (c === ';') {
      generatedLine++;
      generatedColumn = 0;
      at++;
      continue;
    }
    if (c === ',') {
      at++;
      continue;
    }
    generatedColumn += vlq();
    if (at < mappings.length && mappings[at] !== ',' && mappings[at] !== ';') {
      source += vlq();
      originalLine += vlq();
      originalColumn += vlq();
      if (at < mappings.length && mappings[at] !== ',' && mappings[at] !== ';') vlq(); // name
      out.push({ generatedLine, generatedColumn, source, originalLine, originalColumn });
    }
  }
  return out;
}

interface V8Range {
  startOffset: number;
  endOffset: number;
  count: number;
}

/**
 * The execution count at each offset (sorted ascending): the count of the innermost range around
 * it (V8's block ranges nest), or undefined outside every range.
 */
function countsAt(ranges: V8Range[], sortedOffsets: readonly number[]): (number | undefined)[] {
  const sorted = [...ranges].sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  const counts: (number | undefined)[] = [];
  const stack: V8Range[] = [];
  let next = 0;
  for (const offset of sortedOffsets) {
    while (next < sorted.length && sorted[next]!.startOffset <= offset) {
      const range = sorted[next++]!;
      while (stack.length > 0 && stack[stack.length - 1]!.endOffset <= range.startOffset) stack.pop();
      stack.push(range);
    }
    while (stack.length > 0 && stack[stack.length - 1]!.endOffset <= offset) stack.pop();
    counts.push(stack.length > 0 ? stack[stack.length - 1]!.count : undefined);
  }
  return counts;
}

/**
 * Reads the coverage files in `coverageDir` for `bundle` and returns, per site, whether any
 * process executed it. A site maps to the generated offset of the last mapping at or before it
 * on its line; its execution count is the count of the innermost block range around that offset.
 */
export function coveredSites(root: string, bundle: string, coverageDir: string, sites: readonly MutationSite[]): boolean[] {
  const generated = readFileSync(bundle, 'utf8');
  const lineStarts = [0];
  for (let i = 0; i < generated.length; i++) if (generated.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[]; mappings: string };
  const sourceIndex = new Map(map.sources.map((s, i) => [relative(root, resolve(bundle, '..', s)).split('\\').join('/'), i]));
  // Per source, per original line: mappings sorted by original column.
  const byLine = new Map<string, Mapping[]>();
  for (const m of decodeMappings(map.mappings)) {
    const key = `${m.source}:${m.originalLine}`;
    let list = byLine.get(key);
    if (!list) byLine.set(key, (list = []));
    list.push(m);
  }
  for (const list of byLine.values()) list.sort((a, b) => a.originalColumn - b.originalColumn);
  const offsets = sites.map((site) => {
    const source = sourceIndex.get(site.file);
    if (source === undefined) return -1;
    const list = byLine.get(`${source}:${site.line - 1}`);
    if (!list || list.length === 0) return -1;
    let best = list[0]!;
    for (const m of list) if (m.originalColumn <= site.column - 1) best = m;
    const delta = best.originalColumn <= site.column - 1 ? site.column - 1 - best.originalColumn : 0;
    return lineStarts[best.generatedLine]! + best.generatedColumn + delta;
  });
  const covered = sites.map(() => false);
  const order = offsets.map((offset, i) => ({ offset, i })).filter((o) => o.offset >= 0).sort((a, b) => a.offset - b.offset);
  const url = pathToFileURL(bundle).href;
  for (const name of readdirSync(coverageDir)) {
    if (!name.endsWith('.json')) continue;
    const data = JSON.parse(readFileSync(join(coverageDir, name), 'utf8')) as { result: { url: string; functions: { ranges: V8Range[] }[] }[] };
    const script = data.result.find((s) => s.url === url);
    if (!script) continue;
    const counts = countsAt(script.functions.flatMap((f) => f.ranges), order.map((o) => o.offset));
    order.forEach((o, k) => {
      if ((counts[k] ?? 0) > 0) covered[o.i] = true;
    });
  }
  return covered;
}
