// The built-in workflow the mock serves: a deterministic to-do tracker (no LLM). Two contexts,
// TodoList (the root) and TodoItem (one item selected), plus global commands available in both,
// among them what_is_current_context (004 §5.2 Notes). One TodoWorkflow instance is the state of
// one MCP session's runtime.
import type { ParsedCommand } from './command-syntax.js';
import { formatCommand } from './command-syntax.js';
import type { CommandMetadata, NextAction, ParameterMetadata, WorkflowInfo } from './types.js';

export const WORKFLOW_NAME = 'todo_tracker';
export const ROOT_CONTEXT = 'TodoList';
export const ITEM_CONTEXT = 'TodoItem';
export const CONTEXTS = [ROOT_CONTEXT, ITEM_CONTEXT] as const;
export type WorkflowContext = (typeof CONTEXTS)[number];
/** Commands whose `context` is GLOBAL are available in every context. */
export const GLOBAL = '*';

export const WORKFLOW_INFO: Readonly<WorkflowInfo> = Object.freeze({
  workflow_name: WORKFLOW_NAME,
  description: 'A to-do tracker: add items, list them, select one, rename it or mark it done, and sync with a remote server.',
  purpose: 'Keep track of tasks and their due dates.',
  available_contexts: [...CONTEXTS],
});

/** A command, or its parameters, that the workflow cannot accept (a 422 at execute_command). */
export class CommandRejectedError extends Error {
  readonly code: 'UNKNOWN_COMMAND' | 'UNKNOWN_PARAMETER' | 'MISSING_PARAMETER' | 'INVALID_PARAMETER';
  readonly command: string;
  readonly parameter: string | undefined;
  constructor(code: CommandRejectedError['code'], command: string, message: string, parameter?: string) {
    super(message);
    this.name = 'CommandRejectedError';
    this.code = code;
    this.command = command;
    this.parameter = parameter;
  }
}

type ParameterType = 'string' | 'integer' | 'date' | 'enum';
interface ParameterSpec extends ParameterMetadata {
  type: ParameterType;
  values?: readonly string[];
}

export interface TodoItem {
  id: number;
  title: string;
  due_date: string | null;
  done: boolean;
}

/** What a command answers: one CommandResponse's worth. */
export interface CommandResult {
  success: boolean;
  response: string;
  artifacts?: Record<string, unknown>;
  next_actions?: NextAction[];
  recommendations?: string[];
}

export interface ExecutionEnvironment {
  /** Aborted when the turn times out or is cancelled. */
  signal: AbortSignal;
  /** The remote round trip of TodoList/sync_with_server (configurable so tests control it). */
  slowCommand(signal: AbortSignal): Promise<void>;
}

type Values = Record<string, string | number>;

interface CommandSpec {
  name: string;
  context: WorkflowContext | typeof GLOBAL;
  description: string;
  parameters: ParameterSpec[];
  examples: string[];
  run(workflow: TodoWorkflow, values: Values, env: ExecutionEnvironment): Promise<CommandResult> | CommandResult;
}

export interface ResolvedCommand {
  name: string;
  parameters: Values;
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function describeItem(item: TodoItem): string {
  return `#${item.id} ${item.title}${item.due_date ? ` (due ${item.due_date})` : ''}${item.done ? ' [done]' : ''}`;
}

const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'what_is_current_context',
    context: GLOBAL,
    description: 'Tell which context the workflow is in.',
    parameters: [],
    examples: ['what_is_current_context'],
    run: (w) => ({
      success: true,
      response: w.context === ITEM_CONTEXT ? `The current context is ${ITEM_CONTEXT} (item #${w.selected!.id}).` : `The current context is ${ROOT_CONTEXT}.`,
      artifacts: { context: w.context },
    }),
  },
  {
    name: 'reset_context',
    context: GLOBAL,
    description: 'Go back to the TodoList context.',
    parameters: [],
    examples: ['reset_context'],
    run: (w) => {
      w.leaveItem();
      return { success: true, response: `Back in ${ROOT_CONTEXT}.` };
    },
  },
  {
    name: 'TodoList/add_item',
    context: ROOT_CONTEXT,
    description: 'Add an item to the list.',
    parameters: [
      { name: 'title', type: 'string', required: true, description: 'What to do.' },
      { name: 'due_date', type: 'date', required: false, description: 'Due date, YYYY-MM-DD.' },
    ],
    examples: ['TodoList/add_item <title>buy milk</title>', 'TodoList/add_item <title>file taxes</title> <due_date>2026-04-15</due_date>'],
    run: (w, v) => {
      const item = w.addItem(String(v['title']), v['due_date'] === undefined ? null : String(v['due_date']));
      return {
        success: true,
        response: `Added ${describeItem(item)}.`,
        artifacts: { item: { ...item } },
        next_actions: [{ command_name: 'TodoList/select_item', arguments: { item_id: item.id } }],
      };
    },
  },
  {
    name: 'TodoList/list_items',
    context: ROOT_CONTEXT,
    description: 'List the items, optionally only the open or done ones.',
    parameters: [{ name: 'status', type: 'enum', values: ['open', 'done', 'all'], required: false, description: 'open, done or all (default all).' }],
    examples: ['TodoList/list_items', 'TodoList/list_items <status>open</status>'],
    run: (w, v) => {
      const status = (v['status'] as string | undefined) ?? 'all';
      const items = w.items.filter((i) => status === 'all' || (status === 'done') === i.done);
      return {
        success: true,
        response: items.length === 0 ? 'No items.' : items.map(describeItem).join('\n'),
        artifacts: { items: items.map((i) => ({ ...i })) },
      };
    },
  },
  {
    name: 'TodoList/select_item',
    context: ROOT_CONTEXT,
    description: 'Select an item; the workflow moves to the TodoItem context.',
    parameters: [{ name: 'item_id', type: 'integer', required: true, description: 'The item number.' }],
    examples: ['TodoList/select_item <item_id>1</item_id>'],
    run: (w, v) => {
      const item = w.items.find((i) => i.id === v['item_id']);
      if (!item) {
        return { success: false, response: `There is no item #${v['item_id']}.`, recommendations: ['TodoList/list_items'] };
      }
      w.enterItem(item);
      return { success: true, response: `Selected ${describeItem(item)}.` };
    },
  },
  {
    name: 'TodoList/sync_with_server',
    context: ROOT_CONTEXT,
    description: 'Send the list to the remote server (slow).',
    parameters: [],
    examples: ['TodoList/sync_with_server'],
    run: async (w, _v, env) => {
      await env.slowCommand(env.signal);
      return { success: true, response: `Synchronised ${w.items.length} item(s).` };
    },
  },
  {
    name: 'TodoItem/show_details',
    context: ITEM_CONTEXT,
    description: 'Show the selected item.',
    parameters: [],
    examples: ['TodoItem/show_details'],
    run: (w) => ({ success: true, response: describeItem(w.selected!), artifacts: { item: { ...w.selected! } } }),
  },
  {
    name: 'TodoItem/mark_done',
    context: ITEM_CONTEXT,
    description: 'Mark the selected item as done.',
    parameters: [],
    examples: ['TodoItem/mark_done'],
    run: (w) => {
      w.selected!.done = true;
      return { success: true, response: `Marked #${w.selected!.id} as done.` };
    },
  },
  {
    name: 'TodoItem/rename',
    context: ITEM_CONTEXT,
    description: 'Give the selected item a new title.',
    parameters: [{ name: 'title', type: 'string', required: true, description: 'The new title.' }],
    examples: ['TodoItem/rename <title>buy oat milk</title>'],
    run: (w, v) => {
      w.selected!.title = String(v['title']);
      return { success: true, response: `Renamed #${w.selected!.id} to ${w.selected!.title}.` };
    },
  },
];

const BY_NAME: ReadonlyMap<string, CommandSpec> = new Map(COMMANDS.map((c) => [c.name, c]));

function metadataOf(spec: CommandSpec): CommandMetadata {
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters.map(({ name, type, required, description }) => ({ name, type, required, description })),
    examples: [...spec.examples],
  };
}

function convert(spec: CommandSpec, param: ParameterSpec, raw: string): string | number {
  const invalid = (what: string): never => {
    throw new CommandRejectedError('INVALID_PARAMETER', spec.name, `parameter ${param.name} of ${spec.name} must be ${what}, got ${JSON.stringify(raw)}`, param.name);
  };
  const value = raw.trim();
  switch (param.type) {
    case 'string':
      return value === '' ? invalid('a non-empty string') : value;
    case 'integer':
      return /^[0-9]{1,9}$/.test(value) ? Number(value) : invalid('a positive integer');
    case 'date':
      return DATE.test(value) ? value : invalid('a date YYYY-MM-DD');
    case 'enum':
      return param.values!.includes(value) ? value : invalid(`one of ${param.values!.join(', ')}`);
  }
}

/** One session's workflow state. */
export class TodoWorkflow {
  context: WorkflowContext = ROOT_CONTEXT;
  selected: TodoItem | undefined;
  readonly items: TodoItem[] = [];
  #nextId = 1;

  addItem(title: string, dueDate: string | null): TodoItem {
    const item = { id: this.#nextId++, title, due_date: dueDate, done: false };
    this.items.push(item);
    return item;
  }

  enterItem(item: TodoItem): void {
    this.selected = item;
    this.context = ITEM_CONTEXT;
  }

  leaveItem(): void {
    this.selected = undefined;
    this.context = ROOT_CONTEXT;
  }

  /** Command metadata for the active context, global commands first (004 §5.3). */
  commands(): CommandMetadata[] {
    return COMMANDS.filter((c) => c.context === GLOBAL || c.context === this.context).map(metadataOf);
  }

  /** The human-readable form of commands(). */
  displayText(): string {
    const lines = this.commands().map((c) => `- ${c.name}: ${c.description}${c.parameters.length ? ` Parameters: ${c.parameters.map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`).join(', ')}.` : ''}`);
    return [`Commands available in context ${this.context}:`, ...lines].join('\n');
  }

  /**
   * Finds the command and checks its parameters. A name without a context path that is not
   * global is looked up in the active context. Throws CommandRejectedError.
   */
  resolve(parsed: ParsedCommand): ResolvedCommand {
    const spec = BY_NAME.get(parsed.name) ?? (parsed.name.includes('/') ? undefined : BY_NAME.get(`${this.context}/${parsed.name}`));
    if (!spec) throw new CommandRejectedError('UNKNOWN_COMMAND', parsed.name, `unknown command ${JSON.stringify(parsed.name)}`);
    const values: Values = {};
    for (const [name, raw] of Object.entries(parsed.parameters)) {
      const param = spec.parameters.find((p) => p.name === name);
      if (!param) {
        throw new CommandRejectedError('UNKNOWN_PARAMETER', spec.name, `${spec.name} has no parameter ${JSON.stringify(name)}`, name);
      }
      values[name] = convert(spec, param, raw);
    }
    const missing = spec.parameters.filter((p) => p.required && values[p.name] === undefined);
    if (missing.length > 0) {
      throw new CommandRejectedError(
        'MISSING_PARAMETER',
        spec.name,
        `${spec.name} needs ${missing.map((p) => p.name).join(', ')}`,
        missing[0]!.name,
      );
    }
    return { name: spec.name, parameters: values };
  }

  /** Runs a resolved command; a command of another context answers success: false without running. */
  async execute(command: ResolvedCommand, env: ExecutionEnvironment): Promise<CommandResult> {
    const spec = BY_NAME.get(command.name)!;
    if (spec.context !== GLOBAL && spec.context !== this.context) {
      const way = spec.context === ITEM_CONTEXT ? 'select an item first' : 'go back with reset_context first';
      return {
        success: false,
        response: `${spec.name} is not available in context ${this.context}; ${way}.`,
        recommendations: this.commands().map((c) => c.name),
      };
    }
    return spec.run(this, command.parameters, env);
  }
}

/** The command string of a resolved command (for trace raw_command). */
export function commandString(command: ResolvedCommand): string {
  return formatCommand(command.name, Object.fromEntries(Object.entries(command.parameters).map(([k, v]) => [k, String(v)])));
}

/** Every command of the workflow (all contexts). */
export function allCommands(): CommandMetadata[] {
  return COMMANDS.map(metadataOf);
}
