// Filled in by the suite's author (see suites/server/index.ts).
import type { ConformanceCase } from '../../src/harness/index.js';

export const cases: readonly ConformanceCase[] = [];
