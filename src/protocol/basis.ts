// Finds a requirement's quoted basis in the text it names: a seed section, a page of the MCP
// specification or the descriptions of an official MCP schema definition. Used by the catalog's
// tests (seeds and schemas, where ../shared is present) and scripts/check-basis.ts (MCP pages,
// given a checkout of the specification). Comparison ignores Markdown emphasis, code ticks,
// quote styles and line breaks: only the words must be the source's.
import { BASIS_SOURCE_PATTERNS, type BasisQuote } from './requirements.js';

/** Text as compared: no Markdown emphasis, no code ticks or HTML tags, straight quotes, one space between words. */
export function normalizeQuoteText(text: string): string {
  return text
    .replace(/<[^>\n]+>/g, ' ')
    .replace(/\*\*|__|`/g, '')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .replace(/^\s*(?:[-*+]|\d+\.)\s+/gm, ' ')
    .replace(/^\s*>\s?/gm, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

interface Heading {
  level: number;
  title: string;
  line: number;
}

function headingsOf(lines: readonly string[]): Heading[] {
  const headings: Heading[] = [];
  let fenced = false;
  lines.forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    const match = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (match) headings.push({ level: match[1]!.length, title: match[2]!.trim(), line: index });
  });
  return headings;
}

/**
 * The text of every section of a Markdown document whose heading is `title` (the heading line up
 * to the next heading of the same or a higher level). Several sections may share a heading.
 */
export function sectionsTitled(markdown: string, title: string): string[] {
  const lines = markdown.split(/\r?\n/);
  const headings = headingsOf(lines);
  const wanted = normalizeQuoteText(title).toLowerCase();
  const sections: string[] = [];
  headings.forEach((heading, index) => {
    if (normalizeQuoteText(heading.title).toLowerCase() !== wanted) return;
    const end = headings.slice(index + 1).find((next) => next.level <= heading.level);
    sections.push(lines.slice(heading.line, end === undefined ? lines.length : end.line).join('\n'));
  });
  return sections;
}

/** Whether `quote` appears in `text` once both are normalised. */
export function containsQuote(text: string, quote: string): boolean {
  return normalizeQuoteText(text).includes(normalizeQuoteText(quote));
}

/** Why a seed quote is not where its source says, or undefined when it is. `seedText` is the seed's whole text. */
export function seedQuoteProblem(basis: BasisQuote, seedText: string): string | undefined {
  const match = BASIS_SOURCE_PATTERNS.seed.exec(basis.source);
  if (!match) return `${basis.source} is not a seed source`;
  const sections = sectionsTitled(seedText, match[2]!);
  if (sections.length === 0) return `seed ${match[1]} has no section headed "${match[2]}"`;
  if (!sections.some((section) => containsQuote(section, basis.quote))) {
    return `the words are not in seed ${match[1]} §${match[2]}: "${basis.quote}"`;
  }
  return undefined;
}

/** Every `description` string inside a JSON value (a schema definition and its properties). */
function descriptionsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) descriptionsOf(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'description' && typeof inner === 'string') out.push(inner);
      else descriptionsOf(inner, out);
    }
  }
  return out;
}

/**
 * Why an MCP schema quote is not in the named definition's descriptions, or undefined when it is.
 * `schema` is the parsed official schema of the version the source names.
 */
export function schemaQuoteProblem(basis: BasisQuote, schema: Record<string, unknown>): string | undefined {
  const match = BASIS_SOURCE_PATTERNS.mcpSchema.exec(basis.source);
  if (!match) return `${basis.source} is not an MCP schema source`;
  const definitions = (schema.$defs ?? schema.definitions) as Record<string, unknown> | undefined;
  const definition = definitions?.[match[2]!] as Record<string, unknown> | undefined;
  if (definition === undefined) return `the MCP schema ${match[1]} has no definition ${match[2]}`;
  let scope: unknown = definition;
  if (match[3] !== undefined) {
    scope = (definition.properties as Record<string, unknown> | undefined)?.[match[3]];
    if (scope === undefined) return `the MCP schema ${match[1]} definition ${match[2]} has no property ${match[3]}`;
  }
  if (!descriptionsOf(scope).some((text) => containsQuote(text, basis.quote))) {
    return `the words are not in the descriptions of MCP schema ${match[1]} ${match[2]}${match[3] ? `.${match[3]}` : ''}: "${basis.quote}"`;
  }
  return undefined;
}

/** Why an MCP specification page quote is not on the page, or undefined when it is. `page` is the .mdx text. */
export function pageQuoteProblem(basis: BasisQuote, page: string): string | undefined {
  if (!BASIS_SOURCE_PATTERNS.mcp.test(basis.source)) return `${basis.source} is not an MCP specification source`;
  return containsQuote(page, basis.quote) ? undefined : `the words are not on ${basis.source}: "${basis.quote}"`;
}
