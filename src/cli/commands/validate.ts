// `validate`: checks JSON messages (one message, a JSON array of messages, or NDJSON) against the
// schemas under schemas/ and says which schema each matches, or why it matches none.
import { readFile } from 'node:fs/promises';
import type { Argv } from 'yargs';
import { SchemaError } from '../../schema/errors.js';
import type { IdentifyCandidate, LoadedSchema, ValidationIssue } from '../../schema/model.js';
import { SchemaRegistry } from '../../schema/registry.js';
import { type CliCommand, type CliIo, ExitCode } from '../io.js';

/** How many non-matching candidates to explain when a message matches no schema. */
const CANDIDATES_SHOWN = 3;

/** Input that cannot be read or parsed: exit code 2. */
export class ValidateInputError extends Error {
  readonly code = 'VALIDATE_INPUT';
  constructor(message: string) {
    super(message);
    this.name = 'ValidateInputError';
  }
}

/** Splits the input text into messages: a JSON value (an array is a list of messages) or NDJSON. */
export function parseMessages(text: string, source: string): unknown[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') throw new ValidateInputError(`${source}: input is empty (expected JSON or NDJSON)`);
  let whole: unknown;
  let wholeError: Error | undefined;
  try {
    whole = JSON.parse(trimmed);
  } catch (error) {
    wholeError = error as Error;
  }
  if (!wholeError) {
    if (Array.isArray(whole)) {
      if (whole.length === 0) throw new ValidateInputError(`${source}: the JSON array holds no messages`);
      return whole;
    }
    return [whole];
  }
  const lines = trimmed.split(/\r?\n/);
  if (lines.length === 1) throw new ValidateInputError(`${source}: not valid JSON: ${wholeError.message}`);
  const messages: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      messages.push(JSON.parse(line));
    } catch (error) {
      throw new ValidateInputError(`${source}: line ${index + 1} is not valid JSON (read as NDJSON): ${(error as Error).message}`);
    }
  });
  return messages;
}

function title(schema: LoadedSchema): string {
  const t = (schema.schema as { title?: unknown }).title;
  return typeof t === 'string' ? t : schema.file;
}

function describeIssue(issue: ValidationIssue): string {
  return `${issue.instancePath === '' ? '(root)' : issue.instancePath} [${issue.keyword}] ${issue.message}${
    Object.keys(issue.params).length > 0 ? ` ${JSON.stringify(issue.params)}` : ''
  }`;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

interface Options {
  schema?: string;
  families?: string[];
  protocolVersion?: string;
  requestMethod?: string;
}

/** Validates every message; writes a verdict per message; returns the exit code. */
export function validateMessages(registry: SchemaRegistry, messages: unknown[], options: Options, io: CliIo): number {
  let forced: LoadedSchema | undefined;
  if (options.schema !== undefined) {
    const matches = registry.matchSuffix(options.schema);
    if (matches.length === 0) {
      io.err(`error: --schema ${JSON.stringify(options.schema)} names no loaded schema (give a $id, or a path below schemas/ or its suffix)`);
      return ExitCode.usage;
    }
    if (matches.length > 1) {
      io.err(`error: --schema ${JSON.stringify(options.schema)} is ambiguous; it matches:\n${matches.map((m) => `  ${m.file}`).join('\n')}`);
      return ExitCode.usage;
    }
    forced = matches[0];
  }

  // Responses are matched to the requests earlier in the same input by id.
  const methodsById = new Map<string, string>();
  let failures = 0;
  messages.forEach((message, index) => {
    const label = messages.length > 1 ? `message ${index + 1}: ` : '';
    const msg = record(message);
    let requestMethod = options.requestMethod;
    if (msg && typeof msg.method === 'string' && 'id' in msg) methodsById.set(JSON.stringify(msg.id), msg.method);
    else if (msg && requestMethod === undefined && ('result' in msg || 'error' in msg)) requestMethod = methodsById.get(JSON.stringify(msg.id));

    let candidates: IdentifyCandidate[];
    if (forced) {
      candidates = [{ schema: forced, issues: registry.validate(forced.id, message), extraMembers: registry.extraMembers(forced.id, message) }];
    } else {
      const context: { protocolVersion?: string; requestMethod?: string; families?: string[] } = {};
      if (options.protocolVersion !== undefined) context.protocolVersion = options.protocolVersion;
      if (requestMethod !== undefined) context.requestMethod = requestMethod;
      if (options.families !== undefined) context.families = options.families;
      candidates = registry.identify(message, context);
    }

    const matching = candidates.filter((c) => c.issues.length === 0);
    const [best] = matching;
    if (best) {
      io.out(`${label}valid: ${best.schema.id} (${title(best.schema)})`);
      if (best.extraMembers.length > 0) io.out(`  note: members the documents do not name (allowed): ${best.extraMembers.map((m) => m.pointer).join(', ')}`);
      const others = matching.slice(1);
      if (others.length > 0) {
        const shown = others.slice(0, CANDIDATES_SHOWN).map((c) => c.schema.file);
        const more = others.length > CANDIDATES_SHOWN ? ` and ${others.length - CANDIDATES_SHOWN} more` : '';
        io.out(`  also matches: ${shown.join(', ')}${more}`);
      }
      return;
    }
    failures++;
    if (candidates.length === 0) {
      const what =
        msg && typeof msg.method === 'string'
          ? `no schema describes method ${JSON.stringify(msg.method)}`
          : msg && 'result' in msg && requestMethod !== undefined
            ? `no result schema for request method ${JSON.stringify(requestMethod)}`
            : 'no schema could describe this message';
      io.out(`${label}invalid: ${what}${options.families ? ` in families ${options.families.join(', ')}` : ''}`);
      return;
    }
    io.out(`${label}invalid: matches none of ${candidates.length} candidate schema${candidates.length === 1 ? '' : 's'}`);
    for (const candidate of candidates.slice(0, CANDIDATES_SHOWN)) {
      io.out(`  ${candidate.schema.id} (${title(candidate.schema)}):`);
      for (const issue of candidate.issues) io.out(`    ${describeIssue(issue)}`);
    }
    if (candidates.length > CANDIDATES_SHOWN) io.out(`  ... and ${candidates.length - CANDIDATES_SHOWN} more candidates`);
  });
  return failures > 0 ? ExitCode.failure : ExitCode.ok;
}

async function readInput(file: string, io: CliIo): Promise<string> {
  if (file === '-') return io.readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ValidateInputError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export const validateCommand: CliCommand = {
  command: 'validate <file>',
  describe: 'Validate JSON messages (a message, a JSON array, or NDJSON; "-" for stdin) against the schemas',
  builder: (yargs: Argv) =>
    yargs
      .positional('file', { type: 'string', describe: 'JSON or NDJSON file, or "-" for standard input' })
      .option('schema', { type: 'string', describe: 'validate against this schema ($id, or a path below schemas/ or its suffix)' })
      .option('family', { type: 'string', describe: 'only schemas of these families (comma-separated: core, flow, binding, fastworkflow)' })
      .option('protocol-version', { type: 'string', describe: 'MCP protocol version of the core schemas (e.g. 2025-06-18)' })
      .option('request-method', { type: 'string', describe: 'method of the request the response(s) answer' }),
  run: async (args, io) => {
    // yargs-parser turns a lone "-" argument into "" (or true), so those mean standard input too.
    const file = args.file === '' || args.file === true || args.file === '-' ? '-' : String(args.file);
    const options: Options = {};
    if (typeof args.schema === 'string') options.schema = args.schema;
    if (typeof args.family === 'string') {
      const families = args.family.split(',').map((f) => f.trim()).filter((f) => f !== '');
      const known = ['core', 'flow', 'binding', 'fastworkflow'];
      const unknown = families.filter((f) => !known.includes(f));
      if (unknown.length > 0 || families.length === 0) {
        io.err(`error: --family ${JSON.stringify(args.family)}: unknown family ${unknown.join(', ') || '(none given)'}; use ${known.join(', ')}`);
        return ExitCode.usage;
      }
      options.families = families;
    }
    if (typeof args.protocolVersion === 'string') options.protocolVersion = args.protocolVersion;
    if (typeof args.requestMethod === 'string') options.requestMethod = args.requestMethod;

    let messages: unknown[];
    try {
      messages = parseMessages(await readInput(file, io), file === '-' ? '<stdin>' : file);
    } catch (error) {
      if (error instanceof ValidateInputError) {
        io.err(`error: ${error.message}`);
        return ExitCode.usage;
      }
      throw error;
    }
    let registry: SchemaRegistry;
    try {
      registry = SchemaRegistry.load();
      const version = options.protocolVersion;
      if (version !== undefined && !registry.schemas().some((s) => s.meta.protocolVersion === version)) {
        const known = [...new Set(registry.schemas().flatMap((s) => (s.meta.protocolVersion ? [s.meta.protocolVersion] : [])))].sort();
        io.err(`error: --protocol-version ${JSON.stringify(version)} has no schemas; known versions: ${known.join(', ') || '(none)'}`);
        return ExitCode.usage;
      }
      return validateMessages(registry, messages, options, io);
    } catch (error) {
      if (error instanceof SchemaError) {
        io.err(`error: schemas: ${error.message}`);
        return ExitCode.usage;
      }
      throw error;
    }
  },
};
