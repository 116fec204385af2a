/**
 * The rows of a v1 list a List's filters match, held by column: each one's uid, its sort key's values
 * and its place in v1's answer, in arrays, not as an object a row. A page of 50 of 1,000 rows makes
 * objects of its 50 (`entry`); the window is cut from the columns (list-window.ts, KeyedByIndex), and
 * a walk is kept from them (walk-cache.ts, WalkRows), which makes its entries only when a later page
 * reads it.
 */
import { compareKeysAt, type KeyedByIndex, type ReadField } from '../../aip/list-window.ts';
import type { OrderKey } from '../../aip/order-by.ts';
import type { WalkRows } from '../walk-cache.ts';

/** A matching row of a list: its uid, its sort key, and where it sits in v1's answer. */
export interface ListedRow {
  row: string;
  key: unknown[];
  at: number;
}

export class MatchedRows implements KeyedByIndex, WalkRows {
  readonly #order: readonly OrderKey[];
  readonly #uids: string[];
  /** Row `i`'s key is `#keys[i * width]` to `#keys[(i + 1) * width]`. */
  readonly #keys: unknown[];
  readonly #ats: Int32Array;
  #count = 0;

  /** `capacity`: the most rows that may match (the list's length), so no array grows row by row. */
  constructor(order: readonly OrderKey[], capacity: number) {
    this.#order = order;
    this.#uids = new Array<string>(capacity);
    this.#keys = new Array<unknown>(capacity * order.length);
    this.#ats = new Int32Array(capacity);
  }

  /** Adds the row at `at` of v1's answer, its key's values read off `row` by `read` (as sortKey reads them). */
  add<R>(uid: string, at: number, row: R, read: ReadField<R>): void {
    const i = this.#count++;
    this.#uids[i] = uid;
    this.#ats[i] = at;
    const order = this.#order;
    for (let m = 0; m < order.length; m++) this.#keys[i * order.length + m] = read(row, order[m]!.field) ?? null;
  }

  get count(): number {
    return this.#count;
  }

  get width(): number {
    return this.#order.length;
  }

  uid(i: number): string {
    return this.#uids[i]!;
  }

  keyAt(i: number, m: number): unknown {
    return this.#keys[i * this.#order.length + m];
  }

  key(i: number): unknown[] {
    const width = this.#order.length;
    return this.#keys.slice(i * width, (i + 1) * width);
  }

  /** Row `i` as an entry of its own. */
  entry(i: number): ListedRow {
    return { row: this.#uids[i]!, key: this.key(i), at: this.#ats[i]! };
  }

  /** compareKeys of rows `a` and `b`, read in place. */
  compare(a: number, b: number): number {
    const order = this.#order;
    return compareKeysAt(this.#keys, a * order.length, this.#keys, b * order.length, order);
  }

  /** compareKeys of row `a` and `key`, read in place. */
  compareTo(a: number, key: readonly unknown[]): number {
    const order = this.#order;
    return compareKeysAt(this.#keys, a * order.length, key, 0, order);
  }
}
