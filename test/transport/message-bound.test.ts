import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundValue, checkMessageLimit, jsonLengthUpTo, type OmittedValue } from '../../src/transport/message-bound.js';
import { propertyRuns } from '../support/property-runs.js';

/** The JSON text message-bound measures: bigints as their digits, bytes as their count. */
function written(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    typeof member === 'bigint' ? member.toString() : member instanceof Uint8Array ? `<${member.byteLength} bytes>` : member,
  );
}

describe('jsonLengthUpTo', () => {
  const values = fc.oneof(
    fc.jsonValue(),
    fc.anything({ withBigInt: true, withTypedArray: true, withDate: true, withNullPrototype: true, withSparseArray: true, withBoxedValues: false, withMap: true, withSet: true }),
  );

  it('counts the JSON text exactly while it is within the cap, and says over once it is over', () => {
    fc.assert(
      fc.property(values, fc.nat({ max: 400 }), (value, cap) => {
        const text = written(value);
        fc.pre(text !== undefined);
        const length = jsonLengthUpTo(value, cap);
        if (text.length <= cap) expect(length).toBe(text.length);
        else expect(length).toBeGreaterThan(cap);
        expect(jsonLengthUpTo(value, Number.POSITIVE_INFINITY)).toBe(text.length);
      }),
      { numRuns: propertyRuns(1000) },
    );
  });

  it('knows a long string is over without writing it', () => {
    expect(jsonLengthUpTo({ result: { large: 'x'.repeat(1_000_000) } }, 100)).toBeGreaterThan(100);
  });
});

describe('boundValue', () => {
  it('gives back a value within the limit as it is', () => {
    const value = { jsonrpc: '2.0', id: 1, result: { tools: [] } };
    expect(boundValue(value, 1000)).toBe(value);
    expect(boundValue(7, 0)).toBe(7);
    expect(boundValue(undefined, 0)).toBeUndefined();
  });

  it('replaces only the members over the limit, with their size, SHA-256 and head', () => {
    const large = 'x'.repeat(10_000);
    const bounded = boundValue({ pointer: '/result', message: { id: 3, result: { large } } }, 4096) as { pointer: string; message: { id: number; result: { large: OmittedValue } } };
    expect(bounded.pointer).toBe('/result');
    expect(bounded.message.id).toBe(3);
    const omitted = bounded.message.result.large;
    expect(omitted.jsonLength).toBe(10_002);
    expect(omitted.sha256).toBe(createHash('sha256').update(JSON.stringify(large)).digest('hex'));
    expect(omitted.head).toBe(JSON.stringify(large).slice(0, 1024));
    expect(omitted.omitted).toMatch(/^a value of 10002 characters \(JSON\), over the 4096-byte limit/);
    expect(JSON.stringify(bounded).length).toBeLessThan(4096);
  });

  it('replaces the whole value when its members are each within the limit but not together', () => {
    const many = Array.from({ length: 100 }, (_, i) => 'y'.repeat(50) + i);
    const bounded = boundValue(many, 1000) as OmittedValue;
    expect(bounded.jsonLength).toBe(JSON.stringify(many).length);
  });

  it('refuses a limit that is no byte count', () => {
    expect(() => checkMessageLimit(-1)).toThrow(RangeError);
    expect(() => checkMessageLimit(1.5)).toThrow(RangeError);
    expect(checkMessageLimit(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });
});
