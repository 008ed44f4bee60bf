// Self-test: the mock server served in this process on piped stdio (what `npm start` runs over
// stdio, pipedMockServer) gets, case by case, the verdicts the mock-server process per case gets
// (the pinned tables of correct-stdio-* and correct-alt-stdio-*, both readings), and no FAIL, WARN,
// TIMEOUT or ERROR: serving it in-process changes no verdict.
import { describe, expect, it } from 'vitest';
import { CaseRegistry, runConformance, stdioTarget } from '../../../src/harness/index.js';
import { pipedMockServer } from '../../../src/peer/server/index.js';
import { serverCases } from '../../../suites/server/index.js';
import { pinnedTables, tableChanges, tableOf } from '../../support/verdict-tables.js';
import { stdioMockCommand } from '../support.js';
import { listed, problemLines, SELF_TEST_SEEDS, SELF_TEST_TIMEOUT_MS } from './support.js';

const READINGS = [
  { readings: 'recommended', tables: 'self-test/correct-stdio-' },
  { readings: 'alternate', tables: 'self-test/correct-alt-stdio-' },
] as const;

describe('the mock server in this process over piped stdio', () => {
  for (const { readings, tables } of READINGS) {
    it(
      `gets the verdicts of the process per case (${readings} readings)`,
      async () => {
        const registry = new CaseRegistry();
        registry.registerAll(serverCases());
        const seed = SELF_TEST_SEEDS[0]!;
        const target = stdioTarget(stdioMockCommand([], readings), { launch: pipedMockServer({ readings }) });
        // Deadlines doubled for a loaded machine, as the other in-process runs (only waits get longer).
        const result = await runConformance({ registry, target, workers: 8, timeoutScale: 2, seed });
        const problems = problemLines(result.cases);
        expect(problems, listed('case(s) failed the mock served in this process', problems)).toEqual([]);
        // The six shards' tables of the first seed, joined: every server case's verdict over a process per case.
        const pinned = Object.assign({}, ...[1, 2, 3, 4, 5, 6].map((shard) => pinnedTables(`${tables}${shard}`)[`seed ${seed}`])) as Record<string, string>;
        expect(Object.keys(pinned).length).toBe(serverCases().length);
        const changes = tableChanges(`${readings} in process`, pinned, tableOf(result.cases));
        expect(changes, listed(`verdict(s) differ from test/verdicts/${tables}*.json`, changes)).toEqual([]);
      },
      SELF_TEST_TIMEOUT_MS,
    );
  }
});
