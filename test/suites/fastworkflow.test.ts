// The fastworkflow suite against the mock server: the correct mock passes every case on HTTP (the
// only transport 004 has; elsewhere every case says why it does not apply), and every FastWorkflow
// fault in the catalog is caught by the cases that declare its requirement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cases } from '../../suites/server/fastworkflow/index.js';
import { CaseRegistry, httpTarget, runConformance } from '../../src/harness/index.js';
import { createMockServer, fastWorkflowExtension, mockServerFaultCatalog, type FastWorkflowOptions } from '../../src/peer/server/index.js';
import { listenHttp } from '../../src/transport/http/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { casesFlagging, casesFor, type MockRunOptions, runOnMock, notCaughtInSharedLoop } from './support.js';

/** Faults of FW requirements that no case can observe from outside, with the reason (kept exact). */
const UNCATCHABLE: Record<string, string> = {};

const fwFaults = mockServerFaultCatalog().filter((fault) => fault.requirement.startsWith('FW-'));

describe('fastworkflow suite on the correct mock', () => {
  it('passes every case over http', async () => {
    const run = await runOnMock(cases, { transport: 'http' });
    expect(run.problems).toEqual([]);
    expect(Object.entries(run.verdicts).filter(([, verdict]) => verdict !== 'PASS' && verdict !== 'INFO')).toEqual([]);
  }, 120_000);

  const elsewhere: [string, MockRunOptions][] = [
    ['wt', { transport: 'wt' }],
    ['wt with json only', { transport: 'wt', server: { encodings: ['json'] } }],
    ['stdio', { transport: 'stdio' }],
  ];
  for (const [name, options] of elsewhere) {
    it(`does not apply on ${name}, and says why`, async () => {
      const run = await runOnMock(cases, options);
      expect(run.problems).toEqual([]);
      for (const result of run.result.cases) {
        expect(result.verdict, result.id).toBe('NOT_APPLICABLE');
        expect(result.reason, result.id).toMatch(/\S/);
      }
    }, 120_000);
  }
});

/** The suite against a FastWorkflow-only server built with these profile options (no faults). */
async function runOnProfile(options: Omit<FastWorkflowOptions, 'storeDir'>) {
  const storeDir = mkdtempSync(join(tmpdir(), 'fw-suite-'));
  const server = createMockServer({ core: { prompts: false, resources: false }, extensions: [fastWorkflowExtension({ storeDir, ...options })] });
  const listener = await listenHttp({ onSession: (connection) => void server.serve(connection) });
  try {
    const registry = new CaseRegistry();
    registry.registerAll(cases);
    return await runConformance({ registry, target: httpTarget(listener.url), workers: 4 });
  } finally {
    await listener.close();
    rmSync(storeDir, { recursive: true, force: true });
  }
}

describe('fastworkflow suite accepts every reading the profile accepts', () => {
  // Each switch alone (the alternate preset, every switch at once, is the self-test's http-alt run).
  const readings: [string, Omit<FastWorkflowOptions, 'storeDir'>][] = [
    ['failures as JSON-RPC errors whose code is the status', { failureStyle: 'code' }],
    ['failures as isError results', { failureStyle: 'isError' }],
    ["failures as fastapi_mcp's isError text", { failureStyle: 'text' }],
    ['traces as notifications/message', { traceDelivery: 'notifications/message' }],
    ['traces always attached', { traceDelivery: 'attached' }],
    ['traces as NDJSON lines in the tool result, traces: null after them', { traceDelivery: 'ndjson', streamedTraces: 'null' }],
    ['results as JSON text only', { resultEncoding: 'text' }],
    ["FastWorkflow's canonical CommandOutput", { dataContracts: 'canonical' }],
    ['members 004 does not name', { extraMembers: true }],
    ['only stored conversations listed', { listing: 'stored' }],
    ['the alternate preset', { readings: 'alternate' }],
  ];
  for (const [name, options] of readings) {
    it(name, async () => {
      const result = await runOnProfile(options);
      const problems = result.cases.filter((c) => !['PASS', 'INFO'].includes(c.verdict)).map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason }));
      expect(problems).toEqual([]);
    }, 120_000);
  }
});

describe('fastworkflow suite coverage', () => {
  it('declares every testable server MUST and SHOULD of FW-* in some case', () => {
    const declared = new Set(cases.flatMap((c) => c.requirements));
    const wanted = requirements()
      .list({ system: 'FW' })
      .filter((r) => r.testable === true && r.role !== 'client' && (r.level === 'MUST' || r.level === 'SHOULD'))
      .map((r) => r.id);
    expect(wanted.filter((id) => !declared.has(id))).toEqual([]);
  });

  it('uses stable lower-case ids in the fastworkflow suite, all on Streamable HTTP', () => {
    for (const c of cases) {
      expect(c.id).toMatch(/^fastworkflow\/[a-z0-9-]+$/);
      expect(c.suite).toBe('fastworkflow');
      expect(c.transports).toEqual(['http']);
    }
  });
});

describe('fastworkflow suite catches every FastWorkflow fault', () => {
  it('lists the uncatchable faults exactly', () => {
    for (const name of Object.keys(UNCATCHABLE)) expect(fwFaults.map((f) => f.name)).toContain(name);
  });

  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop): the others are proven there.
  for (const fault of notCaughtInSharedLoop(fwFaults.filter((f) => !(f.name in UNCATCHABLE)), cases)) {
    it.concurrent(`${fault.name} (${fault.requirement})`, async () => {
      const declaring = casesFor(cases, fault.requirement);
      expect(declaring.length, `no case declares ${fault.requirement}`).toBeGreaterThan(0);
      const run = await runOnMock(declaring, { transport: fault.layer === 'webtransport' ? 'wt' : 'http', faults: [fault.name] });
      const citing = casesFlagging(run, fault.requirement);
      expect(citing, `no FAIL/WARN of ${fault.requirement} with ${fault.name} on (verdicts: ${JSON.stringify(run.verdicts)})`).not.toEqual([]);
    }, 90_000);
  }
});
