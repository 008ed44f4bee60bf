// The driver printed in the README and docs/client-scenarios.md (examples/client-driver.mjs, the
// official SDK over Streamable HTTP) is judged by the client suites: every MCP core case of the
// scenarios it implements (initialize, tools-call without an abort) passes, so the example users
// copy works. (It is not an MCP Flow client: the SDK answers interaction.prompt with -32601, which
// the interaction suite rightly fails, so that suite is left out, as the README tells core-only
// clients to do.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientTarget, runConformance } from '../../src/harness/index.js';
import { clientRegistry } from '../../suites/client/index.js';

const root = join(import.meta.dirname, '..', '..');
const DRIVER = join(root, 'examples', 'client-driver.mjs');

/** The code block of a markdown file that holds the driver (between ```js fences). */
function driverBlock(markdown: string): string {
  const block = /```js\n([\s\S]*?)```/.exec(markdown.slice(markdown.indexOf('StreamableHTTPClientTransport') - 200));
  return block?.[1] ?? '';
}

describe('the example client driver', () => {
  it('is the one the README and docs/client-scenarios.md print', () => {
    const source = readFileSync(DRIVER, 'utf8');
    expect(source.trimEnd().split('\n').length).toBeLessThanOrEqual(12);
    for (const doc of ['README.md', join('docs', 'client-scenarios.md')]) {
      expect(driverBlock(readFileSync(join(root, doc), 'utf8')).trim(), doc).toBe(source.trim());
    }
  });

  it('passes every client case of the scenarios it implements, over Streamable HTTP', async () => {
    const registry = clientRegistry();
    const implemented = registry
      .list()
      .filter((c) => (c.scenario?.name === 'initialize' || c.scenario?.name === 'tools-call') && c.scenario.context?.abortAfterMs === undefined)
      .map((c) => c.id);
    const result = await runConformance({
      registry,
      target: clientTarget({ command: [process.execPath, DRIVER], transport: 'http' }),
      filters: { cases: implemented, exclude: ['interaction/*'] },
      workers: 4,
      timeoutScale: 2,
    });
    const ran = result.cases.filter((c) => c.verdict !== 'SKIPPED' && c.verdict !== 'NOT_APPLICABLE');
    expect(ran.length).toBeGreaterThan(5);
    const bad = ran.filter((c) => !['PASS', 'INFO'].includes(c.verdict)).map((c) => `${c.id}: ${c.verdict} ${c.reason}`);
    expect(bad).toEqual([]);
  });
});
