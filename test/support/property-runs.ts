// How many inputs a long property test generates. `npm test` (and CI) tries a quarter of each
// property's full count, a different sample every run (fast-check picks a new seed each time);
// `npm run test:full` (FULL=1) tries the full count, as a bench of the properties. A property is
// never weakened, only how much of its input space one run samples.

/** Whether this run tries every property's full count (FULL=1). */
export const FULL_PROPERTY_RUNS = process.env['FULL'] === '1';

/** `full` generated inputs with FULL=1, a quarter of them (at least 25) otherwise. */
export function propertyRuns(full: number): number {
  return FULL_PROPERTY_RUNS ? full : Math.min(full, Math.max(25, Math.ceil(full / 4)));
}
