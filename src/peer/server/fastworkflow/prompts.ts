// The two prompts of 004 §7: format-command and clarify-params. The extension interface has no
// prompt hook, so prompts/list and prompts/get are served as extension requests. Getting a prompt
// renders text only; it never acts on the session (FW-PROMPT-4).
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { RpcError, type RequestContext } from '../extension.js';
import { FW_FAULT as F } from './faults.js';
import { isRecord } from '../../../wire/index.js';

interface PromptDefinition {
  name: string;
  description: string;
  arguments: { name: string; description: string }[];
  render(args: Record<string, string>): string;
}

const INSTRUCTIONS_FORMAT =
  'Write exactly one executable command for the intent below, in the form QualifiedName <param>value</param> ..., ' +
  'using only a command and parameters from the metadata. Escape &, < and > in values.';

export const PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'format-command',
    description: 'Format a single executable command with XML-tagged parameters',
    arguments: [
      { name: 'intent', description: 'What the user wants done.' },
      { name: 'metadata', description: 'Command metadata (get_commands output), as text or JSON.' },
    ],
    render: (a) => `${INSTRUCTIONS_FORMAT}\n\nIntent: ${a['intent']}\n\nMetadata: ${a['metadata']}`,
  },
  {
    name: 'clarify-params',
    description: 'Compose a concise clarification question for missing parameters',
    arguments: [
      { name: 'error_message', description: 'The error that names the missing or invalid parameters.' },
      { name: 'metadata', description: 'Command metadata (get_commands output), as text or JSON.' },
    ],
    render: (a) => `${a['error_message']}\n\nMetadata: ${a['metadata']}\n\nAsk the user one concise question for exactly the parameters that are missing.`,
  },
];

/** FastWorkflow's own prompts that 004 §7 leaves out of the MCP server (listed only under the excluded-prompts-listed fault). */
const EXCLUDED_PROMPTS: readonly PromptDefinition[] = ['name-conversation', 'summarize-conversation', 'plan-next-steps'].map((name) => ({
  name,
  description: `FastWorkflow's ${name} prompt`,
  arguments: [{ name: 'conversation', description: 'The conversation, as text.' }],
  render: (a) => `${name}: ${a['conversation']}`,
}));

/** prompts/list (FW-PROMPT-1, FW-PROMPT-2, FW-PROMPT-6). */
export async function listPrompts(params: unknown, ctx: RequestContext): Promise<unknown> {
  if (isRecord(params) && params['cursor'] !== undefined) {
    throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown cursor ${JSON.stringify(params['cursor'])} (prompts/list has one page)`);
  }
  const required = !ctx.faults.has(F.promptArgumentsOptional);
  // FAULT excluded-prompts-listed (FW-PROMPT-2): the prompts 004 leaves out are listed too.
  const listed = ctx.faults.has(F.excludedPromptsListed) ? [...PROMPTS, ...EXCLUDED_PROMPTS] : PROMPTS;
  return {
    prompts: listed.map((p) => ({
      name: p.name,
      description: p.description,
      arguments: p.arguments
        .filter((a) => !(ctx.faults.has(F.promptArgumentMissing) && p.name === 'clarify-params' && a.name === 'metadata'))
        .map((a) => ({ name: a.name, description: a.description, required })),
    })),
  };
}

/**
 * prompts/get (FW-PROMPT-3): -32602 for an unknown prompt, a missing argument or a non-string one
 * (CORE-PROMPTS-3). `onGet` runs after a successful render (the hook of fault prompt-starts-conversation).
 */
export async function getPrompt(params: unknown, ctx: RequestContext, onGet?: () => Promise<void>): Promise<unknown> {
  const p = isRecord(params) ? params : {};
  const prompt = PROMPTS.find((candidate) => candidate.name === p['name']);
  if (!prompt) throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown prompt ${JSON.stringify(p['name'])}`, { name: p['name'] ?? null });
  const given = p['arguments'] ?? {};
  if (!isRecord(given)) throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: prompts/get arguments must be an object');
  const args: Record<string, string> = {};
  for (const argument of prompt.arguments) {
    const value = given[argument.name];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: ${prompt.name} needs a non-empty string argument ${argument.name}`, { argument: argument.name });
    }
    args[argument.name] = value;
  }
  const text = ctx.faults.has(F.promptIgnoresArguments) ? `Use the ${prompt.name} template.` : prompt.render(args);
  await onGet?.();
  return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

/**
 * completion/complete (the core declares `completions`, and prompts/list lists these prompts): the
 * arguments of format-command and clarify-params are free text with nothing to suggest, so they
 * complete to no values; a ref to an unknown prompt is -32602, and so is a resource template (this
 * profile declares none: its prompts and tools replace the core's resources).
 */
export async function completePrompt(params: unknown): Promise<unknown> {
  const p = isRecord(params) ? params : {};
  const ref = isRecord(p['ref']) ? p['ref'] : undefined;
  if (ref?.['type'] === 'ref/resource') throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown resource template ${JSON.stringify(ref['uri'])}`);
  if (ref?.['type'] !== 'ref/prompt') throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown ref type ${JSON.stringify(ref?.['type'])}`);
  const argument = isRecord(p['argument']) ? p['argument'] : undefined;
  if (!argument || typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') {
    throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: completion/complete needs ref {type} and argument {name, value}');
  }
  const prompt = PROMPTS.find((candidate) => candidate.name === ref['name']);
  if (!prompt) throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown prompt ${JSON.stringify(ref['name'])}`);
  if (!prompt.arguments.some((a) => a.name === argument['name'])) {
    throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: prompt ${prompt.name} has no argument ${JSON.stringify(argument['name'])}`);
  }
  return { completion: { values: [], total: 0, hasMore: false } };
}
