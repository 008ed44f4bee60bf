import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InsufficientSampleError } from '../../src/protocol/errors.js';
import { assessSessionIds } from '../../src/protocol/session-ids.js';

const sample = (make: (index: number) => string, count = 64): string[] => Array.from({ length: count }, (_, i) => make(i));

describe('assessSessionIds (FLOW-SEC-2, FLOW-SEC-9, C-21)', () => {
  it('passes 128-bit random hex ids behind a shared prefix', () => {
    const result = assessSessionIds(sample(() => `session_${randomBytes(16).toString('hex')}`));
    expect(result.commonPrefix.startsWith('session_')).toBe(true);
    expect(result.alphabet).toBe('hex');
    expect(result.unpredictable).toBe(true);
    expect(result.findings).toEqual([]);
  });

  it('passes random UUID v4 ids as unpredictable with the recommended 120 bits', () => {
    const result = assessSessionIds(sample(() => randomUUID()));
    expect(result.alphabet).toBe('hex');
    expect(result.entropyBits).toBeGreaterThanOrEqual(120);
    expect(result.entropyBits).toBeLessThan(128);
    expect(result.unpredictable).toBe(true);
    expect(result.recommendedEntropy).toBe(true);
  });

  it('passes 64 random bits as unpredictable, short of the recommended 120', () => {
    const result = assessSessionIds(sample(() => `sess-${randomBytes(8).toString('hex')}`));
    expect(result.entropyBits).toBe(64);
    expect(result.unpredictable).toBe(true);
    expect(result.recommendedEntropy).toBe(false);
  });

  it('passes base64url ids of 16 random bytes', () => {
    const result = assessSessionIds(sample(() => randomBytes(16).toString('base64url')));
    expect(result.unpredictable).toBe(true);
    expect(result.recommendedEntropy).toBe(true);
  });

  it('leaves a counting part (a timestamp prefix) out of the estimate: enough random bits beside it pass', () => {
    const stamped = assessSessionIds(sample((i) => `s-${1704067200000 + i * 7}-${randomBytes(16).toString('hex')}`));
    expect(stamped.counting).toBe(true);
    expect(stamped.entropyBits).toBe(128);
    expect(stamped.unpredictable).toBe(true);
    const thin = assessSessionIds(sample((i) => `s-${1704067200000 + i * 7}-${randomBytes(2).toString('hex')}`));
    expect(thin.counting).toBe(true);
    expect(thin.unpredictable).toBe(false);
  });

  it('fails counters, short random parts and repeats', () => {
    const counter = assessSessionIds(sample((i) => `session_${1000 + i}`));
    expect(counter.counting).toBe(true);
    expect(counter.entropyBits).toBe(0);
    expect(counter.unpredictable).toBe(false);
    const short = assessSessionIds(sample(() => `session_${randomBytes(4).toString('hex')}`));
    expect(short.entropyBits).toBeLessThan(64);
    expect(short.unpredictable).toBe(false);
    const repeated = sample(() => randomBytes(16).toString('hex'));
    repeated[10] = repeated[3] as string;
    const result = assessSessionIds(repeated);
    expect(result.duplicates).toEqual([repeated[3]]);
    expect(result.unpredictable).toBe(false);
    expect(result.findings[0]).toContain('more than once');
  });

  it('refuses samples too small to measure', () => {
    expect(() => assessSessionIds(['a', 'b'])).toThrow(InsufficientSampleError);
  });
});
