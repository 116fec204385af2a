/**
 * Every row a store query selects, a page at a time, in the query's order: each page resumes after the
 * last row read (keyset), so a scan of a large kind holds one page and never pays an OFFSET.
 */
import type { ResourceStore, StoreListQuery, StoredResource } from './types.ts';

/** Rows per page of a scan. */
const PAGE = 1000;

/**
 * The pages of `query` (its `skip`, `limit` and `after` are the scan's own). `cursorOf` gives the keyset
 * position of a row in the query's order; by default its uid, for the uid order most scans use.
 */
export async function* scanRows(
  resources: ResourceStore,
  query: Omit<StoreListQuery, 'skip' | 'limit' | 'after'>,
  cursorOf: (row: StoredResource) => readonly unknown[] = (row) => [row.uid],
): AsyncGenerator<StoredResource[]> {
  let after: readonly unknown[] | undefined;
  for (;;) {
    const page = await resources.list({ ...query, skip: 0, limit: PAGE, ...(after ? { after } : {}) });
    if (page.rows.length > 0) yield page.rows;
    const last = page.rows[page.rows.length - 1];
    if (!page.more || !last) return;
    after = cursorOf(last);
  }
}

/** The query's order by uid, ascending: the order of a scan that needs none of its own. */
export const BY_UID = [{ field: 'uid', desc: false }] as const;
