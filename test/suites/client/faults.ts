// The fault self-test of the client suites, shared by the faults-<n>.test.ts shards: every fault of
// the mock client's catalog, switched on alone, must make a case that declares its requirement
// FAIL (MUST) or WARN (SHOULD) with a check of that requirement. The catalog is read at run time,
// so a fault added later is covered by a shard without touching these files. Every run's verdicts
// are pinned in test/verdicts/client/faults-<n>.json (the correct client's: correct-*.json).
import { describe, it } from 'vitest';
import { clientCases } from '../../../suites/client/index.js';
import { mockClientFaultCatalog } from '../../../src/peer/client/index.js';
import { catchFault, shard, verdictChanges } from './support.js';

/**
 * Shards the catalog is split into (one test file each, each well under 90 s). A shard's faults run
 * at once (vitest's maxConcurrency, 5): a run with a fault mostly waits for what the fault withholds.
 */
export const FAULT_SHARDS = 10;

/** Faults no case can catch from outside, with the reason (none so far; keep the list exact). */
export const NOT_CATCHABLE: Readonly<Record<string, string>> = {};

export function describeFaultShard(index: number): void {
  const faults = shard(mockClientFaultCatalog(), index, FAULT_SHARDS);
  describe(`client faults, shard ${index} of ${FAULT_SHARDS}`, () => {
    it.concurrent.for(faults.map((fault) => [fault.name, fault] as const))('%s is caught by a case declaring its requirement', { timeout: 180_000 }, async ([, fault], { expect }) => {
      const changes: string[] = [];
      const outcome = await catchFault(clientCases(), fault, (table, cases) => changes.push(...verdictChanges(`faults-${index}`, table, cases)));
      expect(changes, `${fault.name}: verdicts differ from test/verdicts/client/faults-${index}.json`).toEqual([]);
      if (Object.hasOwn(NOT_CATCHABLE, fault.name)) {
        expect(outcome.flagged, `${fault.name} is listed as not catchable (${NOT_CATCHABLE[fault.name]}) but was caught: take it off the list`).toEqual([]);
        return;
      }
      expect(
        outcome.flagged,
        `${fault.name} (${fault.requirement}) was not caught; verdicts of the cases declaring ${fault.requirement}: ${JSON.stringify(outcome.tried)}`,
      ).not.toEqual([]);
    });
  });
}
