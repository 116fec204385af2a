/**
 * The kept-times cache: per kind, uid → value, each entry good for `ttlMs`
 * from when it was set (a read does not extend it), at most `maxEntries` in
 * all, the oldest set leaving first. A List of 1,000 rows reads it 1,000 times
 * a page, so a read is a Map lookup and a comparison with a clock read once per
 * page: an LRU's key building and recency bookkeeping on every read showed at
 * 13% of a page's CPU. It allocates as it fills.
 */
export class TimesCache<V> {
  readonly #kinds = new Map<string, Map<string, { value: V; expires: number }>>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #size = 0;

  constructor(maxEntries: number, ttlMs: number, now: () => number = () => performance.now()) {
    this.#maxEntries = maxEntries;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The clock reading to pass to `get` for a batch of reads. */
  now(): number {
    return this.#now();
  }

  get(kind: string, key: string, now = this.#now()): V | undefined {
    const entries = this.#kinds.get(kind);
    const entry = entries?.get(key);
    if (!entry) return undefined;
    if (entry.expires > now) return entry.value;
    entries!.delete(key);
    this.#size--;
    return undefined;
  }

  set(kind: string, key: string, value: V): void {
    let entries = this.#kinds.get(kind);
    if (!entries) {
      entries = new Map();
      this.#kinds.set(kind, entries);
    }
    // Set anew, so the entry moves to the end of its kind's insertion order.
    if (entries.delete(key)) this.#size--;
    entries.set(key, { value, expires: this.#now() + this.#ttlMs });
    this.#size++;
    while (this.#size > this.#maxEntries) this.#evictOldest(entries);
  }

  delete(kind: string, key: string): void {
    if (this.#kinds.get(kind)?.delete(key)) this.#size--;
  }

  /** Drops the oldest entry set of the kind being filled, `preferred` (never the entry just set), else of another kind. */
  #evictOldest(preferred: Map<string, unknown>): void {
    const from = preferred.size > 1 ? preferred : [...this.#kinds.values()].find((entries) => entries !== preferred && entries.size > 0) ?? preferred;
    const oldest = from.keys().next().value as string;
    from.delete(oldest);
    this.#size--;
  }
}
