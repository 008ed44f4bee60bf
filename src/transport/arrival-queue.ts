// Arrival-ordered queue with predicate waits: the `next(predicate, {timeoutMs})` behaviour every
// transport shares. Items that match no waiter stay queued for later calls, within limits where
// the queue has them (a peer that floods messages nobody waits for must not grow a connection's
// queue without end): past `maxItems` items or `maxBytes` bytes the oldest are dropped and counted.
import { ConnectionClosedError, ConnectionTimeoutError } from './errors.js';
import type { NextOptions, ReceivedMessage } from './connection.js';

export interface ArrivalQueueLimits<T> {
  /** Items kept queued at most. Default: no limit. */
  maxItems?: number;
  /** Bytes (as `sizeOf` counts them) kept queued at most; the newest item is always kept. Default: no limit. */
  maxBytes?: number;
  /** The size of an item in bytes. Default: every item counts 0 bytes. */
  sizeOf?: (item: T) => number;
  /** Called once for each item dropped unread, with how many were dropped so far. */
  onDrop?: (item: T, dropped: number) => void;
}

interface Waiter<T> {
  predicate: (item: T) => boolean;
  resolve: (item: T) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

/**
 * The limits of a connection's queue of received messages: 10000 messages or 64 MiB of bodies
 * not yet taken by `next()`, far above what any case leaves unread.
 */
export function receivedMessageLimits(onDrop?: (item: ReceivedMessage, dropped: number) => void): ArrivalQueueLimits<ReceivedMessage> {
  return { maxItems: 10_000, maxBytes: 64 * 1024 * 1024, sizeOf: (received) => received.body?.byteLength ?? 0, ...(onDrop ? { onDrop } : {}) };
}

export class ArrivalQueue<T> {
  /** Queued items from `#head` on (the ones before it were dropped and wait to be compacted away). */
  #items: T[] = [];
  #head = 0;
  readonly #waiters: Waiter<T>[] = [];
  readonly #what: string;
  readonly #maxItems: number;
  readonly #maxBytes: number;
  readonly #sizeOf: ((item: T) => number) | undefined;
  readonly #onDrop: ((item: T, dropped: number) => void) | undefined;
  #bytes = 0;
  #dropped = 0;
  #closedError: Error | undefined;

  /** @param what names the items in timeout messages ("message", "execution stream", ...). */
  constructor(what: string, limits: ArrivalQueueLimits<T> = {}) {
    this.#what = what;
    this.#maxItems = limits.maxItems ?? Number.POSITIVE_INFINITY;
    this.#maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
    this.#sizeOf = limits.sizeOf;
    this.#onDrop = limits.onDrop;
  }

  push(item: T): void {
    const index = this.#waiters.findIndex((waiter) => waiter.predicate(item));
    if (index >= 0) {
      const [waiter] = this.#waiters.splice(index, 1);
      waiter!.cleanup();
      waiter!.resolve(item);
      return;
    }
    this.#items.push(item);
    this.#bytes += this.#sizeOf?.(item) ?? 0;
    if (this.#items.length - this.#head > this.#maxItems || this.#bytes > this.#maxBytes) this.#dropOldest();
  }

  /** Drops the oldest items until the queue is within its limits again (the newest is always kept). */
  #dropOldest(): void {
    while (this.#items.length - this.#head > 1 && (this.#items.length - this.#head > this.#maxItems || this.#bytes > this.#maxBytes)) {
      const item = this.#items[this.#head]!;
      this.#items[this.#head++] = undefined as T;
      this.#bytes -= this.#sizeOf?.(item) ?? 0;
      this.#dropped++;
      this.#onDrop?.(item, this.#dropped);
    }
    // Compacted once half the array is dropped items: O(1) per item on average.
    if (this.#head * 2 >= this.#items.length) this.#compact();
  }

  #compact(): void {
    if (this.#head === 0) return;
    this.#items = this.#items.slice(this.#head);
    this.#head = 0;
  }

  /** Items dropped unread because the queue was over its limits. */
  get dropped(): number {
    return this.#dropped;
  }

  next(predicate: (item: T) => boolean = () => true, options: NextOptions = {}): Promise<T> {
    this.#compact();
    const index = this.#items.findIndex(predicate);
    if (index >= 0) {
      const [item] = this.#items.splice(index, 1);
      this.#bytes -= this.#sizeOf?.(item!) ?? 0;
      return Promise.resolve(item!);
    }
    if (this.#closedError) return Promise.reject(this.#closedError);
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        remove();
        reject(options.signal!.reason);
      };
      const waiter: Waiter<T> = {
        predicate,
        resolve,
        reject,
        cleanup: () => {
          if (timer) clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
        },
      };
      const remove = () => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        waiter.cleanup();
      };
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          remove();
          reject(new ConnectionTimeoutError(`a matching ${this.#what}`, options.timeoutMs!));
        }, options.timeoutMs);
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Items queued and not yet taken. */
  pending(): readonly T[] {
    this.#compact();
    return this.#items;
  }

  /** No more items will come: current and future waits with nothing matching reject. */
  close(error: Error = new ConnectionClosedError(`connection closed while waiting for a ${this.#what}`)): void {
    if (this.#closedError) return;
    this.#closedError = error;
    for (const waiter of this.#waiters.splice(0)) {
      waiter.cleanup();
      waiter.reject(error);
    }
  }

  get closed(): boolean {
    return this.#closedError !== undefined;
  }
}
