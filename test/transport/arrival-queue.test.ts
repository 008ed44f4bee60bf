import { describe, expect, it } from 'vitest';
import { ArrivalQueue } from '../../src/transport/arrival-queue.js';
import { ConnectionClosedError, ConnectionTimeoutError } from '../../src/transport/errors.js';

describe('ArrivalQueue', () => {
  it('hands queued items to the first matching wait and keeps the rest in order', async () => {
    const queue = new ArrivalQueue<number>('number');
    queue.push(1);
    queue.push(2);
    queue.push(3);
    expect(await queue.next((n) => n % 2 === 0)).toBe(2);
    expect(queue.pending()).toEqual([1, 3]);
    expect(await queue.next()).toBe(1);
  });

  it('wakes a waiter when a matching item arrives later', async () => {
    const queue = new ArrivalQueue<string>('word');
    const waiting = queue.next((word) => word.startsWith('b'));
    queue.push('apple');
    queue.push('banana');
    expect(await waiting).toBe('banana');
    expect(queue.pending()).toEqual(['apple']);
  });

  it('rejects with a timeout error naming the deadline', async () => {
    const queue = new ArrivalQueue<number>('message');
    await expect(queue.next(undefined, { timeoutMs: 5 })).rejects.toBeInstanceOf(ConnectionTimeoutError);
  });

  it('rejects pending and later waits once closed, but still serves queued items', async () => {
    const queue = new ArrivalQueue<number>('message');
    queue.push(7);
    const waiting = queue.next((n) => n > 10);
    queue.close();
    await expect(waiting).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(await queue.next()).toBe(7);
    await expect(queue.next()).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('rejects with the abort reason when the signal aborts', async () => {
    const queue = new ArrivalQueue<number>('message');
    const controller = new AbortController();
    const waiting = queue.next(undefined, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    queue.push(1);
    expect(queue.pending()).toEqual([1]);
  });

  it('keeps at most maxItems unread, dropping the oldest and counting them', async () => {
    const dropped: number[] = [];
    const queue = new ArrivalQueue<number>('number', { maxItems: 3, onDrop: (item) => dropped.push(item) });
    for (let i = 1; i <= 1000; i++) queue.push(i);
    expect(queue.pending()).toEqual([998, 999, 1000]);
    expect(queue.dropped).toBe(997);
    expect(dropped.slice(0, 3)).toEqual([1, 2, 3]);
    // A waiter still gets what arrives while it waits, however many were dropped.
    const waiting = queue.next((n) => n === 2000);
    for (let i = 1001; i <= 2000; i++) queue.push(i);
    expect(await waiting).toBe(2000);
  });

  it('keeps at most maxBytes unread (the newest item always)', () => {
    const queue = new ArrivalQueue<Uint8Array>('chunk', { maxBytes: 10, sizeOf: (item) => item.byteLength });
    queue.push(new Uint8Array(4));
    queue.push(new Uint8Array(4));
    queue.push(new Uint8Array(4));
    expect(queue.pending().map((item) => item.byteLength)).toEqual([4, 4]);
    queue.push(new Uint8Array(100));
    expect(queue.pending().map((item) => item.byteLength)).toEqual([100]);
    expect(queue.dropped).toBe(3);
  });
});
