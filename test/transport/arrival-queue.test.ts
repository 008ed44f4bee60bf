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
});
