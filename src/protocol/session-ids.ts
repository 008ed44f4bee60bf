// How the project judges "session IDs MUST be unpredictable" from outside (profile C-21,
// FLOW-SEC-2 and FLOW-SEC-9): distinct, and enough estimated entropy in what varies once the
// numeric parts that count up (sequence numbers, timestamps) are left out.
import { InsufficientSampleError } from './errors.js';

/** FLOW-SEC-2 fails below this estimate: below 64 bits ids are guessable (OWASP's session id minimum). */
export const REQUIRED_ENTROPY_BITS = 64;
/** FLOW-SEC-9 warns below this estimate; a random UUID v4 (122 random bits) meets it. */
export const RECOMMENDED_ENTROPY_BITS = 120;

/** Usual id alphabets, smallest first; the first that covers every character seen is assumed. */
const ALPHABETS: readonly { name: string; size: number; pattern: RegExp }[] = [
  { name: 'decimal', size: 10, pattern: /^[0-9]*$/ },
  { name: 'hex', size: 16, pattern: /^[0-9a-f]*$/ },
  { name: 'HEX', size: 16, pattern: /^[0-9A-F]*$/ },
  { name: 'base36', size: 36, pattern: /^[0-9a-z]*$/ },
  { name: 'base36', size: 36, pattern: /^[0-9A-Z]*$/ },
  { name: 'base62', size: 62, pattern: /^[0-9A-Za-z]*$/ },
  { name: 'base64url', size: 64, pattern: /^[0-9A-Za-z_-]*$/ },
  { name: 'base64', size: 64, pattern: /^[0-9A-Za-z+/=]*$/ },
];

export interface SessionIdAssessment {
  count: number;
  duplicates: string[];
  /** Prefix and suffix shared by every id (removed before measuring). */
  commonPrefix: string;
  commonSuffix: string;
  alphabet: string;
  alphabetSize: number;
  /** Positions of the varying part whose character differs between ids. */
  varyingPositions: number;
  entropyBits: number;
  /** A numeric part (a decimal token at the same place in every id) strictly increases in issue order; it is left out of the estimate. */
  counting: boolean;
  /** FLOW-SEC-2: distinct, and >= REQUIRED_ENTROPY_BITS without the counting parts. */
  unpredictable: boolean;
  /** FLOW-SEC-9: >= RECOMMENDED_ENTROPY_BITS. */
  recommendedEntropy: boolean;
  /** One sentence per problem found, for the report. */
  findings: string[];
}

function commonPrefixOf(values: readonly string[]): string {
  let prefix = values[0] ?? '';
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

function commonSuffixOf(values: readonly string[]): string {
  const reversed = values.map((v) => [...v].reverse().join(''));
  return [...commonPrefixOf(reversed)].reverse().join('');
}

/** The indexes of the decimal tokens (split on separators) that strictly increase across `ids`, at the same index in every id. */
function countingTokens(ids: readonly string[]): number[] {
  const tokenized = ids.map((id) => id.split(/[^0-9A-Za-z]+/).filter((t) => t.length > 0));
  const width = Math.min(...tokenized.map((t) => t.length));
  const counting: number[] = [];
  for (let index = 0; index < width; index++) {
    const tokens = tokenized.map((t) => t[index] as string);
    if (!tokens.every((t) => /^[0-9]+$/.test(t))) continue;
    const values = tokens.map((t) => BigInt(t));
    if (values.every((v, i) => i === 0 || v > (values[i - 1] as bigint))) counting.push(index);
  }
  return counting;
}

/** The id with its alphanumeric tokens at `indexes` removed (separators kept, so positions stay aligned). */
function withoutTokens(id: string, indexes: readonly number[]): string {
  if (indexes.length === 0) return id;
  let token = -1;
  return id.replace(/[0-9A-Za-z]+/g, (match) => (indexes.includes(++token) ? '' : match));
}

/**
 * Judges a sample of session ids in the order the server issued them. Needs at least 16 ids:
 * with fewer, random positions too often repeat by chance and the estimate runs low.
 */
export function assessSessionIds(ids: readonly string[]): SessionIdAssessment {
  if (ids.length < 16) throw new InsufficientSampleError(`need at least 16 session ids to assess them, got ${ids.length}`);
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const id of ids) (seen.has(id) ? duplicates : seen).add(id);

  // Counting parts say nothing a guesser does not know: the estimate is of what remains.
  const counters = countingTokens(ids);
  const measured = ids.map((id) => withoutTokens(id, counters));
  const commonPrefix = commonPrefixOf(measured);
  const rest = measured.map((id) => id.slice(commonPrefix.length));
  const commonSuffix = commonSuffixOf(rest);
  const varying = rest.map((v) => [...v.slice(0, v.length - commonSuffix.length)]);

  const width = Math.min(...varying.map((v) => v.length));
  const positions: number[] = [];
  for (let position = 0; position < width; position++) {
    if (new Set(varying.map((v) => v[position])).size > 1) positions.push(position);
  }
  // The alphabet is judged on the varying positions only: constant separators (a UUID's dashes)
  // would otherwise make hex look like base64.
  const characters = varying.map((v) => positions.map((p) => v[p]).join('')).join('');
  const alphabet = ALPHABETS.find((a) => a.pattern.test(characters)) ?? {
    name: 'other',
    size: Math.max(2, new Set(characters).size),
    pattern: /./,
  };
  const varyingPositions = positions.length;
  const entropyBits = Math.floor(varyingPositions * Math.log2(alphabet.size));
  const counting = counters.length > 0;

  const findings: string[] = [];
  if (duplicates.size > 0) findings.push(`${duplicates.size} session id(s) were issued more than once`);
  if (entropyBits < REQUIRED_ENTROPY_BITS) {
    findings.push(`estimated entropy ${entropyBits} bits (${varyingPositions} varying ${alphabet.name} characters) is below ${REQUIRED_ENTROPY_BITS}`);
  } else if (entropyBits < RECOMMENDED_ENTROPY_BITS) {
    findings.push(`estimated entropy ${entropyBits} bits is below the recommended ${RECOMMENDED_ENTROPY_BITS}`);
  }
  if (counting) findings.push('a numeric part of the ids counts up from one session to the next (left out of the estimate)');

  return {
    count: ids.length,
    duplicates: [...duplicates],
    commonPrefix,
    commonSuffix,
    alphabet: alphabet.name,
    alphabetSize: alphabet.size,
    varyingPositions,
    entropyBits,
    counting,
    unpredictable: duplicates.size === 0 && entropyBits >= REQUIRED_ENTROPY_BITS,
    recommendedEntropy: entropyBits >= RECOMMENDED_ENTROPY_BITS,
    findings,
  };
}
