// The correct mock client passes every client case that applies on a transport: no FAIL, WARN,
// TIMEOUT or ERROR; a case that does not apply must have an applicability gate that says why
// (a transport the case is not written for, or something the mock client does not declare).
import { expect, it } from 'vitest';
import { CLIENT_CASE_MODULES } from '../../../suites/client/index.js';
import { runOnClient, verdictChanges, type ClientRunOptions, type ClientSuiteTransport } from './support.js';

/**
 * `viaProcess`: the driver runs as the CLI's `mock-client --driver` process per case (as users run
 * it). `verdicts`: the verdict group (test/verdicts/client/<group>.json) the run is compared with.
 */
export function correctClientRun(
  transport: ClientSuiteTransport,
  modules: readonly string[],
  options: { viaProcess?: boolean; verdicts: string; client?: ClientRunOptions['client'] },
): void {
  const cases = modules.flatMap((name) => {
    const found = CLIENT_CASE_MODULES[name];
    if (!found) throw new Error(`no client case module ${name}`);
    return [...found];
  });
  const declared = options.client?.capabilities ? ` declaring ${Object.keys(options.client.capabilities).join(', ')}` : '';
  it(`the correct mock client${declared} passes ${modules.join(', ')} over ${transport}${options.viaProcess ? ' (a driver process per case)' : ''}`, async () => {
    const run = await runOnClient(cases, { transport, ...(options.viaProcess ? { viaProcess: true } : {}), ...(options.client ? { client: options.client } : {}) });
    expect(run.problems).toEqual([]);
    expect(verdictChanges(options.verdicts, transport, run.result.cases)).toEqual([]);
    for (const c of cases) {
      const result = run.get(c.id);
      const forTransport = c.transports === undefined || c.transports.includes(transport);
      if (forTransport && c.applies === undefined) expect(result.verdict, `${c.id} applies on ${transport}`).not.toBe('NOT_APPLICABLE');
      if (result.verdict === 'NOT_APPLICABLE') expect(result.reason, `${c.id} says why it does not apply`).toBeTruthy();
      if (result.verdict !== 'NOT_APPLICABLE') expect(result.checks.length, `${c.id} recorded checks`).toBeGreaterThan(0);
    }
  }, 240_000);
}
