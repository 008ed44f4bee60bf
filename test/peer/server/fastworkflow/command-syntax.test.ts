import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandSyntaxError, formatCommand, parseCommand } from '../../../../src/peer/server/fastworkflow/command-syntax.js';

describe('parseCommand', () => {
  it('reads a qualified name and XML-tagged parameters', () => {
    expect(parseCommand('TodoList/add_item <title>buy milk</title> <due_date>2026-04-15</due_date>')).toEqual({
      name: 'TodoList/add_item',
      parameters: { title: 'buy milk', due_date: '2026-04-15' },
    });
  });

  it('reads a global command without parameters, around whitespace', () => {
    expect(parseCommand('  what_is_current_context \n')).toEqual({ name: 'what_is_current_context', parameters: {} });
  });

  it('decodes the five XML entities and keeps other text as it is', () => {
    expect(parseCommand('a <t>x &lt;y&gt; &amp; &quot;z&quot; &apos;w&apos; > 1</t>').parameters).toEqual({ t: 'x <y> & "z" \'w\' > 1' });
  });

  it.each([
    ['', 0, 'empty'],
    ['   ', 3, 'empty'],
    ['<title>x</title>', 0, 'command name'],
    ['TodoList/add_item title', 18, 'expected "<param>"'],
    ['TodoList/add_item <title>x', 26, 'closing tag'],
    ['TodoList/add_item <title>x</name>', 26, 'closing tag'],
    ['TodoList/add_item <title>a <b>c</b></title>', 27, 'closing tag'],
    ['TodoList/add_item <title>x</title> <title>y</title>', 35, 'twice'],
    ['TodoList/add_item <1x>x</1x>', 18, 'opening tag'],
    ['TodoList/add_item <title>fish & chips</title>', 30, '&'],
    ['TodoList/add_item<title>x</title>', 17, 'unexpected'],
    ['TodoList/ <title>x</title>', 8, 'unexpected'],
  ])('rejects %j at offset %i', (command, offset, words) => {
    let caught: unknown;
    try {
      parseCommand(command);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CommandSyntaxError);
    const error = caught as CommandSyntaxError;
    expect(error.code).toBe('COMMAND_MALFORMED');
    expect(error.offset).toBe(offset);
    expect(error.message).toContain(words);
  });

  it('reads back whatever formatCommand writes', () => {
    const name = fc.stringMatching(/^[A-Za-z_]\w{0,8}(\/[A-Za-z_]\w{0,8}){0,2}$/);
    const params = fc.dictionary(fc.stringMatching(/^[A-Za-z_]\w{0,8}$/), fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''), { maxKeys: 4 });
    fc.assert(
      fc.property(name, params, (n, p) => {
        expect(parseCommand(formatCommand(n, p))).toEqual({ name: n, parameters: p });
      }),
    );
  });
});
