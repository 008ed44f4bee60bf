// Every client case against clients that misbehave in ways the fault catalog does not cover
// (test/fixtures/clients/misbehaving.ts: frames the harness cannot read, a session closed early or
// late, a client that leaves without a session or stays silent): whatever the client does, each
// case ends with a verdict about the client (a FAIL, a failed precondition, an INFO...), never a
// harness ERROR, and within its time limit (never a TIMEOUT). Shared by the misbehaving-*.test.ts
// shards; the clients run in this process (the process-only ones are test/cli/client-exit-*).
import { expect, it } from 'vitest';
import { clientCases } from '../../../suites/client/index.js';
import { MISBEHAVIOURS, misbehavingInProcess, type Misbehaviour } from '../../fixtures/clients/misbehaving.js';
import { mockClientInProcess, type ClientSuiteTransport } from './support.js';
import { clientTarget, CaseRegistry, runConformance } from '../../../src/harness/index.js';

/**
 * Every case at once: the misbehaving clients mostly make cases wait for their deadlines (a silent
 * session, 15 s for an initialize), which costs no CPU, so the run lasts about its longest case.
 */
const WORKERS = clientCases().length;

export function misbehavingClientRun(mode: Misbehaviour, transport: ClientSuiteTransport): void {
  it(`every client case ends with a verdict about a client that ${MISBEHAVIOURS[mode]} (${mode}, ${transport})`, async () => {
    const registry = new CaseRegistry(undefined, { role: 'client' });
    registry.registerAll(clientCases());
    const target = clientTarget({ inProcess: misbehavingInProcess(mode, mockClientInProcess()), description: `misbehaving client (${mode})`, transport });
    const result = await runConformance({ registry, target, workers: WORKERS, timeoutScale: 1 });
    const broken = result.cases.filter((c) => c.verdict === 'ERROR' || c.verdict === 'TIMEOUT').map((c) => ({ id: c.id, verdict: c.verdict, reason: c.reason }));
    expect(broken).toEqual([]);
    for (const c of result.cases) {
      if (c.verdict !== 'NOT_APPLICABLE') expect(c.checks.length, `${c.id} recorded checks`).toBeGreaterThan(0);
    }
  }, 240_000);
}
