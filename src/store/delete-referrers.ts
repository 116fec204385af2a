/** A cascade in the store: what it keeps for a resource that is being deleted goes with it. */
import type { ResourceStore } from './types.ts';

/** Rows deleted per store query. */
const CHUNK = 500;

/** Deletes, a chunk at a time, every row of `kind` whose `field` (a v2 path, or `uid`/`parent`) is `value`. */
export async function deleteReferrers(resources: ResourceStore, kind: string, field: string, value: string): Promise<void> {
  for (;;) {
    const { rows } = await resources.list({
      kind, filters: [{ field, op: 'eq', value }], order: [{ field: 'uid', desc: false }], skip: 0, limit: CHUNK,
    });
    for (const row of rows) await resources.delete(kind, row.uid);
    if (rows.length < CHUNK) return;
  }
}
