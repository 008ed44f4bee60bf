// Renders the generated parts of docs/profile.md (requirement tables, error codes, methods) from
// the catalog and the protocol constants. scripts/generate-profile-tables.ts writes them; a test
// checks the committed document is up to date.
import { ERROR_CODES, ERROR_LAYERS, type ErrorLayer } from './error-codes.js';
import { ProfileDocumentError } from './errors.js';
import { METHODS, type MethodSystem } from './methods.js';
import {
  REQUIREMENT_AREAS,
  REQUIREMENT_LEVELS,
  REQUIREMENT_SYSTEMS,
  type Requirement,
  type RequirementCatalog,
  type RequirementSystem,
} from './requirements.js';

export const SYSTEM_TITLES: Record<RequirementSystem, string> = {
  CORE: 'MCP core (seeds 002, 003 and the official MCP schemas)',
  FLOW: 'MCP Flow (seed 000)',
  WT: 'WebTransport binding (seed 001)',
  FW: 'FastWorkflow server profile (seed 004)',
};

export const AREA_TITLES: { [S in RequirementSystem]: Record<(typeof REQUIREMENT_AREAS)[S][number], string> } = {
  CORE: {
    RPC: 'JSON-RPC message shape and ids',
    LIFE: 'Lifecycle: initialize, initialized, ping',
    VER: 'Protocol version negotiation',
    CAP: 'Capability negotiation and gating',
    TOOLS: 'Tools',
    RES: 'Resources',
    PROMPTS: 'Prompts',
    LOG: 'Logging',
    PROG: 'Progress',
    CANCEL: 'Cancellation',
    PAGE: 'Pagination',
    SAMPLING: 'Sampling',
    ERR: 'Error codes',
    HTTP: 'Streamable HTTP transport',
  },
  FLOW: {
    CAP: 'Capabilities and message directions',
    START: 'interaction.start',
    PROMPT: 'Prompts: interaction.prompt, interaction.continue, prompt types',
    RESPOND: 'interaction.respond',
    VALID: 'Server-side validation',
    SM: 'Session state machine and interaction.complete',
    STATE: 'interaction.getState',
    CANCEL: 'interaction.cancel',
    TIMEOUT: 'Timeouts and recovery',
    ERR: 'Error codes',
    SEC: 'Security',
    STATELESS: 'Stateless mode (HMAC tokens)',
    RATE: 'Rate and count limits',
  },
  WT: {
    CONN: 'Connection state machine',
    FRAME: 'Control-stream framing',
    ENC: 'Encoding negotiation',
    INIT: 'initialize transport parameters',
    EXEC: 'Execution streams',
    DGRAM: 'Datagrams',
    ID: 'Request ids in headers',
    CANCEL: 'Cancellation ($/cancel)',
    SHUT: 'Graceful shutdown ($/shutdown)',
    STREAMERR: 'Stream errors ($/streamError)',
    LIMIT: 'Limits',
    SEC: 'Security',
    ERR: 'Binding error codes',
  },
  FW: {
    TRANSPORT: 'Transport (Streamable HTTP)',
    SESSION: 'Sessions',
    TOOL: 'Tool surface',
    STREAM: 'Trace streaming',
    PROMPT: 'Prompts and resources',
    ERR: 'Error mapping',
    CONV: 'Conversations and feedback',
  },
};

/** Names of the generated sections, in document order. */
export const GENERATED_SECTIONS = ['summary', 'requirements', 'error-codes', 'methods', 'basis', 'audit'] as const;
export type GeneratedSection = (typeof GENERATED_SECTIONS)[number];

export function beginMarker(section: GeneratedSection): string {
  return `<!-- BEGIN GENERATED: ${section} (scripts/generate-profile-tables.ts; edit suites/requirements.json or src/protocol/ instead) -->`;
}

export function endMarker(section: GeneratedSection): string {
  return `<!-- END GENERATED: ${section} -->`;
}

/** Makes text safe inside a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** `000_73a7...txt §Heading; more` -> `000 §Heading; more` (the seed's number is enough in a table). */
function shortSource(source: string): string {
  return source.replace(/\b([0-9]{3})_[0-9a-f]{16}\.txt\b/g, '$1');
}

function requirementRow(r: Requirement): string {
  let text = r.text;
  if (r.accepts) text += ` <br>Accepted readings (reported as INFO): ${r.accepts.map((a, i) => `(${i + 1}) ${a}`).join('; ')}.`;
  if (r.conflict) text += ` See [${r.conflict}](#${r.conflict.toLowerCase()}).`;
  const testable = r.testable === true ? 'yes' : `no: ${r.testable}`;
  return `| ${r.id} | ${r.level} | ${r.role} | ${cell(text)} | ${cell(shortSource(r.source))} | ${cell(testable)} |`;
}

export function renderSummary(catalog: RequirementCatalog): string {
  const lines = ['| System | ' + REQUIREMENT_LEVELS.join(' | ') + ' | Total | Not testable from outside |', '|---|' + REQUIREMENT_LEVELS.map(() => '---:').join('|') + '|---:|---:|'];
  const row = (label: string, list: readonly Requirement[]): string =>
    `| ${label} | ${REQUIREMENT_LEVELS.map((level) => list.filter((r) => r.level === level).length).join(' | ')} | ${list.length} | ${list.filter((r) => r.testable !== true).length} |`;
  for (const system of REQUIREMENT_SYSTEMS) {
    lines.push(row(`${system}: ${SYSTEM_TITLES[system]}`, catalog.requirements.filter((r) => r.system === system)));
  }
  lines.push(row('**All**', catalog.requirements));
  return lines.join('\n');
}

export function renderRequirements(catalog: RequirementCatalog): string {
  const out: string[] = [];
  for (const system of REQUIREMENT_SYSTEMS) {
    out.push(`### ${system}: ${SYSTEM_TITLES[system]}`, '');
    const titles = AREA_TITLES[system] as Record<string, string>;
    for (const area of REQUIREMENT_AREAS[system]) {
      const rows = catalog.requirements.filter((r) => r.system === system && r.area === area);
      if (rows.length === 0) continue;
      out.push(`#### ${system}-${area}: ${titles[area]}`, '');
      out.push('| ID | Level | Role | Requirement | Source | Testable |', '|---|---|---|---|---|---|');
      for (const r of rows) out.push(requirementRow(r));
      out.push('');
    }
  }
  return out.join('\n').trimEnd();
}

const LAYER_TITLES: Record<ErrorLayer, string> = {
  jsonrpc: 'JSON-RPC 2.0 (every layer)',
  mcp: 'MCP core',
  flow: 'MCP Flow (answers to interaction.* and capabilities)',
  binding: 'WebTransport binding',
};

export function renderErrorCodes(): string {
  const out = ['| Layer | Code | Name | Meaning | Source | Requirements |', '|---|---:|---|---|---|---|'];
  for (const layer of ERROR_LAYERS) {
    for (const d of ERROR_CODES.filter((e) => e.layer === layer)) {
      out.push(`| ${LAYER_TITLES[layer]} | ${d.code} | ${cell(d.name)} | ${cell(d.meaning)} | ${cell(shortSource(d.source))} | ${d.requirements.join(', ') || '-'} |`);
    }
  }
  return out.join('\n');
}

const METHOD_SYSTEM_TITLES: Record<MethodSystem, string> = { core: 'MCP core', flow: 'MCP Flow', binding: 'WebTransport binding' };

export function renderMethods(): string {
  const out = ['| Method | System | Kind | Direction | Since | Needs capability |', '|---|---|---|---|---|---|'];
  for (const d of METHODS) {
    const gate = d.capability ? `${d.capability.declaredBy}: \`${d.capability.path}\`${d.capability.since ? ` (from ${d.capability.since})` : ''}` : '-';
    out.push(`| \`${d.method}\` | ${METHOD_SYSTEM_TITLES[d.system]} | ${d.kind} | ${d.direction} | ${d.since ?? '-'} | ${gate} |`);
  }
  return out.join('\n');
}

/** `JSON-RPC 2.0 §5` and the like stay; seed sources are already short (`002 §Message Types`). */
function basisLine(source: string, quote: string): string {
  return `${source}: "${quote.replace(/\s+/g, ' ').trim()}"`;
}

/** Every MUST (and any other requirement with a basis) with the words it rests on. */
export function renderBasis(catalog: RequirementCatalog): string {
  const out = ['| ID | Level | Basis |', '|---|---|---|'];
  for (const r of catalog.requirements) {
    if (r.withdrawn !== undefined || r.basis === undefined) continue;
    out.push(`| ${r.id} | ${r.level} | ${cell(r.basis.map((b) => basisLine(b.source, b.quote)).join(' <br>'))} |`);
  }
  return out.join('\n');
}

/** The requirements the honest-verdicts audit changed: level before and after, readings, why. */
export function renderAudit(catalog: RequirementCatalog): string {
  const out = ['| Requirement | Before | After | Accepted readings | Why |', '|---|---|---|---|---|'];
  for (const r of catalog.requirements) {
    if (r.audit === undefined) continue;
    const readings = r.accepts ? r.accepts.map((a, i) => `(${i + 1}) ${a}`).join('; ') : '-';
    out.push(`| ${r.id} | ${r.audit.level} | ${r.withdrawn !== undefined ? 'withdrawn' : r.level} | ${cell(readings)} | ${cell(r.audit.why)} |`);
  }
  return out.join('\n');
}

export function renderSection(section: GeneratedSection, catalog: RequirementCatalog): string {
  switch (section) {
    case 'basis':
      return renderBasis(catalog);
    case 'audit':
      return renderAudit(catalog);
    case 'summary':
      return renderSummary(catalog);
    case 'requirements':
      return renderRequirements(catalog);
    case 'error-codes':
      return renderErrorCodes();
    case 'methods':
      return renderMethods();
  }
}

/** The text between a section's markers (without the blank lines around it). */
export function extractSection(markdown: string, section: GeneratedSection): string {
  const [start, end] = markerOffsets(markdown, section);
  return markdown.slice(start, end).trim();
}

function markerOffsets(markdown: string, section: GeneratedSection): [number, number] {
  const begin = beginMarker(section);
  const first = markdown.indexOf(begin);
  if (first < 0) throw new ProfileDocumentError(section, `missing the line ${begin}`);
  if (markdown.indexOf(begin, first + begin.length) >= 0) throw new ProfileDocumentError(section, 'the begin marker appears twice');
  const start = first + begin.length;
  const end = markdown.indexOf(endMarker(section), start);
  if (end < 0) throw new ProfileDocumentError(section, `missing the line ${endMarker(section)} after the begin marker`);
  return [start, end];
}

/** The document with every generated section replaced by a fresh rendering. */
export function updateProfile(markdown: string, catalog: RequirementCatalog): string {
  let result = markdown;
  for (const section of GENERATED_SECTIONS) {
    const [start, end] = markerOffsets(result, section);
    result = `${result.slice(0, start)}\n\n${renderSection(section, catalog)}\n\n${result.slice(end)}`;
  }
  return result;
}
