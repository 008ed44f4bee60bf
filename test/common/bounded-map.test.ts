import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/common/bounded-map.js';

describe('BoundedMap', () => {
  it('keeps at most its limit: a new key when full forgets the oldest', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('c', 3);
    expect([...map]).toEqual([['b', 2], ['c', 3]]);
  });

  it('setting a key it has forgets nothing', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3);
    expect([...map]).toEqual([['a', 3], ['b', 2]]);
  });
});
