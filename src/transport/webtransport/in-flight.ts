// Request ids in flight on the control stream, in both directions: a request counts from the
// moment it is sent or received until its response passes the other way. Execution-stream and
// datagram headers are correlated against this set (001 §9 "Validate request IDs in stream headers").

type Id = string | number;

export class InFlightRequests {
  /** Requests we sent, awaiting the peer's response. */
  readonly #sent = new Map<Id, string>();
  /** Requests we received, awaiting our response. */
  readonly #received = new Map<Id, string>();
  /** Ids whose response referenced streams not yet seen: they stay correlatable until then. */
  readonly #lingering = new Map<Id, Set<number>>();
  readonly #waiters = new Set<() => void>();

  /** Looks at one message crossing the control stream and updates the sets. */
  observe(message: unknown, direction: 'sent' | 'received'): void {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
    const record = message as Record<string, unknown>;
    const id = record['id'];
    if (typeof id !== 'number' && typeof id !== 'string') return;
    if (typeof record['method'] === 'string') {
      (direction === 'sent' ? this.#sent : this.#received).set(id, record['method']);
      this.#wake();
    } else if ('result' in record || 'error' in record) {
      // A response travels opposite to its request.
      (direction === 'sent' ? this.#received : this.#sent).delete(id);
      const tags = streamTagsReferenced(record['result']);
      if (tags.length > 0) this.#lingering.set(id, new Set(tags));
    }
  }

  /**
   * True when a stream or datagram header may carry this id: a request travelling `direction`
   * (only client-to-server requests get streams and datagrams, WT-ID-4: a server asks about
   * 'received' requests, a client about 'sent' ones) that is not yet fully answered.
   */
  has(requestId: number, direction: 'sent' | 'received'): boolean {
    return (direction === 'sent' ? this.#sent : this.#received).has(requestId) || this.#lingering.has(requestId);
  }

  /** Ids of the requests we received and have not answered yet. */
  receivedIds(): Id[] {
    return [...this.#received.keys()];
  }

  /** The method of a request we received (for error messages), if in flight. */
  methodReceived(id: Id): string | undefined {
    return this.#received.get(id);
  }

  /** A stream for (requestId, tag) arrived: a response that referenced it no longer keeps the id. */
  streamSeen(requestId: number, streamTag: number): void {
    const tags = this.#lingering.get(requestId);
    if (!tags) return;
    tags.delete(streamTag);
    if (tags.size === 0) this.#lingering.delete(requestId);
  }

  /** Resolves true once `requestId` is in flight (see `has`), or false after `graceMs`. */
  waitFor(requestId: number, direction: 'sent' | 'received', graceMs: number): Promise<boolean> {
    if (this.has(requestId, direction)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!this.has(requestId, direction)) return;
        finish(true);
      };
      const timer = setTimeout(() => finish(false), graceMs);
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(value);
      };
      this.#waiters.add(check);
    });
  }

  get size(): number {
    return this.#sent.size + this.#received.size;
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Stream tags named by `ref/stream` content items anywhere in a value (result or params). */
export function streamTagsReferenced(value: unknown, depth = 0): number[] {
  if (depth > 16 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => streamTagsReferenced(item, depth + 1));
  const record = value as Record<string, unknown>;
  if (record['type'] === 'ref/stream' && typeof record['streamTag'] === 'number') return [record['streamTag']];
  return Object.values(record).flatMap((item) => streamTagsReferenced(item, depth + 1));
}
