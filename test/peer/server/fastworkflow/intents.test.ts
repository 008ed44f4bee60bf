import { describe, expect, it } from 'vitest';
import { planClause, splitClauses } from '../../../../src/peer/server/fastworkflow/intents.js';
import { TodoWorkflow } from '../../../../src/peer/server/fastworkflow/workflow.js';

const names = (plan: ReturnType<typeof planClause>) => plan?.map((c) => (Object.keys(c.parameters).length ? `${c.name} ${JSON.stringify(c.parameters)}` : c.name));

describe('splitClauses', () => {
  it('splits on "then", "and then" and ";" and drops filler', () => {
    expect(splitClauses('Add milk, then list items; and then please show details.')).toEqual(['Add milk', 'list items', 'show details']);
    expect(splitClauses('  ;  ')).toEqual([]);
  });
});

describe('planClause', () => {
  it.each([
    ['what is the current context?', ['what_is_current_context']],
    ['Add buy oat milk', ['TodoList/add_item {"title":"buy oat milk"}']],
    ['create task: file taxes due 2026-04-15', ['TodoList/add_item {"title":"file taxes","due_date":"2026-04-15"}']],
    ['list open items', ['TodoList/list_items {"status":"open"}']],
    ['show done tasks', ['TodoList/list_items {"status":"done"}']],
    ['select item 3', ['TodoList/select_item {"item_id":"3"}']],
    ['mark item 2 done', ['TodoList/select_item {"item_id":"2"}', 'TodoItem/mark_done']],
    ['rename item 4 to call mom', ['TodoList/select_item {"item_id":"4"}', 'TodoItem/rename {"title":"call mom"}']],
    ['sync with the server', ['TodoList/sync_with_server']],
    ['TodoList/add_item <title>x</title>', ['TodoList/add_item {"title":"x"}']],
    ['mark done', undefined],
    ['sing a song', undefined],
  ])('in TodoList, %j plans %j', (clause, expected) => {
    expect(names(planClause(clause, new TodoWorkflow()))).toEqual(expected);
  });

  it('plans against the current context', () => {
    const workflow = new TodoWorkflow();
    workflow.enterItem(workflow.addItem('milk', null));
    expect(names(planClause('mark done', workflow))).toEqual(['TodoItem/mark_done']);
    expect(names(planClause('mark item 1 done', workflow))).toEqual(['TodoItem/mark_done']);
    expect(names(planClause('show details of item 2', workflow))).toEqual(['reset_context', 'TodoList/select_item {"item_id":"2"}', 'TodoItem/show_details']);
    expect(names(planClause('list items', workflow))).toEqual(['reset_context', 'TodoList/list_items']);
    expect(names(planClause('go back', workflow))).toEqual(['reset_context']);
  });

  it('is deterministic', () => {
    const a = planClause('rename item 4 to call mom', new TodoWorkflow());
    const b = planClause('rename item 4 to call mom', new TodoWorkflow());
    expect(a).toEqual(b);
  });
});
