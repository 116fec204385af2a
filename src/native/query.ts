/**
 * A List request in store terms. The mapping's filters (already parsed and
 * canonicalised by the shared list-query code, so both modes accept and
 * fingerprint the same requests) become StoreFilters on stored paths; the few
 * the store cannot express (a substring over several fields, a `flag` switch
 * that hides rows by a name pattern) become a residual predicate the backend
 * applies itself. A filter or order on a field hydrated at read time is
 * rewritten to where the reference is kept (`identity.uid` → `identityUid`,
 * `group.uid` → the `parent` column). Pure.
 */
import { ApiError } from '../aip/errors.ts';
import type { NativeMemberFilter } from '../vocabulary/native.ts';
import type { OrderKey } from '../aip/order-by.ts';
import { Code } from '../rpc-status.ts';
import type { FilterSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import type { StoreFilter, StoreFilterOp, StoredResource } from '../store/types.ts';

type FilterValue = string | boolean | readonly string[];
type Row = Pick<StoredResource, 'uid' | 'parent' | 'createTime' | 'updateTime' | 'body'>;

/** Columns the store keeps apart from the body (StoreFilter.field). */
const COLUMNS = new Set(['uid', 'parent', 'createTime', 'updateTime']);

/** Filter ops the store applies as they are; `since` is the store's `gte` on a timestamp. */
const STORE_OPS: Readonly<Record<string, StoreFilterOp>> = {
  eq: 'eq', in: 'in', descendantOf: 'descendantOf', childOf: 'childOf', ancestorOf: 'ancestorOf', inRoot: 'inRoot', since: 'gte',
};

/**
 * Where the store finds a v2 path: the path itself, or, through a reference,
 * the field or column holding the referenced uid. Throws for paths the store
 * cannot see (a hydrated name, say): a mapping bug, found at start-up.
 */
export function storedPath(mapping: ResourceMapping, path: string): string {
  const [head, ...rest] = path.split('.');
  const reference = mapping.references?.[head!];
  if (!reference) return path;
  const sub = rest.join('.');
  const picksUid = typeof reference.pick === 'string' ? sub === '' && reference.pick === 'uid' : reference.pick[sub] === 'uid';
  if (!picksUid || reference.by === '@root') {
    throw new Error(`native mode cannot filter or order ${mapping.name} by "${path}": it is hydrated at read time`);
  }
  return reference.by === '@parent' ? 'parent' : reference.by;
}

/** The value a row holds at a stored path, as the store compares it (absent is null). */
export function sortValue(row: Row, path: string): unknown {
  if (COLUMNS.has(path)) return row[path as 'uid' | 'parent' | 'createTime' | 'updateTime'];
  return getPath(row.body as Json, path) ?? null;
}

export interface FilterPlan {
  store: StoreFilter[];
  /** What the store could not apply; undefined when it applies everything. */
  residual?: (row: Row) => boolean;
}

function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Every value at a dotted path, descending through lists on the way (`events.author`). */
export function valuesAt(value: unknown, path: string): unknown[] {
  let level: unknown[] = [value];
  for (const segment of path.split('.')) {
    level = level.flatMap((node) => (Array.isArray(node) ? node : [node]))
      .map((node) => (node !== null && typeof node === 'object' ? (node as Json)[segment] : undefined))
      .filter((v) => v !== undefined && v !== null);
  }
  return level.flatMap((node) => (Array.isArray(node) ? node : [node]));
}

/** The predicate of a member filter; undefined when the values constrain nothing. */
function memberTest(filter: NativeMemberFilter, values: readonly string[]): ((row: Row) => boolean) | undefined {
  const members = values.map((v) => filter.members[v]).filter((m): m is string => m !== undefined);
  if (members.length === 0) return undefined;
  const isSet = (element: Json) => members.some((member) => element[member] !== undefined && element[member] !== null);
  return (row) => {
    let elements = valuesAt(row.body, filter.path).filter((e): e is Json => e !== null && typeof e === 'object');
    if (filter.latest) {
      const { by, where = {} } = filter.latest;
      const eligible = elements.filter((e) => Object.entries(where).every(([k, v]) => e[k] === v));
      const latest = eligible.reduce<Json | undefined>((best, e) => (!best || String(e[by] ?? '') > String(best[by] ?? '') ? e : best), undefined);
      elements = latest ? [latest] : [];
    }
    return elements.some(isSet);
  };
}

function containsPaths(spec: FilterSpec): readonly string[] {
  return spec.anyOf ?? (spec.field ? [spec.field] : []);
}

/**
 * Splits canonical filter values (keyed by the mapping's filter names) into store filters and a residual predicate.
 * `through`: the values each `through` filter in use stands for, read from the store beforehand (through-filters.ts).
 */
export function planFilters(
  mapping: ResourceMapping, canonical: Readonly<Record<string, FilterValue>>, through: Readonly<Record<string, readonly string[]>> = {},
): FilterPlan {
  const store: StoreFilter[] = [];
  const residual: ((row: Row) => boolean)[] = [];
  const overridden = new Set(Object.entries(mapping.native?.filters ?? {})
    .flatMap(([name, declared]) => (declared.match === 'through' && canonical[name] !== undefined ? declared.overrides ?? [] : [])));
  for (const [name, spec] of Object.entries(mapping.filters)) {
    const value = overridden.has(name) ? undefined : canonical[name];
    if (spec.op === 'flag') {
      const flag = mapping.native?.flags?.[name];
      if (!flag) throw new Error(`${mapping.name}: native mode does not know what flag "${name}" selects`);
      if (value === true) continue;
      const pattern = new RegExp(flag.pattern);
      residual.push((row) => !texts(sortValue(row, flag.field)).some((text) => pattern.test(text)));
      continue;
    }
    if (value === undefined) continue;
    const declared = mapping.native?.filters?.[name];
    if (declared?.match === 'through') {
      const values = through[name];
      if (!values) throw new Error(`${mapping.name}: the ${name} filter was planned before the store said what it stands for`);
      store.push({ field: storedPath(mapping, declared.path), op: 'in', value: values });
      continue;
    }
    if (declared?.match === 'in') {
      store.push({ field: storedPath(mapping, declared.path), op: 'in', value: Array.isArray(value) ? value : [String(value)] });
      continue;
    }
    if (declared?.match === 'member') {
      const test = memberTest(declared, Array.isArray(value) ? value : [String(value)]);
      if (test) residual.push(test);
      continue;
    }
    if (declared) {
      const wanted = new Set<unknown>(Array.isArray(value) ? value : [value]);
      const hit = (row: Row) => valuesAt(row.body, declared.path).some((v) => wanted.has(v));
      residual.push(declared.match === 'any' ? hit : (row) => !hit(row));
      continue;
    }
    if (spec.op === 'contains') {
      const paths = containsPaths(spec).map((path) => storedPath(mapping, path));
      const needle = String(value).toLowerCase();
      residual.push((row) => paths.some((path) => texts(sortValue(row, path)).some((text) => text.toLowerCase().includes(needle))));
      continue;
    }
    const op = STORE_OPS[spec.op];
    if (!op || !spec.field) throw new ApiError(Code.UNIMPLEMENTED, `the ${name} filter of ${mapping.name} is not available in native mode`);
    store.push({ field: storedPath(mapping, spec.field), op, value });
  }
  return residual.length === 0 ? { store } : { store, residual: (row) => residual.every((test) => test(row)) };
}

export function storeOrder(mapping: ResourceMapping, order: readonly OrderKey[]): OrderKey[] {
  return order.map((key) => ({ field: storedPath(mapping, key.field), desc: key.desc }));
}

/** The keyset cursor after `row` in `order` (stored paths). */
export function cursorAfter(row: Row, order: readonly OrderKey[]): unknown[] {
  return order.map((key) => sortValue(row, key.field));
}

/** Fails at start-up when a mapping filters or orders by something native mode cannot query. */
export function checkQueryable(mapping: ResourceMapping): void {
  planFilters(mapping, {});
  for (const [name, spec] of Object.entries(mapping.filters)) {
    if (spec.op === 'flag' || mapping.native?.filters?.[name]) continue;
    if (spec.op === 'contains') {
      for (const path of containsPaths(spec)) storedPath(mapping, path);
      continue;
    }
    // A filter with no field and no native declaration is refused when used (UNIMPLEMENTED), not at start-up.
    if (!spec.field) continue;
    storedPath(mapping, spec.field);
    if (!(spec.op in STORE_OPS)) throw new Error(`${mapping.name}: native mode has no store op for ${spec.op}`);
  }
  for (const field of [...mapping.orderBy.fields, ...Object.values(mapping.orderBy.aliases ?? {})]) storedPath(mapping, field);
}
