/**
 * The v2 documents of the v1 rows a reading memo keeps (v1-list/with-reading-memo.ts): a List given the
 * same bytes again answers the same row objects, and their documents are made once, not every List. A
 * document serves again only with the same kept times: a write through any replica may move a row's
 * updateTime without changing v1's bytes. Only rows of mappings that render alone (no reference to fill)
 * are kept, so no later stage changes a kept document; rows not kept are converted every time.
 */
import type { ResourceTimes } from '../store/types.ts';
import type { Json } from '../vocabulary/json.ts';

interface Rendered {
  readonly times: ResourceTimes | undefined;
  readonly document: Json;
}

export class KeptRenderings {
  /** null: kept, not yet rendered. */
  readonly #kept = new WeakMap<Json, Rendered | null>();

  /** The row's document is worth keeping: the memo answers the same row again. */
  keep(row: Json): void {
    if (!this.#kept.has(row)) this.#kept.set(row, null);
  }

  /** The row's document with these times: the one kept, or `make`'s, kept when the row is. */
  document(row: Json, times: ResourceTimes | undefined, make: (row: Json, times: ResourceTimes | undefined) => Json): Json {
    const kept = this.#kept.get(row);
    if (kept === undefined) return make(row, times);
    if (kept !== null && sameTimes(kept.times, times)) return kept.document;
    const document = make(row, times);
    this.#kept.set(row, { times, document });
    return document;
  }
}

function sameTimes(a: ResourceTimes | undefined, b: ResourceTimes | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.createTime === b.createTime && a.updateTime === b.updateTime);
}
