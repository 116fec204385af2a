/**
 * Serialises async work per key. A PATCH is a read-modify-write against v1,
 * which has no concurrency control; running those of one resource one after
 * another inside a gateway is what keeps concurrent PATCHes from losing updates.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const tail = current.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await current;
    } finally {
      // Forget the key once nothing is queued behind this run, so the map stays small.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  get size(): number {
    return this.#tails.size;
  }
}
