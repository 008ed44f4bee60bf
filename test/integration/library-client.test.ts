// runClientConformance: the client suites' library entry, with the client command as a string or an
// array, a caller's registry, and each unusable option named.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerInitialize, CaseRegistry, ConformanceOptionsError, defineCase, isInitializeRequest, runClientConformance } from '../../src/index.js';
import { shellQuote } from '../../src/harness/index.js';
import { isRecord } from '../../src/wire/index.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'clients', 'sdk-http-client.mjs');

function registry(): CaseRegistry {
  const r = new CaseRegistry(undefined, { role: 'client' });
  r.register(
    defineCase({
      id: 'library/initialized',
      suite: 'library',
      title: 'notifications/initialized follows the initialize result',
      requirements: ['CORE-LIFE-4'],
      scenario: { name: 'initialize' },
      async run(ctx) {
        const init = await ctx.next(isInitializeRequest);
        await answerInitialize(ctx.connection, init.message);
        const next = await ctx.next(undefined, { timeoutMs: ctx.scaled(5000) });
        ctx.check('CORE-LIFE-4', isRecord(next.message) && next.message.method === 'notifications/initialized', { message: 'notifications/initialized came next' });
      },
    }),
  );
  return r;
}

describe('runClientConformance', () => {
  it('runs a registry against a client given as a command line or an array', async () => {
    for (const command of [[process.execPath, FIXTURE], [process.execPath, FIXTURE].map(shellQuote).join(' ')]) {
      const result = await runClientConformance({ command, transport: 'http', registry: registry(), timeoutScale: 2 });
      expect(result.exitCode).toBe(0);
      expect(result.target).toMatchObject({ role: 'client', transport: 'http' });
      expect(result.cases.map((c) => c.verdict)).toEqual(['PASS']);
    }
  });

  it('names each unusable option', async () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{}, /command.*exactly one/],
      [{ command: 'node a.js', target: {} }, /command.*exactly one/],
      [{ command: "node 'unterminated" }, /command/],
      [{ command: [] }, /command.*empty/],
      [{ command: 'node a.js', transport: 'stdio' }, /transport.*wt or http/],
      [{ command: 'node a.js', transport: 'http', http: 3 }, /http.*needs transport wt/],
      [{ command: 'node a.js', colour: true }, /colour/],
    ];
    for (const [options, message] of bad) {
      const run = runClientConformance(options as never);
      await expect(run).rejects.toBeInstanceOf(ConformanceOptionsError);
      await expect(run).rejects.toThrow(message);
    }
  });
});
