// Which requirement a place in a message is about. A schema annotates every requirement it checks;
// a schema finding (a broken shape, or a member the documents do not name) is charged to the one
// its place belongs to: the JSON-RPC envelope rules by where the place is, a prompt's parts by
// their path wherever the prompt appears, otherwise the annotated requirement whose text names the
// most words of the path. Nothing is charged to a requirement the schema does not annotate: a
// place no annotated requirement owns gets `undefined`.

/** What the mapping needs from the requirement catalog (src/protocol's Requirements fits). */
export interface RequirementLookup {
  has(id: string): boolean;
  get(id: string): { text: string };
}

/** A place in a message: a JSON Pointer, and for a missing member the keyword `required` and its name. */
export interface MessagePlace {
  pointer: string;
  keyword?: string;
  /** The member a `required` keyword found missing (ajv's `params.missingProperty`). */
  missing?: string;
}

/** Requirements of the JSON-RPC envelope, each owning its own members only. */
const ENVELOPE: ReadonlyMap<string, string> = new Map([
  ['/jsonrpc', 'CORE-RPC-1'],
  ['/id', 'CORE-RPC-3'],
  ['/method', 'CORE-RPC-2'],
]);
const ENVELOPE_IDS: ReadonlySet<string> = new Set(['CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-3', 'CORE-RPC-7', 'CORE-RPC-14']);

/**
 * Parts of a message that one requirement is about wherever they appear (a prompt's choices inside
 * interaction.prompt or inside a getState history alike).
 */
const PATH_HINTS: readonly [RegExp, string][] = [
  [/\/(prompt|nextPrompt|initialPrompt|currentPrompt)\/choices(\/|$)/, 'FLOW-PROMPT-4'],
  [/\/(prompt|nextPrompt|initialPrompt|currentPrompt)\/validation\/pattern$/, 'FLOW-PROMPT-6'],
  [/\/(prompt|nextPrompt|initialPrompt|currentPrompt)\/validation(\/|$)/, 'FLOW-PROMPT-5'],
  [/\/(prompt|nextPrompt|initialPrompt|currentPrompt)\/(defaultValue|placeholder)$/, 'FLOW-PROMPT-7'],
  [/^\/params\/progress(\/|$)/, 'FLOW-PROMPT-10'],
  [/^\/(result|params)\/capabilities\/[^/]+/, 'CORE-CAP-6'],
];

/** The requirement among `annotated` that owns `place`, or undefined when none does. */
export function requirementAt(annotated: readonly string[], place: MessagePlace, catalog: RequirementLookup): string | undefined {
  const known = annotated.filter((id) => catalog.has(id));
  const has = (id: string | undefined): id is string => id !== undefined && known.includes(id);
  const path = place.keyword === 'required' && place.missing !== undefined ? `${place.pointer}/${escape(place.missing)}` : place.pointer;
  const envelope = ENVELOPE.get(path);
  if (has(envelope)) return envelope;
  if (path === '/params' && place.keyword === 'type' && has('CORE-RPC-2')) return 'CORE-RPC-2';
  if (path === '/result' && place.keyword === 'type' && has('CORE-RPC-14')) return 'CORE-RPC-14';
  if (/^\/error(\/(code|message))?$/.test(path) && has('CORE-RPC-7')) return 'CORE-RPC-7';
  for (const [pattern, id] of PATH_HINTS) if (pattern.test(path) && has(id)) return id;
  const specific = known.filter((id) => !ENVELOPE_IDS.has(id));
  if (specific.length === 0) return undefined;
  const words = path
    .split('/')
    .map(unescape)
    .filter((word) => word !== '' && !/^\d+$/.test(word) && word !== 'params' && word !== 'result');
  let best = specific[0]!;
  let bestScore = 0;
  for (const id of specific) {
    const text = catalog.get(id).text;
    // Later path segments are more specific: they weigh more.
    const score = words.reduce((sum, word, index) => sum + (mentions(text, word) ? index + 1 : 0), 0);
    if (score > bestScore) {
      best = id;
      bestScore = score;
    }
  }
  return best;
}

function mentions(text: string, word: string): boolean {
  return new RegExp(`(^|[^A-Za-z])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z]|$)`).test(text);
}

function escape(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescape(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
