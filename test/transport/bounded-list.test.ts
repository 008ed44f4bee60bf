import { describe, expect, it } from 'vitest';
import { BoundedList } from '../../src/transport/bounded-list.js';

describe('BoundedList', () => {
  it('keeps everything while it fits', () => {
    const list = new BoundedList<number>(2, 3);
    for (const n of [1, 2, 3, 4]) list.push(n);
    expect(list.items()).toEqual([1, 2, 3, 4]);
    expect(list.omitted).toBe(0);
  });

  it('keeps the first and the latest items in order and counts those in between', () => {
    const list = new BoundedList<number>(2, 3);
    for (let n = 1; n <= 100; n++) list.push(n);
    expect(list.items()).toEqual([1, 2, 98, 99, 100]);
    expect(list.omitted).toBe(95);
    expect(list.total).toBe(100);
  });

  it('with no room for the latest, keeps only the first', () => {
    const list = new BoundedList<string>(1, 0);
    for (const word of ['a', 'b', 'c']) list.push(word);
    expect(list.items()).toEqual(['a']);
    expect(list.omitted).toBe(2);
  });
});
