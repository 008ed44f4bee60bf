// Which readings of the profile the mock server takes (docs/profile.md §2, "How a verdict is
// decided"). 'recommended' (the default) is the reference mock: the profile's recommended reading
// wherever the catalog lists several. 'alternate' takes another allowed reading wherever the
// catalog lists one or the documents are silent: literal readings of the seeds' tables, extension
// members, id echo, lenient input handling, silence where nothing is owed. Every server suite must
// pass both; each accepted reading of the catalog is taken by one of them.
export const MOCK_READINGS = ['recommended', 'alternate'] as const;
export type MockReadings = (typeof MOCK_READINGS)[number];

export function isMockReadings(value: unknown): value is MockReadings {
  return typeof value === 'string' && (MOCK_READINGS as readonly string[]).includes(value);
}
