// Self-test: the mock server served in this process on piped stdio (what `npm start` runs over
// stdio, pipedMockServer) gets, case by case, the verdicts the mock-server process per case gets
// (the pinned tables of correct-stdio-*, which run the process), and no FAIL, WARN, TIMEOUT or
// ERROR: serving it in-process changes no verdict. (The alternate readings: correct-alt-stdio, in
// process against tables pinned with a process per case.)
import { describe, expect, it } from 'vitest';
import { CaseRegistry, runConformance, stdioTarget } from '../../../src/harness/index.js';
import { pipedMockServer } from '../../../src/peer/server/index.js';
import { serverCases } from '../../../suites/server/index.js';
import { pinnedTables, tableChanges, tableOf } from '../../support/verdict-tables.js';
import { stdioMockCommand } from '../support.js';
import { listed, problemLines, SELF_TEST_SEEDS, SELF_TEST_TIMEOUT_MS } from './support.js';

describe('the mock server in this process over piped stdio', () => {
  it(
    'gets the verdicts of the process per case on every server case',
    async () => {
      const registry = new CaseRegistry();
      registry.registerAll(serverCases());
      const seed = SELF_TEST_SEEDS[0]!;
      const target = stdioTarget(stdioMockCommand(), { launch: pipedMockServer() });
      // Deadlines doubled for a loaded machine, and the default workers, as the other in-process runs.
      const result = await runConformance({ registry, target, timeoutScale: 2, seed });
      const problems = problemLines(result.cases);
      expect(problems, listed('case(s) failed the mock served in this process', problems)).toEqual([]);
      // The six shards' tables of the first seed, joined: every server case's verdict over a process per case.
      const shards = [1, 2, 3, 4, 5, 6].map((shard) => pinnedTables(`self-test/correct-stdio-${shard}`)[`seed ${seed}`]);
      const pinned = Object.assign({}, ...shards) as Record<string, string>;
      expect(Object.keys(pinned).length).toBe(serverCases().length);
      const changes = tableChanges('in process', pinned, tableOf(result.cases));
      expect(changes, listed('verdict(s) differ from test/verdicts/self-test/correct-stdio-*.json', changes)).toEqual([]);
    },
    SELF_TEST_TIMEOUT_MS,
  );
});
