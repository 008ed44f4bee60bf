// The pure parts of a wizard run: branching, progress totals, templates and exports.
import { describe, expect, it } from 'vitest';
import { parseWizard } from '../../../../src/peer/server/flow/index.js';
import { nextTarget, renderExport, stepById, stepsToEnd } from '../../../../src/peer/server/flow/session.js';
import { renderTemplate } from '../../../../src/peer/server/flow/template.js';
import { answer, testServer } from './harness.js';

const wizard = parseWizard({
  name: 'branchy',
  description: 'branches every way',
  steps: [
    {
      id: 'n',
      prompt: { type: 'number', message: 'n?' },
      branches: [
        { when: { lessThan: 0 }, next: 'negative' },
        { when: { in: [1, 2, 3] }, next: 'small' },
        { when: { atLeast: 100, field: 'n' }, next: '$complete' },
      ],
    },
    { id: 'middle', prompt: { type: 'text', message: 'm?' } },
    { id: 'small', prompt: { type: 'text', message: 's?' }, next: 'n' },
    { id: 'negative', prompt: { type: 'confirm', message: 'sure?' }, branches: [{ when: { field: 'n', equals: -1 }, next: 'middle' }] },
  ],
  result: { data: { n: '{{data.n}}', user: '{{params.user}}', text: 'n={{data.n}} by {{params.user}}', missing: '{{data.middle}}' } },
  export: { mimeType: 'text/plain', fileName: 'f.txt', body: '{{row}};', rows: '{{data.n}}' },
});

describe('nextTarget', () => {
  const step = (id: string) => stepById(wizard, id)!;
  it.each([
    [-5, 'negative'],
    [2, 'small'],
    [100, '$complete'],
    [50, 'middle'],
  ])('n=%s goes to %s', (n, target) => {
    expect(nextTarget(wizard, step('n'), { n })).toBe(target);
  });

  it('tests another field when the condition names one, and falls through to the next step in order', () => {
    expect(nextTarget(wizard, step('negative'), { n: -1, negative: true })).toBe('middle');
    expect(nextTarget(wizard, step('negative'), { n: -2, negative: true })).toBe('$complete');
    expect(nextTarget(wizard, step('middle'), {})).toBe('small');
  });

  it('counts the steps ahead on the default path without looping', () => {
    expect(stepsToEnd(wizard, step('n'))).toBe(3);
    expect(stepsToEnd(wizard, step('small'))).toBe(3);
    expect(stepsToEnd(wizard, step('negative'))).toBe(1);
  });
});

describe('templates', () => {
  it('replaces a whole placeholder by the value and embeds text otherwise', () => {
    expect(renderTemplate({ a: '{{data.x}}', b: 'x={{data.x}}', c: ['{{data.gone}}', '-{{data.gone}}-'] }, { data: { x: { deep: 1 } } })).toEqual({
      a: { deep: 1 },
      b: 'x={"deep":1}',
      c: [null, '--'],
    });
  });

  it('renders exports with the row count from the answers, clamped', () => {
    expect(renderExport(wizard, { n: 3 })?.bytes.toString()).toBe('1;2;3;');
    expect(renderExport(wizard, { n: 'many' })?.rows).toBe(0);
    expect(renderExport(wizard, { n: -4 })?.rows).toBe(0);
  });

  it('fills params from initialParams in the completion', async () => {
    const server = testServer({ wizards: [wizard] });
    const conn = server.connect();
    const { sessionId } = (await conn.call('interaction.start', { toolName: 'branchy', initialParams: { user: 'kim' } })) as { sessionId: string };
    await server.settle();
    await answer(server, conn, sessionId, 100);
    expect(conn.requests('interaction.complete')[0]?.result).toMatchObject({
      data: { n: 100, user: 'kim', text: 'n=100 by kim', missing: null, file: { name: 'f.txt', rows: 100 } },
    });
  });
});
