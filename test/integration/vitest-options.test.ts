// defineConformanceTests checks its options before it registers anything: an unusable one throws
// at collection, naming the option, so a test file with a typo fails at once instead of running.
import { describe, expect, it } from 'vitest';
import { ConformanceOptionsError, InvalidFilterError, NoCasesSelectedError } from '../../src/index.js';
import { defineConformanceTests } from '../../src/vitest.js';

const target = { url: 'http://127.0.0.1:1/mcp' };

describe('defineConformanceTests: unusable options throw before any test is registered', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['no target', {}, 'target', /name the server under test/],
    ['an unknown option', { target, suite: 'mcp-core' }, 'suite', /is not an option of defineConformanceTests/],
    ['a limit that is no duration', { target, timeoutMs: -5 }, 'timeoutMs', /positive number of milliseconds/],
    ['a malformed shard', { target, shard: '0/3' }, 'shard', /not of the form i\/n/],
    ['an empty case glob', { target, cases: ['  '] }, 'cases', /non-empty string/],
  ];
  it.each(cases)('%s', (_what, options, option, message) => {
    let thrown: unknown;
    try {
      defineConformanceTests(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConformanceOptionsError);
    expect((thrown as ConformanceOptionsError).option).toBe(option);
    expect((thrown as Error).message).toMatch(message);
  });

  it('filters are judged against the shipped suites at once: an unknown suite, or nothing selected', () => {
    expect(() => defineConformanceTests({ target, suites: ['no-such-suite'] })).toThrow(InvalidFilterError);
    expect(() => defineConformanceTests({ target, cases: ['no-such/*'] })).toThrow(NoCasesSelectedError);
  });
});
