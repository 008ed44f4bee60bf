// The command strings of execute_command (004 §5.6): `QualifiedName <param1>value</param1> ...`.
// A qualified name is a context path and a command (`TodoList/add_item`) or a global command
// (`what_is_current_context`); each parameter is an XML-style element whose value is text with
// the five XML entities escaped. Anything else is malformed (a 422 at the tool).

/** A command string that does not follow the syntax; `offset` is where reading stopped (UTF-16 index). */
export class CommandSyntaxError extends Error {
  readonly code = 'COMMAND_MALFORMED';
  readonly offset: number;
  readonly command: string;
  constructor(command: string, offset: number, message: string) {
    super(`malformed command at offset ${offset}: ${message}`);
    this.name = 'CommandSyntaxError';
    this.command = command;
    this.offset = offset;
  }
}

export interface ParsedCommand {
  /** The qualified name as written. */
  name: string;
  /** Parameter values (entities decoded), in the order written. */
  parameters: Record<string, string>;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\/[A-Za-z_][A-Za-z0-9_]*)*/y;
const PARAM_NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeValue(command: string, start: number, raw: string): string {
  return raw.replace(/&([a-z]*);?/g, (match, entity: string, at: number) => {
    const decoded = ENTITIES[entity];
    if (decoded === undefined || !match.endsWith(';')) {
      throw new CommandSyntaxError(command, start + at, `"&" must start one of &lt; &gt; &amp; &quot; &apos;`);
    }
    return decoded;
  });
}

/** Parses a command string; throws CommandSyntaxError naming the offset of the first problem. */
export function parseCommand(command: string): ParsedCommand {
  let at = 0;
  const skipSpace = (): void => {
    while (at < command.length && /\s/.test(command[at]!)) at++;
  };
  skipSpace();
  if (at === command.length) throw new CommandSyntaxError(command, at, 'the command is empty');
  NAME.lastIndex = at;
  const name = NAME.exec(command)?.[0];
  if (name === undefined) throw new CommandSyntaxError(command, at, 'expected a command name such as TodoList/add_item');
  at += name.length;
  const parameters: Record<string, string> = Object.create(null) as Record<string, string>;
  for (;;) {
    const before = at;
    skipSpace();
    if (at === command.length) break;
    if (at === before) throw new CommandSyntaxError(command, at, `unexpected ${JSON.stringify(command[at])} after ${JSON.stringify(command.slice(0, at).trim())}`);
    if (command[at] !== '<') throw new CommandSyntaxError(command, at, `expected "<param>" but found ${JSON.stringify(command[at])}`);
    PARAM_NAME.lastIndex = at + 1;
    const param = PARAM_NAME.exec(command)?.[0];
    if (param === undefined || command[at + 1 + param.length] !== '>') {
      throw new CommandSyntaxError(command, at, 'expected an opening tag "<name>"');
    }
    if (param in parameters) throw new CommandSyntaxError(command, at, `parameter "${param}" is given twice`);
    const valueStart = at + param.length + 2;
    const closing = `</${param}>`;
    const end = command.indexOf(closing, valueStart);
    const nextOpen = command.indexOf('<', valueStart);
    if (end < 0 || nextOpen < end) {
      throw new CommandSyntaxError(command, nextOpen >= 0 && (end < 0 || nextOpen < end) ? nextOpen : command.length, `expected the closing tag "${closing}"`);
    }
    parameters[param] = decodeValue(command, valueStart, command.slice(valueStart, end));
    at = end + closing.length;
  }
  return { name, parameters: { ...parameters } };
}

/** Escapes the characters that cannot appear raw in a parameter value. */
export function escapeValue(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Writes a command string that parseCommand reads back as `name` and `parameters`. */
export function formatCommand(name: string, parameters: Record<string, string> = {}): string {
  const parts = [name];
  for (const [param, value] of Object.entries(parameters)) parts.push(`<${param}>${escapeValue(value)}</${param}>`);
  return parts.join(' ');
}
