// A map that keeps at most `limit` entries: setting a new key when it is full forgets the oldest.
// For what is costly to compute again and cheap to keep (compiled validators, judgements, samples),
// bounded whatever a run meets.
export class BoundedMap<K, V> extends Map<K, V> {
  readonly limit: number;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}
