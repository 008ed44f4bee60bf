// The requests the mock client waits on: one entry per request id, registered before the request
// goes out (so no answer is missed), resolved by the response that names it, rejected at its
// deadline or when the connection closes.
import { ConnectionTimeoutError } from '../../transport/errors.js';
import { idKey, type Id, type Message } from './types.js';

interface Waiting {
  id: Id;
  method: string;
  timer: NodeJS.Timeout;
  resolve(message: Message): void;
  reject(error: Error): void;
}

export class PendingRequests {
  readonly #waiting = new Map<string, Waiting>();

  /** The wait for response `id`; it rejects with ConnectionTimeoutError after `timeoutMs`. */
  expect(id: Id, method: string, timeoutMs: number): Promise<Message> {
    const answer = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(idKey(id));
        reject(new ConnectionTimeoutError(`the answer to ${method} (id ${String(id)})`, timeoutMs));
      }, timeoutMs);
      this.#waiting.set(idKey(id), { id, method, timer, resolve, reject });
    });
    // A caller that gave up (abort, a failed send) must not leave an unhandled rejection behind.
    answer.catch(() => undefined);
    return answer;
  }

  /** Resolves the wait for `id` with `response`; false when nothing waited for it. */
  answer(id: Id, response: Message): boolean {
    const waiting = this.#remove(id);
    waiting?.resolve(response);
    return waiting !== undefined;
  }

  /** Stops waiting for `id` (the caller gave up); true when it was still waited for. */
  forget(id: Id): boolean {
    return this.#remove(id) !== undefined;
  }

  /** Rejects every wait with `error` (the connection closed, or the client gave them all up). */
  rejectAll(error: Error): void {
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const waiting of all) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
  }

  /** The ids still waited for, oldest first. */
  ids(): Id[] {
    return [...this.#waiting.values()].map((waiting) => waiting.id);
  }

  #remove(id: Id): Waiting | undefined {
    const waiting = this.#waiting.get(idKey(id));
    if (!waiting) return undefined;
    this.#waiting.delete(idKey(id));
    clearTimeout(waiting.timer);
    return waiting;
  }
}
