/**
 * v1 list filtering: `id`, `name`, `parent` and the shared UIDPFilter
 * (api-surface.md §0.3). Filters AND together; proto3 empty strings and
 * `false` mean "not set", as they do for the real server.
 */
import { isDescendantOf, isInRoot, parentOf } from './uidp.ts';

export interface UidpFilter {
  ancestorsOf?: string;
  descendantsOf?: string;
  childrenOf?: string;
  inRoot?: boolean;
  ids?: string[];
}

/** A decoded `*Filter` message; keys a resource's filter lacks are simply never set. */
export interface ListFilter {
  id?: string;
  name?: string;
  /** RoleFilter only: the exact parent UIDP, or "/" for root (managed) roles. */
  parent?: string;
  uidp?: UidpFilter;
}

export interface Listable {
  readonly id: string;
  readonly name?: string;
}

// Ancestry is strict, like uidp.IsAncestor (§0.3): a record never matches
// ancestorsOf/descendantsOf of its own id.
function matchesUidp(id: string, f: UidpFilter): boolean {
  if (f.ancestorsOf && !isDescendantOf(f.ancestorsOf, id)) return false;
  if (f.descendantsOf && !isDescendantOf(id, f.descendantsOf)) return false;
  if (f.childrenOf && parentOf(id) !== f.childrenOf) return false;
  if (f.inRoot && !isInRoot(id)) return false;
  // A present but empty list still filters (it matches nothing), as an SQL `IN` would.
  if (f.ids && !f.ids.includes(id)) return false;
  return true;
}

export function matches(row: Listable, f: ListFilter): boolean {
  if (f.id && row.id !== f.id) return false;
  if (f.name && row.name !== f.name) return false;
  if (f.parent && parentOf(row.id) !== f.parent) return false;
  return f.uidp ? matchesUidp(row.id, f.uidp) : true;
}

/**
 * Insertion order, never sorted: v1 lists promise no order, and the gateway
 * must not come to rely on one. An exact `id`, and `uidp.ids`, are looked up
 * by key, as v1's database does by primary key, because the gateway's Get is a
 * List `?id=` and a walk's later pages are Lists by ids, which benchmarks hit
 * hard (a scan of 10,000 rows per page measured the emulator, not the
 * gateway). Rows found by ids come in the order of the ids asked, which is no
 * promise either.
 */
export function select<T extends Listable>(rows: ReadonlyMap<string, T>, f: ListFilter): T[] {
  if (f.id) {
    const row = rows.get(f.id);
    return row && matches(row, f) ? [row] : [];
  }
  const ids = f.uidp?.ids;
  if (ids) {
    const out: T[] = [];
    for (const id of new Set(ids)) {
      const row = rows.get(id);
      if (row && matches(row, f)) out.push(row);
    }
    return out;
  }
  const out: T[] = [];
  for (const row of rows.values()) if (matches(row, f)) out.push(row);
  return out;
}
