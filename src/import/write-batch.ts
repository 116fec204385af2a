/**
 * One batch of rows into the store, in one transaction: a row the store lacks
 * is inserted, a row it holds differently is replaced, a row it holds as is
 * is left alone. That makes the import idempotent (a second run changes
 * nothing) and resumable (a run cut off keeps every batch it committed, and
 * the next run finds those unchanged and carries on).
 */
import { fetchByUid } from '../native/references.ts';
import type { Store, StoredResource } from '../store/types.ts';

export interface BatchOutcome {
  written: number;
  unchanged: number;
}

/**
 * `ownTimes`: the resource shows times of its own, which v1 (or the kept times) gave; otherwise the
 * store's times are the import's and a row already stored keeps them.
 */
export async function writeBatch(store: Store, kind: string, rows: readonly StoredResource[], ownTimes: boolean): Promise<BatchOutcome> {
  if (rows.length === 0) return { written: 0, unchanged: 0 };
  return store.transaction(async ({ resources }) => {
    const held = await fetchByUid(resources, kind, rows.map((row) => row.uid));
    let written = 0;
    for (const row of rows) {
      const before = held.get(row.uid);
      if (!before) {
        await resources.insert(row);
        written++;
      } else if (!sameRow(before, row, ownTimes)) {
        // createTime is fixed at insert; a v1 that changed it (it does not) would be replaced wholesale.
        if (ownTimes && before.createTime !== row.createTime) {
          await resources.delete(kind, row.uid);
          await resources.insert(row);
        } else {
          await resources.replace(kind, row.uid, row.body, ownTimes ? row.updateTime : row.createTime);
        }
        written++;
      }
    }
    return { written, unchanged: rows.length - written };
  });
}

function sameRow(a: StoredResource, b: StoredResource, ownTimes: boolean): boolean {
  if (ownTimes && (a.createTime !== b.createTime || a.updateTime !== b.updateTime)) return false;
  return a.parent === b.parent && JSON.stringify(a.body) === JSON.stringify(b.body);
}
