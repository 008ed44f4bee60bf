// Which requirement a schema violation breaks. A schema annotates every requirement it checks; the
// proxy cites the one the first issue is about: the JSON-RPC envelope rules by where the issue is,
// otherwise the annotated requirement whose text names the most words of the issue's path.
import type { Requirements } from '../../protocol/requirements.js';
import type { ValidationIssue } from '../../schema/registry.js';

/**
 * Where in a message an issue sits, and the requirement that place is about wherever it appears
 * (a prompt's choices inside interaction.prompt or inside a getState history alike).
 */
const PATH_HINTS: readonly [RegExp, string][] = [
  [/\/(prompt|nextPrompt|initialPrompt)\/choices(\/|$)/, 'FLOW-PROMPT-4'],
  [/\/(prompt|nextPrompt|initialPrompt)\/validation\/pattern$/, 'FLOW-PROMPT-6'],
  [/\/(prompt|nextPrompt|initialPrompt)\/validation(\/|$)/, 'FLOW-PROMPT-5'],
  [/\/(prompt|nextPrompt|initialPrompt)\/(defaultValue|placeholder)$/, 'FLOW-PROMPT-7'],
  [/^\/params\/progress(\/|$)/, 'FLOW-PROMPT-10'],
  [/^\/(result|params)\/capabilities\/[^/]+/, 'CORE-CAP-6'],
];

/** Requirements every message schema annotates for the JSON-RPC envelope. */
const ENVELOPE = new Set(['CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-3', 'CORE-RPC-14']);

export function schemaIssueRequirement(annotated: readonly string[], issue: ValidationIssue | undefined, catalog: Requirements): string | undefined {
  const known = annotated.filter((id) => catalog.has(id));
  if (known.length === 0) return undefined;
  const path = issue?.instancePath ?? '';
  const missing = (issue?.params as { missingProperty?: unknown } | undefined)?.missingProperty;
  if (path === '/jsonrpc' && known.includes('CORE-RPC-1')) return 'CORE-RPC-1';
  if (path === '/id' && known.includes('CORE-RPC-3')) return 'CORE-RPC-3';
  if (path === '/params' && issue?.keyword === 'type' && known.includes('CORE-RPC-2')) return 'CORE-RPC-2';
  if (path === '/result' && issue?.keyword === 'type' && known.includes('CORE-RPC-14')) return 'CORE-RPC-14';
  for (const [pattern, id] of PATH_HINTS) if (pattern.test(path) && catalog.has(id)) return id;
  const specific = known.filter((id) => !ENVELOPE.has(id));
  if (specific.length === 0) return known[0];
  const words = [...path.split('/'), ...(typeof missing === 'string' ? [missing] : [])]
    .filter((word) => word !== '' && !/^\d+$/.test(word) && word !== 'params' && word !== 'result');
  let best = specific[0]!;
  let bestScore = -1;
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
