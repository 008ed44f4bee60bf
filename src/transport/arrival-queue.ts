// Arrival-ordered queue with predicate waits: the `next(predicate, {timeoutMs})` behaviour every
// transport shares. Items that match no waiter stay queued for later calls.
import { ConnectionClosedError, ConnectionTimeoutError } from './errors.js';
import type { NextOptions } from './connection.js';

interface Waiter<T> {
  predicate: (item: T) => boolean;
  resolve: (item: T) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

export class ArrivalQueue<T> {
  readonly #items: T[] = [];
  readonly #waiters: Waiter<T>[] = [];
  readonly #what: string;
  #closedError: Error | undefined;

  /** @param what names the items in timeout messages ("message", "execution stream", ...). */
  constructor(what: string) {
    this.#what = what;
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
  }

  next(predicate: (item: T) => boolean = () => true, options: NextOptions = {}): Promise<T> {
    const index = this.#items.findIndex(predicate);
    if (index >= 0) return Promise.resolve(this.#items.splice(index, 1)[0]!);
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
