/**
 * The k smallest of n items in a total order, without sorting all n: a max-heap
 * of at most k holds the best seen so far, its worst on top, and an item that
 * does not beat the top costs one comparison. A page of 50 from 1,000 rows
 * then costs about a thousand comparisons where a full sort costs ten thousand.
 * Items are indices (into the caller's array), so nothing is allocated per item.
 * Pure.
 */

/** Negative when item `a` comes before item `b`; never 0 for two different items (a total order). */
export type CompareIndices = (a: number, b: number) => number;

/** The `k` smallest of the indices `offer`ed, in order. */
export class TopK {
  readonly #k: number;
  readonly #compare: CompareIndices;
  /** A max-heap: every parent comes after its children in the order. */
  readonly #heap: number[] = [];

  constructor(k: number, compare: CompareIndices) {
    this.#k = Math.max(0, k);
    this.#compare = compare;
  }

  offer(item: number): void {
    const heap = this.#heap;
    if (heap.length < this.#k) {
      heap.push(item);
      this.#siftUp(heap.length - 1);
    } else if (heap.length > 0 && this.#compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.#siftDown(0);
    }
  }

  /** The kept items, first first. */
  sorted(): number[] {
    return [...this.#heap].sort(this.#compare);
  }

  #siftUp(at: number): void {
    const heap = this.#heap;
    const item = heap[at]!;
    while (at > 0) {
      const parent = (at - 1) >>> 1;
      if (this.#compare(heap[parent]!, item) >= 0) break;
      heap[at] = heap[parent]!;
      at = parent;
    }
    heap[at] = item;
  }

  #siftDown(at: number): void {
    const heap = this.#heap;
    const item = heap[at]!;
    const size = heap.length;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && this.#compare(heap[child + 1]!, heap[child]!) > 0) child++;
      if (this.#compare(heap[child]!, item) <= 0) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = item;
  }
}
