// Suite bad-input against the mock server: the correct mock answers every generated garbage input
// as the profile says on every transport, and the faults whose requirement only bad-input checks
// (CORE-RPC-8 parse errors, CORE-RPC-9 invalid requests, CORE-RPC-17 garbage left unanswered, CORE-ERR-1 -32700 for input that parsed) are caught. The other faults of the core
// areas are run by test/suites/mcp-core.test.ts.
import { describe, expect, it } from 'vitest';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { cases as mcpCore } from '../../suites/server/core/mcp-core/index.js';
import { cases } from '../../suites/server/core/bad-input/index.js';
import { casesFor, runOnMock, type MockRunOptions, type SuiteTransport, notCaughtInSharedLoop } from './support.js';

const AREAS = /^CORE-(RPC|TOOLS|RES|PROMPTS|LOG|PROG|PAGE|ERR)-/;
const onlyHere = mockServerFaultCatalog().filter(
  (f) => AREAS.test(f.requirement) && cases.some((c) => c.requirements.includes(f.requirement)) && !mcpCore.some((c) => c.requirements.includes(f.requirement)),
);

/**
 * Where a fault shows: the WebTransport and HTTP transports answer undecodable input themselves
 * (the session's parse-error fault shows on stdio), and the HTTP transport refuses a bad jsonrpc
 * member before the session sees it (the session's fault shows on WebTransport).
 */
function faultRun(requirement: string): SuiteTransport {
  return requirement === 'CORE-RPC-8' || requirement === 'CORE-RPC-17' ? 'stdio' : 'wt';
}

describe('suite bad-input on the correct mock server', () => {
  const runs: Array<[string, MockRunOptions]> = [
    ['wt (default encodings)', { transport: 'wt', run: { timeoutScale: 2 } }],
    ['wt (json only)', { transport: 'wt', server: { encodings: ['json'] }, run: { timeoutScale: 2 } }],
    ['http', { transport: 'http', run: { timeoutScale: 2 } }],
    ['wt, alternate readings', { transport: 'wt', server: { readings: 'alternate' }, run: { timeoutScale: 2 } }],
    ['http, alternate readings', { transport: 'http', server: { readings: 'alternate' }, run: { timeoutScale: 2 } }],
  ];
  for (const [name, options] of runs) {
    it(name, async () => {
      const run = await runOnMock(cases, options);
      expect(run.problems).toEqual([]);
      // Each transport's own garbage case runs there; the others say why they do not apply.
      const kind = options.transport === 'wt' ? 'webtransport' : options.transport;
      for (const c of run.result.cases) {
        if (c.id.startsWith('bad-input/webtransport-') || c.id.startsWith('bad-input/http-') || c.id.startsWith('bad-input/stdio-')) {
          expect(c.verdict === 'NOT_APPLICABLE', c.id).toBe(!c.id.startsWith(`bad-input/${kind}-`));
        } else expect(c.verdict, c.id).not.toBe('NOT_APPLICABLE');
      }
    }, 300_000);
  }
});

describe('suite bad-input catches the faults only it checks', () => {
  it('the faults of CORE-RPC-8, -9, -17 and CORE-ERR-1 are the ones left to this suite', () => {
    expect(onlyHere.map((f) => f.requirement).sort()).toEqual(['CORE-ERR-1', 'CORE-RPC-17', 'CORE-RPC-8', 'CORE-RPC-9']);
  });
  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(onlyHere, cases)) {
    it(`${fault.name} (${fault.requirement})`, async () => {
      const transport = faultRun(fault.requirement);
      const run = await runOnMock(casesFor(cases, fault.requirement), {
        transport,
        faults: [fault.name],
        run: { timeoutScale: transport === 'stdio' ? 6 : 2 },
      });
      const citing = run.result.cases.filter((c) => c.checks.some((check) => check.requirement === fault.requirement && (check.verdict === 'FAIL' || check.verdict === 'WARN')));
      expect(citing.length, `no case failed or warned ${fault.requirement}: ${JSON.stringify(run.verdicts)}`).toBeGreaterThan(0);
    }, 300_000);
  }
});
