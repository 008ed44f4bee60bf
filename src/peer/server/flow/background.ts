// Work the MCP Flow engine does after answering a request (sending the next prompt, completing a
// session, writing an export stream): run on the next turn of the event loop, tracked so that
// tests can wait until it settled, and any unexpected exception kept for them to see.
import { RpcError } from '../extension.js';

export class BackgroundWork {
  readonly #pending = new Set<Promise<void>>();
  readonly #failures: unknown[] = [];

  /** Runs `work` on the next turn; an RpcError (a session that moved on meanwhile) is nothing to report. */
  schedule(work: () => Promise<void>): void {
    const promise = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: unknown) => {
        // An RpcError here is a session that moved on meanwhile (cancelled, expired): nothing to do.
        if (!(error instanceof RpcError)) this.#failures.push(error);
      });
    this.track(promise);
  }

  /** Counts `promise` as pending work until it settles. */
  track(promise: Promise<void>): void {
    this.#pending.add(promise);
    void promise.finally(() => this.#pending.delete(promise));
  }

  /** Resolves once no work is pending. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Unexpected exceptions of background work; empty unless the engine has a bug. */
  get failures(): readonly unknown[] {
    return this.#failures;
  }
}
