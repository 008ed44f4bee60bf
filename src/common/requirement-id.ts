// The form of a requirement ID (docs/architecture.md §Requirement IDs): `<SYSTEM>-<AREA>-<n>`.
// Every layer that names requirements (the catalog, the vector files, reports) checks IDs by it.

/** `<SYSTEM>-<AREA>-<n>`, n counting from 1 without leading zeros. */
export const REQUIREMENT_ID_PATTERN = /^(CORE|FLOW|WT|FW)-([A-Z]+)-([1-9][0-9]*)$/;
/** Finds requirement IDs inside running text. */
export const REQUIREMENT_ID_IN_TEXT = /\b(?:CORE|FLOW|WT|FW)-[A-Z]+-[1-9][0-9]*\b/g;
