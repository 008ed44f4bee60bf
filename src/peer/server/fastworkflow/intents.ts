// Natural-language queries mapped to commands by keyword matching (the mock's stand-in for
// FastWorkflow's NLU and agent; deterministic, no LLM). The agent splits a query into clauses
// ("... then ...", "... and then ...", ";") and plans each clause against the state at that
// moment; the assistant maps the whole query to one plan and does not plan across steps.
import { CommandSyntaxError, parseCommand, type ParsedCommand } from './command-syntax.js';
import { CommandRejectedError, ITEM_CONTEXT, type TodoWorkflow } from './workflow.js';

/** Splits an agent query into clauses. */
export function splitClauses(query: string): string[] {
  return query
    .split(/;|\band then\b|\bthen\b/i)
    .map((c) => c.trim().replace(/^(?:and|please)\s+/i, '').replace(/[.,!?]+$/, '').trim())
    .filter((c) => c.length > 0);
}

/** An explicit command string the workflow knows, else undefined. */
function explicitCommand(clause: string, workflow: TodoWorkflow): ParsedCommand | undefined {
  try {
    const parsed = parseCommand(clause);
    workflow.resolve(parsed);
    return parsed;
  } catch (error) {
    if (error instanceof CommandSyntaxError || error instanceof CommandRejectedError) return undefined;
    throw error;
  }
}

const cmd = (name: string, parameters: Record<string, string> = {}): ParsedCommand => ({ name, parameters });

/** Selects item `id` first when needed, then runs `then` in the TodoItem context. */
function onItem(workflow: TodoWorkflow, id: string | undefined, then: ParsedCommand): ParsedCommand[] | undefined {
  if (id !== undefined && !(workflow.context === ITEM_CONTEXT && String(workflow.selected?.id) === id)) {
    return [...(workflow.context === ITEM_CONTEXT ? [cmd('reset_context')] : []), cmd('TodoList/select_item', { item_id: id }), then];
  }
  return workflow.context === ITEM_CONTEXT ? [then] : undefined;
}

/**
 * The commands one clause means, in order, given the workflow's current state; undefined when
 * nothing matches. A clause that is already a valid command string is taken as it is.
 */
export function planClause(clause: string, workflow: TodoWorkflow): ParsedCommand[] | undefined {
  const explicit = explicitCommand(clause, workflow);
  if (explicit) return [explicit];
  const text = clause.trim();
  const lower = text.toLowerCase();
  const number = /\b(?:item|task|#|number)?\s*#?(\d{1,9})\b/i.exec(text)?.[1];
  if (/\b(?:current context|what context|which context|where am i)\b/.test(lower)) return [cmd('what_is_current_context')];
  const add = /^(?:add|create|new)\s+(?:an?\s+)?(?:(?:item|task|todo)\s*:?\s+)?(.+?)(?:\s+(?:by|due(?:\s+on)?)\s+(\d{4}-\d{2}-\d{2}))?$/i.exec(text);
  if (add) return [cmd('TodoList/add_item', add[2] ? { title: add[1]!, due_date: add[2] } : { title: add[1]! })];
  const rename = /\brename\b.*?\b(?:to|as)\s+(.+)$/i.exec(text);
  if (rename) return onItem(workflow, number, cmd('TodoItem/rename', { title: rename[1]!.trim() }));
  const toRoot = workflow.context === ITEM_CONTEXT ? [cmd('reset_context')] : [];
  if (/\b(?:list|items|tasks|todos)\b/.test(lower)) {
    const status = /\b(?:open|pending)\b/.test(lower) ? 'open' : /\b(?:done|finished|completed)\b/.test(lower) ? 'done' : undefined;
    return [...toRoot, cmd('TodoList/list_items', status ? { status } : {})];
  }
  if (/\b(?:mark|complete|finish|done)\b/.test(lower)) return onItem(workflow, number, cmd('TodoItem/mark_done'));
  if (/\b(?:details?|describe|show)\b/.test(lower)) return onItem(workflow, number, cmd('TodoItem/show_details'));
  if (/\b(?:select|open|choose|pick)\b/.test(lower) && number !== undefined) return [...toRoot, cmd('TodoList/select_item', { item_id: number })];
  if (/\b(?:sync|synchroni[sz]e|upload)\b/.test(lower)) return [...toRoot, cmd('TodoList/sync_with_server')];
  if (/\b(?:back|reset|go up|home)\b/.test(lower)) return [cmd('reset_context')];
  return undefined;
}
