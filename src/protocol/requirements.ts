// The requirement catalog (suites/requirements.json) as typed data: load it, check it, look
// requirements up by ID. docs/profile.md is the same catalog for people (see profile-tables.ts).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUIREMENT_ID_PATTERN } from '../common/requirement-id.js';
import { CatalogError, UnknownRequirementError } from './errors.js';
import { isRecord } from '../wire/index.js';

export const REQUIREMENT_LEVELS = ['MUST', 'SHOULD', 'MAY', 'INFO'] as const;
export type RequirementLevel = (typeof REQUIREMENT_LEVELS)[number];

export const REQUIREMENT_ROLES = ['server', 'client', 'both'] as const;
export type RequirementRole = (typeof REQUIREMENT_ROLES)[number];

/** The areas of each system, in the order docs/architecture.md lists them. */
export const REQUIREMENT_AREAS = {
  CORE: ['RPC', 'LIFE', 'VER', 'CAP', 'TOOLS', 'RES', 'PROMPTS', 'LOG', 'PROG', 'CANCEL', 'PAGE', 'SAMPLING', 'ERR', 'HTTP'],
  FLOW: ['CAP', 'START', 'PROMPT', 'RESPOND', 'VALID', 'SM', 'STATE', 'CANCEL', 'TIMEOUT', 'ERR', 'SEC', 'STATELESS', 'RATE'],
  WT: ['CONN', 'FRAME', 'ENC', 'INIT', 'EXEC', 'DGRAM', 'ID', 'CANCEL', 'SHUT', 'STREAMERR', 'LIMIT', 'SEC', 'ERR'],
  FW: ['TRANSPORT', 'SESSION', 'TOOL', 'STREAM', 'PROMPT', 'ERR', 'CONV'],
} as const satisfies Record<string, readonly string[]>;
export type RequirementSystem = keyof typeof REQUIREMENT_AREAS;
export const REQUIREMENT_SYSTEMS = Object.keys(REQUIREMENT_AREAS) as RequirementSystem[];

/** The five source documents ("seeds") and what each is. Every `source` starts with one of them. */
export const SEED_FILES = {
  '000_73a733fb938bdd0a.txt': 'MCP Flow Protocol Specification 0.1.0',
  '001_b966f71271833902.txt': 'MCP-Flow Implementation Guide (WebTransport binding)',
  '002_a41331816123f095.txt': 'Model Context Protocol base specification',
  '003_1312f7fe7e450dd6.txt': 'MCP communication patterns',
  '004_6d97ca695a769eab.txt': 'FastWorkflow MCP server specification',
} as const;
export type SeedFile = keyof typeof SEED_FILES;

export { REQUIREMENT_ID_IN_TEXT, REQUIREMENT_ID_PATTERN } from '../common/requirement-id.js';

/** A conflict entry of docs/profile.md ("### C-07 ..."). */
export const CONFLICT_ID_PATTERN = /^C-[0-9]{2}$/;

export interface Requirement {
  readonly id: string;
  readonly level: RequirementLevel;
  readonly system: RequirementSystem;
  readonly area: string;
  /** The requirement, quoted or restated as the project checks it. */
  readonly text: string;
  /** `<seed file> §<heading>`, optionally followed by `; <further references>`. */
  readonly source: string;
  readonly role: RequirementRole;
  /** `true`, or why the requirement cannot be checked from outside. */
  readonly testable: true | string;
  /** The docs/profile.md conflict entry that shaped it. */
  readonly conflict?: string;
  /** Readings that are all accepted (each reported as INFO). */
  readonly accepts?: readonly string[];
  /** Set when the requirement was withdrawn: why. The ID stays reserved; no case may cite it. */
  readonly withdrawn?: string;
  /**
   * The words a MUST rests on (docs/profile.md §2, "Basis"): at least one quote from a seed, plus
   * JSON-RPC 2.0 or MCP specification text where the seed defers to them. Required for every MUST.
   */
  readonly basis?: readonly BasisQuote[];
  /** Set when the honest-verdicts audit changed the requirement: its level before, and why. */
  readonly audit?: AuditRecord;
}

/** One quoted passage a requirement rests on. */
export interface BasisQuote {
  /**
   * Where the words are: a seed section (`002 §Message Types`), JSON-RPC 2.0 (`JSON-RPC 2.0 §5.1`),
   * a page of the MCP specification (`MCP 2025-06-18 basic/lifecycle`) or a definition of the
   * official MCP schema (`MCP schema 2025-06-18 InitializeResult`). See BASIS_SOURCE_PATTERNS.
   */
  readonly source: string;
  /** The sentence(s) as the source writes them (Markdown emphasis and line breaks may differ). */
  readonly quote: string;
}

/** What the audit of docs/profile.md §9 changed about a requirement. */
export interface AuditRecord {
  /** The level before the audit (equal to the current one when only the text or readings changed). */
  readonly level: RequirementLevel;
  /** Why, in a sentence or two: which words allow what the old requirement refused. */
  readonly why: string;
}

/** The kinds of basis source, each with the pattern its `source` follows. */
export const BASIS_SOURCE_PATTERNS = {
  /** A seed by its three-digit number and the heading of its section. */
  seed: /^(000|001|002|003|004) §(.+)$/,
  /** The JSON-RPC 2.0 specification (jsonrpc.org/specification) by section number. */
  jsonrpc: /^JSON-RPC 2\.0 §([1-9](?:\.[0-9]+)?)$/,
  /** A page of the MCP specification (docs/specification/<version>/<page>.mdx in its repository). */
  mcp: /^MCP (2024-11-05|2025-03-26|2025-06-18|2025-11-25) ([a-z0-9-]+(?:\/[a-z0-9-]+)*)$/,
  /** A definition (and optionally one of its properties) of the official MCP JSON Schema. */
  mcpSchema: /^MCP schema (2024-11-05|2025-03-26|2025-06-18|2025-11-25) ([A-Za-z]+)(?:\.([A-Za-z_]+))?$/,
} as const;
export type BasisSourceKind = keyof typeof BASIS_SOURCE_PATTERNS;

/** The kind of a basis source, or undefined when it follows none of the patterns. */
export function basisSourceKind(source: string): BasisSourceKind | undefined {
  for (const [kind, pattern] of Object.entries(BASIS_SOURCE_PATTERNS)) if (pattern.test(source)) return kind as BasisSourceKind;
  return undefined;
}

export interface RequirementCatalog {
  readonly version: 1;
  readonly requirements: readonly Requirement[];
}

/** The verdict a failed check of a requirement at this level produces. */
export type FailureVerdict = 'FAIL' | 'WARN' | 'INFO';

/** MUST fails, SHOULD warns, MAY and INFO only inform. */
export function failureVerdict(level: RequirementLevel): FailureVerdict {
  return level === 'MUST' ? 'FAIL' : level === 'SHOULD' ? 'WARN' : 'INFO';
}

export interface SourceReference {
  seed: SeedFile;
  /** The heading of the seed's section, as written in the seed without its leading '#'s. */
  section: string;
  /** Whatever follows the first ';' (official schema definitions and the like). */
  also?: string;
}

/** Splits a `source` into seed, section and further references; undefined when malformed. */
export function parseSource(source: string): SourceReference | undefined {
  const match = /^(\S+) §([^;]+?)\s*(?:;\s*(.+))?$/.exec(source);
  if (!match) return undefined;
  const seed = match[1] as string;
  if (!Object.hasOwn(SEED_FILES, seed)) return undefined;
  const reference: SourceReference = { seed: seed as SeedFile, section: (match[2] as string).trim() };
  if (match[3] !== undefined) reference.also = match[3];
  return reference;
}

const ENTRY_KEYS = new Set(['id', 'level', 'system', 'area', 'text', 'source', 'role', 'testable', 'conflict', 'accepts', 'withdrawn', 'basis', 'audit']);

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** Checks a parsed catalog document and returns it typed; throws CatalogError naming the first problem. */
export function parseCatalog(data: unknown, file?: string): RequirementCatalog {
  const fail = (message: string, pointer: string): never => {
    throw new CatalogError(message, pointer, file);
  };
  if (!isRecord(data)) fail('the catalog must be a JSON object', '');
  const document = data as Record<string, unknown>;
  if (document.version !== 1) fail(`unsupported version ${JSON.stringify(document.version)} (expected 1)`, '/version');
  if (!Array.isArray(document.requirements)) fail('"requirements" must be an array', '/requirements');
  const seen = new Set<string>();
  const requirements = (document.requirements as unknown[]).map((entry, index): Requirement => {
    const at = `/requirements/${index}`;
    if (!isRecord(entry)) fail('each requirement must be an object', at);
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) if (!ENTRY_KEYS.has(key)) fail(`unknown field "${key}"`, `${at}/${key}`);
    if (typeof e.id !== 'string') fail('"id" must be a string', `${at}/id`);
    const id = e.id as string;
    const idMatch = REQUIREMENT_ID_PATTERN.exec(id);
    if (!idMatch) fail(`id ${JSON.stringify(id)} is not of the form <SYSTEM>-<AREA>-<n>`, `${at}/id`);
    if (seen.has(id)) fail(`duplicate id ${id}`, `${at}/id`);
    seen.add(id);
    const [, system, area] = idMatch as RegExpExecArray;
    if (e.system !== system) fail(`"system" ${JSON.stringify(e.system)} does not match the id ${id}`, `${at}/system`);
    if (e.area !== area) fail(`"area" ${JSON.stringify(e.area)} does not match the id ${id}`, `${at}/area`);
    const areas: readonly string[] = REQUIREMENT_AREAS[system as RequirementSystem];
    if (!areas.includes(area as string)) fail(`area ${area} is not an area of ${system} (${areas.join(', ')})`, `${at}/area`);
    if (!REQUIREMENT_LEVELS.includes(e.level as RequirementLevel)) {
      fail(`"level" must be one of ${REQUIREMENT_LEVELS.join(', ')}`, `${at}/level`);
    }
    if (!REQUIREMENT_ROLES.includes(e.role as RequirementRole)) fail(`"role" must be one of ${REQUIREMENT_ROLES.join(', ')}`, `${at}/role`);
    if (!nonEmptyString(e.text)) fail('"text" must be a non-empty string', `${at}/text`);
    if (typeof e.source !== 'string' || parseSource(e.source) === undefined) {
      fail(`"source" must be "<seed file> §<section>[; ...]" naming one of ${Object.keys(SEED_FILES).join(', ')}`, `${at}/source`);
    }
    if (e.testable !== true && !nonEmptyString(e.testable)) {
      fail('"testable" must be true or a string saying why the requirement cannot be checked from outside', `${at}/testable`);
    }
    if (e.conflict !== undefined && (typeof e.conflict !== 'string' || !CONFLICT_ID_PATTERN.test(e.conflict))) {
      fail('"conflict" must name a conflict entry such as "C-07"', `${at}/conflict`);
    }
    if (e.accepts !== undefined) {
      if (!Array.isArray(e.accepts) || e.accepts.length < 2 || !e.accepts.every(nonEmptyString)) {
        fail('"accepts" must list at least two accepted readings as non-empty strings', `${at}/accepts`);
      }
    }
    if (e.withdrawn !== undefined && !nonEmptyString(e.withdrawn)) {
      fail('"withdrawn" must be a non-empty string saying why the requirement was withdrawn', `${at}/withdrawn`);
    }
    if (e.basis !== undefined) {
      if (!Array.isArray(e.basis) || e.basis.length === 0) fail('"basis" must be a non-empty array of {source, quote}', `${at}/basis`);
      (e.basis as unknown[]).forEach((quote, n) => {
        const where = `${at}/basis/${n}`;
        if (!isRecord(quote)) fail('each basis entry must be an object {source, quote}', where);
        const q = quote as Record<string, unknown>;
        for (const key of Object.keys(q)) if (key !== 'source' && key !== 'quote') fail(`unknown field "${key}"`, `${where}/${key}`);
        if (typeof q.source !== 'string' || basisSourceKind(q.source) === undefined) {
          fail('"source" must be "<000..004> §<heading>", "JSON-RPC 2.0 §<n>", "MCP <version> <page>" or "MCP schema <version> <Definition>"', `${where}/source`);
        }
        if (!nonEmptyString(q.quote)) fail('"quote" must be the quoted words, a non-empty string', `${where}/quote`);
      });
    }
    if (e.audit !== undefined) {
      const audit = e.audit;
      if (!isRecord(audit)) fail('"audit" must be an object {level, why}', `${at}/audit`);
      const a = audit as Record<string, unknown>;
      for (const key of Object.keys(a)) if (key !== 'level' && key !== 'why') fail(`unknown field "${key}"`, `${at}/audit/${key}`);
      if (!REQUIREMENT_LEVELS.includes(a.level as RequirementLevel)) fail(`"audit.level" must be one of ${REQUIREMENT_LEVELS.join(', ')}`, `${at}/audit/level`);
      if (!nonEmptyString(a.why)) fail('"audit.why" must say why the requirement changed', `${at}/audit/why`);
    }
    return e as unknown as Requirement;
  });
  return { version: 1, requirements };
}

/** The catalog file: suites/requirements.json in the nearest folder above this module that has one. */
export function defaultCatalogPath(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(folder, 'suites', 'requirements.json');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(folder);
    if (parent === folder) {
      throw new CatalogError('suites/requirements.json was not found above the protocol module', '', undefined);
    }
    folder = parent;
  }
}

/** Reads and checks a catalog file (the project's own catalog when no path is given). */
export function readCatalog(path: string = defaultCatalogPath()): RequirementCatalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new CatalogError(`cannot read the file (${(cause as Error).message})`, '', path, { cause });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new CatalogError(`not valid JSON (${(cause as Error).message})`, '', path, { cause });
  }
  return parseCatalog(data, path);
}

/** A catalog indexed by ID. */
export class Requirements {
  readonly catalog: RequirementCatalog;
  readonly #byId: Map<string, Requirement>;

  constructor(catalog: RequirementCatalog) {
    this.catalog = catalog;
    this.#byId = new Map(catalog.requirements.map((requirement) => [requirement.id, requirement]));
  }

  get size(): number {
    return this.#byId.size;
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** The requirement with this ID; throws UnknownRequirementError when there is none. */
  get(id: string): Requirement {
    const requirement = this.#byId.get(id);
    if (requirement === undefined) {
      throw new UnknownRequirementError(id, REQUIREMENT_ID_PATTERN.test(id) ? 'is not in the requirement catalog' : 'is not a well-formed requirement ID (<SYSTEM>-<AREA>-<n>)');
    }
    return requirement;
  }

  /** All requirements in catalog order, optionally only those of one system (and area). */
  list(filter: { system?: RequirementSystem; area?: string; level?: RequirementLevel } = {}): Requirement[] {
    return this.catalog.requirements.filter(
      (r) =>
        (filter.system === undefined || r.system === filter.system) &&
        (filter.area === undefined || r.area === filter.area) &&
        (filter.level === undefined || r.level === filter.level),
    );
  }

  /** Throws UnknownRequirementError for the first ID that the catalog does not define. */
  assertKnown(ids: Iterable<string>): void {
    for (const id of ids) this.get(id);
  }
}

let shared: Requirements | undefined;

/** The project's own catalog, read once. */
export function requirements(): Requirements {
  shared ??= new Requirements(readCatalog());
  return shared;
}

/** Shorthand for `requirements().get(id)`. */
export function requirement(id: string): Requirement {
  return requirements().get(id);
}
