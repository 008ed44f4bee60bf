// A list that keeps its first items and its latest ones, and only counts those in between: what a
// connection keeps of what a peer may produce without end (faults, stderr lines), where both the
// first (what went wrong at the start) and the latest (what it was doing at the end) matter.

export class BoundedList<T> {
  readonly #first: T[] = [];
  /** A ring of the latest items past the first ones; `#next` is where the next one goes. */
  readonly #latest: T[] = [];
  #next = 0;
  #omitted = 0;
  readonly #keepFirst: number;
  readonly #keepLatest: number;
  #view: T[] | undefined;

  constructor(keepFirst: number, keepLatest: number) {
    this.#keepFirst = keepFirst;
    this.#keepLatest = keepLatest;
  }

  push(item: T): void {
    this.#view = undefined;
    if (this.#first.length < this.#keepFirst) {
      this.#first.push(item);
      return;
    }
    if (this.#latest.length < this.#keepLatest) {
      this.#latest.push(item);
      return;
    }
    if (this.#keepLatest === 0) {
      this.#omitted++;
      return;
    }
    this.#latest[this.#next] = item;
    this.#next = (this.#next + 1) % this.#keepLatest;
    this.#omitted++;
  }

  /** The kept items in order: the first ones, then the latest (the same array until the next push). */
  items(): readonly T[] {
    this.#view ??= [...this.#first, ...this.#latest.slice(this.#next), ...this.#latest.slice(0, this.#next)];
    return this.#view;
  }

  /** Items pushed but not kept (between the first and the latest). */
  get omitted(): number {
    return this.#omitted;
  }

  /** Every item pushed, kept or not. */
  get total(): number {
    return this.#first.length + this.#latest.length + this.#omitted;
  }
}
