// The mock server's prompts (with required and optional arguments) and completion/complete for
// their arguments and for the resource template.
import { CORE_METHOD } from '../../../protocol/methods.js';
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { RpcError, type RequestContext } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { isRecord } from './jsonrpc.js';
import { RECOMMENDED_CORE_READINGS, type CoreReadings } from './readings.js';
import { TEMPLATE } from './resources.js';

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
  /** Values offered by completion/complete. */
  suggestions: readonly string[];
}

interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: readonly PromptArgument[];
  render(args: Record<string, string>): string;
}

export const CORE_PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'greeting',
    title: 'Greeting',
    description: 'Greets someone by name, in a style',
    arguments: [
      { name: 'name', description: 'Who to greet', required: true, suggestions: ['Ada', 'Alan', 'Grace', 'Linus'] },
      { name: 'style', description: 'formal or casual', required: false, suggestions: ['formal', 'casual'] },
    ],
    render: (args) => (args['style'] === 'formal' ? `Good day, ${args['name']}.` : `Hi ${args['name']}!`),
  },
  {
    name: 'summarize',
    title: 'Summarize',
    description: 'Asks for a summary of a text',
    arguments: [{ name: 'text', description: 'The text to summarise', required: true, suggestions: [] }],
    render: (args) => `Summarise this text in one sentence:\n\n${args['text']}`,
  },
];

const ITEM_IDS = ['alpha', 'beta', 'gamma', 'delta'];

/** The prompt and completion handlers; `readings` decides the code for an unknown prompt (CORE-PROMPTS-3). */
export function promptRequests(readings: CoreReadings = RECOMMENDED_CORE_READINGS): Record<string, (params: unknown, ctx: RequestContext) => Promise<unknown>> {
  const unknownPrompt = (name: unknown) => {
    const code = readings.unknownPromptCode;
    const label = code === JSONRPC_ERROR.InvalidParams ? 'Invalid params' : code === JSONRPC_ERROR.MethodNotFound ? 'Method not found' : 'Error';
    return new RpcError(code, `${label}: unknown prompt ${JSON.stringify(name)}`);
  };
  return {
    [CORE_METHOD.promptsList]: async (params, ctx) => {
      if (isRecord(params) && params['cursor'] !== undefined) {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown cursor ${JSON.stringify(params['cursor'])}`);
      }
      return {
        prompts: CORE_PROMPTS.map((prompt) => {
          const listed: Record<string, unknown> = {
            name: prompt.name,
            description: prompt.description,
            arguments: prompt.arguments.map((a) => ({
              name: a.name,
              description: a.description,
              required: ctx.faults.has(F.promptRequiredAsString) ? String(a.required) : a.required,
            })),
          };
          if (ctx.protocolVersion >= '2025-06-18') listed['title'] = prompt.title;
          return listed;
        }),
      };
    },
    [CORE_METHOD.promptsGet]: async (params, ctx) => {
      const p = isRecord(params) ? params : {};
      // A missing or mistyped name is invalid params (CORE-RPC-11) whatever the reading for an unknown one.
      if (typeof p['name'] !== 'string') throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: prompts/get needs a string name');
      const prompt = CORE_PROMPTS.find((candidate) => candidate.name === p['name']);
      if (!prompt) throw unknownPrompt(p['name']);
      if (p['arguments'] !== undefined && !isRecord(p['arguments'])) {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: prompt arguments must be an object of strings');
      }
      const given = (p['arguments'] as Record<string, unknown> | undefined) ?? {};
      const args: Record<string, string> = {};
      for (const [name, value] of Object.entries(given)) {
        if (typeof value !== 'string') throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: argument ${name} must be a string`);
        args[name] = value;
      }
      for (const argument of prompt.arguments) {
        if (argument.required && args[argument.name] === undefined) {
          if (ctx.faults.has(F.promptMissingArgumentAccepted)) {
            args[argument.name] = '';
            continue;
          }
          throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: prompt ${prompt.name} needs the argument ${argument.name}`, {
            argument: argument.name,
          });
        }
      }
      return { description: prompt.description, messages: [{ role: ctx.faults.has(F.promptMessageRoleSystem) ? 'system' : 'user', content: { type: 'text', text: prompt.render(args) } }] };
    },
    [CORE_METHOD.completionComplete]: async (params, ctx) => {
      const p = isRecord(params) ? params : {};
      const ref = isRecord(p['ref']) ? p['ref'] : undefined;
      const argument = isRecord(p['argument']) ? p['argument'] : undefined;
      if (!ref || typeof ref['type'] !== 'string' || !argument || typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: completion/complete needs ref {type} and argument {name, value}');
      }
      const prefix = argument['value'];
      let candidates: readonly string[];
      if (ref['type'] === 'ref/prompt') {
        const prompt = CORE_PROMPTS.find((candidate) => candidate.name === ref['name']);
        if (!prompt) throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown prompt ${JSON.stringify(ref['name'])}`);
        candidates = prompt.arguments.find((a) => a.name === argument['name'])?.suggestions ?? [];
      } else if (ref['type'] === 'ref/resource') {
        if (ref['uri'] !== TEMPLATE) throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown resource template ${JSON.stringify(ref['uri'])}`);
        candidates = argument['name'] === 'id' ? ITEM_IDS : [];
      } else {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown ref type ${JSON.stringify(ref['type'])}`);
      }
      const values = candidates.filter((value) => value.toLowerCase().startsWith(prefix.toLowerCase()));
      if (ctx.faults.has(F.completionResultNotObject)) return values;
      return { completion: { values, total: values.length, hasMore: false } };
    },
  };
}
