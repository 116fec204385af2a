/**
 * References in the store: rows of a kind fetched by uid (the store's
 * rows-by-id, which the render stage fills references from: one store query
 * per kind and chunk, never one per row), and the check that a write's
 * required references (NativeSpec.requires) name rows that exist.
 */
import { invalidField } from '../aip/errors.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import type { ResourceStore, StoredResource } from '../store/types.ts';

/** Uids per store query: keeps parameter lists well inside both engines' limits. */
const CHUNK = 500;

/** Up to this many uids are read one by one (a keyed lookup each); more go through `list` with an `in` filter. */
const ONE_BY_ONE = 16;

/** Fetches rows of one kind by uid. */
export async function fetchByUid(store: ResourceStore, kind: string, uids: readonly string[]): Promise<Map<string, StoredResource>> {
  const found = new Map<string, StoredResource>();
  const unique = [...new Set(uids)];
  if (unique.length <= ONE_BY_ONE) {
    for (const row of await Promise.all(unique.map((uid) => store.get(kind, uid)))) if (row) found.set(row.uid, row);
    return found;
  }
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const { rows } = await store.list({
      kind,
      filters: [{ field: 'uid', op: 'in', value: chunk }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: chunk.length,
    });
    for (const row of rows) found.set(row.uid, row);
  }
  return found;
}

/**
 * Refuses a write whose required references (NativeSpec.requires) name no
 * row: INVALID_ARGUMENT on the field holding the uid. Unset ones are left to
 * validation. `only`: check just the fields under these paths (an update's mask).
 */
export async function requireReferenced(store: ResourceStore, mapping: ResourceMapping, document: Json, only?: readonly string[]): Promise<void> {
  for (const [field, kind] of Object.entries(mapping.native?.requires ?? {})) {
    if (only && !only.some((path) => field === path || field.startsWith(`${path}.`))) continue;
    const uid = getPath(document, field);
    if (typeof uid !== 'string' || uid === '') continue;
    if (!(await store.get(kind, uid))) throw invalidField(field, `${kind} "${uid}" does not exist`);
  }
}
