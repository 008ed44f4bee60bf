// What the schemas say about one JSON-RPC message, for every observer alike (the runner's schema
// check and the validating proxy): the schema for its method, version and direction, plus the
// WebTransport binding's own schemas where the binding extends a core message; each break of a
// required shape charged to the requirement its place belongs to, and the members the documents
// do not name gathered as one extra-members finding (never a failure: docs/profile.md §2, rule 4).
import { BoundedMap } from '../common/bounded-map.js';
import { isRecord } from '../wire/index.js';
import type { ExtraMember, IdentifyCandidate, LoadedSchema, ValidationIssue } from '../schema/model.js';
import type { SchemaRegistry } from '../schema/registry.js';
import { requirementAt, type RequirementLookup } from './place.js';

export type MessageDirection = 'client-to-server' | 'server-to-client';

export interface MessageContext {
  direction: MessageDirection;
  protocolVersion?: string;
  /** For a response: the method of the request it answers. */
  requestMethod?: string;
  /** For a response: whether that request asked for a task (`params.task`, 2025-11-25). */
  taskRequested?: boolean;
  /** The message went over the WebTransport binding: its `ref/stream` content items are judged by the binding's schema. */
  webTransport?: boolean;
  /**
   * Also judge the binding's extensions of core messages (the initialize `transport` members) on
   * WebTransport. Default true; off for messages a harness sends on purpose without them.
   */
  bindingExtensions?: boolean;
}

export interface SchemaFinding {
  /** `violation`: the message breaks a shape the documents require. `extra-members`: it carries members they do not name. */
  kind: 'violation' | 'extra-members';
  /** The schema as a path below schemas/. */
  schema: string;
  /**
   * The requirement whose place the finding is at; undefined when no catalog requirement the
   * schema annotates owns that place (the finding is then only noted).
   */
  requirement: string | undefined;
  /** Every catalog requirement the schema checks (its own annotation, then the schemas it references). */
  annotated: string[];
  /** JSON Pointer of the first issue or member. */
  pointer: string;
  /** The issues charged to `requirement` (violations). */
  issues: ValidationIssue[];
  /** The members the documents do not name (extra-members). */
  extraMembers: ExtraMember[];
}

/** The WebTransport binding's tool-result content item pointing at an execution stream (001 §5, WT-EXEC-4). */
export const REF_STREAM_SCHEMA = 'binding/ref-stream.payload.schema.json';

/** Binding schemas that judge only the binding's extension of a core message, on WebTransport, beside the core schema. */
const BINDING_EXTENSIONS: Readonly<Record<MessageDirection, { method: string; kind: 'request' | 'result'; schema: string }>> = {
  'client-to-server': { method: 'initialize', kind: 'request', schema: 'binding/initialize.request.schema.json' },
  'server-to-client': { method: 'initialize', kind: 'result', schema: 'binding/initialize.result.schema.json' },
};
const EXTENSION_FILES: ReadonlySet<string> = new Set(Object.values(BINDING_EXTENSIONS).map((e) => e.schema));

export interface MessageJudgement {
  /** The schemas that judged the message (none when no schema describes it). */
  schemas: LoadedSchema[];
  /** What they found: [] when the message fits and names only documented members. */
  findings: SchemaFinding[];
}

/**
 * Judgements already made, per registry and catalog, by message text and context: the same
 * messages come back in case after case of a run (the initialize exchange, tool lists, pings, each
 * case counting its ids from 1), and a judgement depends on nothing else. Bounded: the oldest go
 * first; longer messages are judged each time (their text would cost more memory than judging).
 */
const judged = new WeakMap<SchemaRegistry, WeakMap<RequirementLookup, BoundedMap<string, MessageJudgement>>>();
const JUDGED_KEPT = 2000;
const JUDGED_TEXT_CHARS = 4 * 1024;

/**
 * The JSON text of `value` when that text tells it apart from every other value: plain objects,
 * arrays, strings, booleans, null and finite numbers only, fewer than 64 levels deep. A value
 * decoded from CBOR may hold what JSON text cannot (a byte string, a big integer, undefined, NaN,
 * -0, a tagged date); undefined then. Undefined too when the text would be longer than `maxChars`,
 * found out before it is written (a message of many megabytes is not copied into a string).
 */
export function plainJsonText(value: unknown, maxChars = Number.POSITIVE_INFINITY): string | undefined {
  const budget = { left: maxChars };
  if (!isPlainJson(value, 0, budget)) return undefined;
  const text = JSON.stringify(value);
  return text.length <= maxChars ? text : undefined;
}

/** Whether `value` is plain JSON (plainJsonText) whose text, escapes left out, fits in `budget.left` characters (spent as it is read). */
function isPlainJson(value: unknown, depth: number, budget: { left: number }): boolean {
  switch (typeof value) {
    case 'string':
      return (budget.left -= value.length + 2) >= 0;
    case 'boolean':
      return (budget.left -= 5) >= 0;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) && (budget.left -= 1) >= 0;
    case 'object': {
      if (value === null) return (budget.left -= 4) >= 0;
      if (depth >= 64 || (budget.left -= 2) < 0) return false;
      if (Array.isArray(value)) {
        // A hole reads as undefined: not plain (JSON text would say null).
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1, budget)) return false;
        return true;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      for (const key of Object.keys(value)) {
        if ((budget.left -= key.length + 3) < 0 || !isPlainJson((value as Record<string, unknown>)[key], depth + 1, budget)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function judgementsOf(registry: SchemaRegistry, catalog: RequirementLookup): BoundedMap<string, MessageJudgement> {
  let byCatalog = judged.get(registry);
  if (byCatalog === undefined) judged.set(registry, (byCatalog = new WeakMap()));
  let kept = byCatalog.get(catalog);
  if (kept === undefined) byCatalog.set(catalog, (kept = new BoundedMap(JUDGED_KEPT)));
  return kept;
}

/**
 * Judges one message by the schemas for its method, version and direction. What it returns is
 * shared with later calls for the same message and context: read it, never change it.
 */
export function judgeMessage(registry: SchemaRegistry, catalog: RequirementLookup, message: unknown, context: MessageContext): MessageJudgement {
  const text = plainJsonText(message, JUDGED_TEXT_CHARS);
  if (text === undefined) return judgeAfresh(registry, catalog, message, context);
  const key = `${context.direction} ${context.protocolVersion ?? ''} ${context.requestMethod ?? ''} ${String(context.taskRequested)} ${String(context.webTransport)} ${String(context.bindingExtensions)} ${text}`;
  const kept = judgementsOf(registry, catalog);
  const known = kept.get(key);
  if (known !== undefined) return known;
  const judgement = judgeAfresh(registry, catalog, message, context);
  kept.set(key, judgement);
  return judgement;
}

function judgeAfresh(registry: SchemaRegistry, catalog: RequirementLookup, message: unknown, context: MessageContext): MessageJudgement {
  const schemas: LoadedSchema[] = [];
  const findings: SchemaFinding[] = [];
  const judge = (schema: LoadedSchema, instance: unknown, prefix: string, found?: Found) => {
    schemas.push(schema);
    judgeBy(registry, catalog, schema, instance, prefix, findings, found);
  };
  let judged = message;
  if (context.webTransport && context.requestMethod === 'tools/call' && isRecord(message)) {
    const split = splitRefStreams(message);
    judged = split.core;
    for (const { index, item } of split.items) judge(registry.get(REF_STREAM_SCHEMA), item, `/result/content/${index}`);
  }
  if (context.webTransport && context.bindingExtensions !== false && isRecord(message)) {
    const extension = BINDING_EXTENSIONS[context.direction];
    const matches = extension.kind === 'request' ? message['method'] === extension.method : context.requestMethod === extension.method && 'result' in message;
    if (matches) judge(registry.get(extension.schema), message, '');
  }
  // A result answering a request nobody saw has no schema to be judged by.
  if (isRecord(message) && !('method' in message) && 'result' in message && context.requestMethod === undefined) return { schemas, findings };
  const best = registry
    .identify(judged, {
      direction: context.direction,
      ...(context.protocolVersion !== undefined ? { protocolVersion: context.protocolVersion } : {}),
      ...(context.requestMethod !== undefined ? { requestMethod: context.requestMethod } : {}),
      ...(context.taskRequested !== undefined ? { taskRequested: context.taskRequested } : {}),
    })
    .find((candidate) => !EXTENSION_FILES.has(candidate.schema.file));
  // identify validated it already: its issues and extra members are what judging it finds.
  if (best) judge(best.schema, judged, '', best);
  return { schemas, findings };
}

/** What validating an instance against a schema found (as SchemaRegistry.identify gives it for each candidate). */
type Found = Pick<IdentifyCandidate, 'issues' | 'extraMembers'>;

/** Adds the findings of `instance` (found at `prefix` inside the message) against `schema`; `found`: what validating it found, when known. */
function judgeBy(registry: SchemaRegistry, catalog: RequirementLookup, schema: LoadedSchema, instance: unknown, prefix: string, into: SchemaFinding[], found?: Found): void {
  const annotated = registry.requirementsOf(schema.id).filter((id) => catalog.has(id));
  const issues = placedIssues((found?.issues ?? registry.validate(schema.id, instance)).map((issue) => ({ ...issue, instancePath: prefix + issue.instancePath })));
  const byRequirement = new Map<string | undefined, ValidationIssue[]>();
  for (const issue of issues) {
    const missing = (issue.params as { missingProperty?: unknown }).missingProperty;
    const requirement = requirementAt(annotated, { pointer: issue.instancePath, keyword: issue.keyword, ...(typeof missing === 'string' ? { missing } : {}) }, catalog);
    byRequirement.set(requirement, [...(byRequirement.get(requirement) ?? []), issue]);
  }
  for (const [requirement, mine] of byRequirement) {
    into.push({ kind: 'violation', schema: schema.file, requirement, annotated, pointer: mine[0]!.instancePath, issues: mine, extraMembers: [] });
  }
  const extraMembers = (found?.extraMembers ?? registry.extraMembers(schema.id, instance)).map((m) => ({ ...m, pointer: prefix + m.pointer }));
  if (extraMembers.length > 0) {
    const requirement = requirementAt(annotated, { pointer: extraMembers[0]!.pointer }, catalog);
    into.push({ kind: 'extra-members', schema: schema.file, requirement, annotated, pointer: extraMembers[0]!.pointer, issues: [], extraMembers });
  }
}

/**
 * The issues that each stand for a place of their own: duplicates go, an `if` issue goes (the
 * failing `then`/`else` reports its own), and under an `anyOf`/`oneOf` that failed, the branches'
 * issues are only its explanation: the composite keeps the place, its message quoting the first of them.
 */
function placedIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const unique = issues.filter((issue) => {
    const key = `${issue.instancePath}\u0000${issue.keyword}\u0000${issue.message}\u0000${JSON.stringify(issue.params)}`;
    if (issue.keyword === 'if' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const composites = unique.filter((issue) => issue.keyword === 'anyOf' || issue.keyword === 'oneOf');
  const under = (issue: ValidationIssue, place: string) => issue.instancePath === place || issue.instancePath.startsWith(`${place}/`);
  return unique.flatMap((issue) => {
    if (composites.includes(issue)) {
      const reason = unique.find((other) => !composites.includes(other) && under(other, issue.instancePath));
      return [reason ? { ...issue, message: `${issue.message} (${reason.instancePath || '/'}: ${reason.message})` } : issue];
    }
    return composites.some((composite) => under(issue, composite.instancePath)) ? [] : [issue];
  });
}

/**
 * On WebTransport a tools/call result may carry `ref/stream` content items, which the core result
 * schema does not know: each is judged by the binding's own schema, and the core schema sees the
 * rest of the message (the item replaced by an empty text item).
 */
function splitRefStreams(message: Record<string, unknown>): { core: Record<string, unknown>; items: { index: number; item: Record<string, unknown> }[] } {
  const result = message['result'];
  if (!isRecord(result) || !Array.isArray(result['content'])) return { core: message, items: [] };
  const items: { index: number; item: Record<string, unknown> }[] = [];
  const content = (result['content'] as unknown[]).map((item, index) => {
    if (!isRecord(item) || item['type'] !== 'ref/stream') return item;
    items.push({ index, item });
    return { type: 'text', text: '' };
  });
  if (items.length === 0) return { core: message, items };
  return { core: { ...message, result: { ...result, content } }, items };
}
