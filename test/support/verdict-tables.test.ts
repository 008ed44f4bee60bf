// The verdict tables' comparison: a moved, new or missing verdict is a change; a pinned race
// ("PASS|INFO") accepts either verdict.
import { describe, expect, it } from 'vitest';
import { tableChanges, tableOf } from './verdict-tables.js';

describe('verdict tables', () => {
  const pinned = { 'a/one': 'PASS', 'a/two': 'PASS|INFO', 'a/three': 'FAIL' };

  it('agree when every verdict is one of the pinned ones', () => {
    expect(tableChanges('t', pinned, { 'a/one': 'PASS', 'a/two': 'INFO', 'a/three': 'FAIL' })).toEqual([]);
  });

  it('name every moved, new and missing verdict', () => {
    expect(tableChanges('t', pinned, { 'a/one': 'INFO', 'a/two': 'WARN', 'a/four': 'PASS' })).toEqual([
      't: a/one was PASS, now INFO',
      't: a/two was PASS|INFO, now WARN',
      't: a/four is new (PASS)',
      't: a/three (FAIL) did not run',
    ]);
  });

  it('ask for pinning when there is no table', () => {
    expect(tableChanges('t', undefined, { 'a/one': 'PASS' })).toEqual(['t: no pinned table (run with UPDATE_VERDICTS=1 to pin 1 verdicts)']);
  });

  it('leave cases left out by filters or an interruption (SKIPPED) unpinned', () => {
    expect(tableOf([{ id: 'a', verdict: 'PASS' }, { id: 'b', verdict: 'SKIPPED' }])).toEqual({ a: 'PASS' });
  });
});
