import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/harness/result.js';
import { ReportFormatError, ReportValueError } from '../../src/report/errors.js';
import { JSON_REPORT_FORMAT, JSON_REPORT_VERSION, parseJsonReport, renderJson } from '../../src/report/json.js';
import { makeCase, sampleRun } from './run-fixture.js';

describe('JSON report', () => {
  it('round-trips a run with every verdict, BigInt and bytes intact', () => {
    const run = sampleRun();
    const back = parseJsonReport(renderJson(run));
    expect(back).toEqual(run);
    const capabilities = back.target.capabilities as { experimental: { big: unknown; bytes: unknown } };
    expect(capabilities.experimental.big).toBe(2n ** 70n);
    expect(capabilities.experimental.bytes).toEqual(new Uint8Array([0, 1, 255]));
    const decoded = back.cases.find((result) => result.verdict === 'FAIL')!.transcript![3]!.decoded as { id: unknown };
    expect(decoded.id).toBe(7n ** 30n);
  });

  it('starts with the format/version header, then the data model’s key order', () => {
    const text = renderJson(sampleRun());
    const parsed = JSON.parse(text) as Record<string, unknown> & { cases: Record<string, unknown>[]; summary: Record<string, unknown> };
    expect(Object.keys(parsed)).toEqual(['format', 'version', 'tool', 'target', 'options', 'startedAt', 'durationMs', 'cases', 'summary', 'exitCode']);
    expect(parsed['format']).toBe(JSON_REPORT_FORMAT);
    expect(parsed['version']).toBe(JSON_REPORT_VERSION);
    expect(Object.keys(parsed.cases[1]!).slice(0, 6)).toEqual(['id', 'suite', 'title', 'requirements', 'level', 'verdict']);
    expect(Object.keys(parsed.summary)).toEqual(['PASS', 'FAIL', 'WARN', 'INFO', 'NOT_APPLICABLE', 'SKIPPED', 'TIMEOUT', 'ERROR', 'total']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('is the same text whatever order the keys were set in', () => {
    const run = sampleRun();
    const reversed = reverseKeys(run) as RunResult;
    expect(Object.keys(reversed)[0]).toBe('exitCode');
    expect(renderJson(reversed)).toBe(renderJson(run));
  });

  it('keeps objects that look like its tags, __proto__ keys, -0 and non-finite numbers', () => {
    const decoded = JSON.parse('{"__proto__":{"polluted":true},"tag":{"$bigint":"12"},"obj":{"$object":{}}}') as Record<string, unknown>;
    Object.assign(decoded, { nan: NaN, inf: -Infinity, negZero: -0 });
    const failing = makeCase('FAIL', 1);
    failing.transcript![1]!.decoded = decoded;
    const run = sampleRun({}, [{ ...failing, id: 'flow/tags' }]);
    const back = parseJsonReport(renderJson(run));
    const value = back.cases.at(-1)!.transcript![1]!.decoded as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value['tag']).toEqual({ $bigint: '12' });
    expect(value['obj']).toEqual({ $object: {} });
    expect(value['nan']).toBeNaN();
    expect(value['inf']).toBe(-Infinity);
    expect(Object.is(value['negZero'], -0)).toBe(true);
  });

  it('round-trips arbitrary decoded messages (property)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', '$bigint', '$bytes', '$number', '$object', 'constructor'));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.double(),
        fc.string(),
        fc.bigInt(),
        fc.uint8Array({ maxLength: 8 }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(value, (decoded) => {
        const failing = makeCase('FAIL', 1);
        failing.transcript![1]!.decoded = decoded;
        failing.checks[1]!.actual = decoded;
        const run = sampleRun({}, [{ ...failing, id: 'flow/generated' }]);
        const back = parseJsonReport(renderJson(run));
        expect(back.cases.at(-1)!.transcript![1]!.decoded).toEqual(decoded);
        expect(back.cases.at(-1)!.checks[1]!.actual).toEqual(decoded);
      }),
    );
  });

  it('names where a value contains itself', () => {
    const looped: Record<string, unknown> = { a: 1 };
    looped['self'] = looped;
    const run = sampleRun({ looped });
    expect(() => renderJson(run)).toThrow(ReportValueError);
    expect(() => renderJson(run)).toThrow('/options/looped/self');
  });

  it('refuses text that is not its report, saying why', () => {
    const good = JSON.parse(renderJson(sampleRun())) as Record<string, unknown>;
    const cases: [string, string][] = [
      ['{not json', 'not JSON'],
      ['[1]', 'not a JSON object'],
      [JSON.stringify({ ...good, format: 'other' }), 'format is "other"'],
      [JSON.stringify({ ...good, version: 2 }), 'version is 2'],
      [JSON.stringify({ ...good, cases: 'none' }), 'lacks cases'],
      [JSON.stringify({ ...good, options: { n: { $bigint: 'x' } } }), '/options/n'],
    ];
    for (const [text, message] of cases) {
      expect(() => parseJsonReport(text)).toThrow(ReportFormatError);
      expect(() => parseJsonReport(text)).toThrow(message);
    }
  });
});

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, member]) => [key, reverseKeys(member)]));
}
