/**
 * The store reads a `through` filter needs before a List can be planned
 * (spec.ts, NativeThroughFilter): the values at the filter's path that stand
 * for a wanted value. Those are the uids of the rows of its kind that name a
 * wanted value, and each wanted value that no row names otherwise (it stands
 * for itself). Two store reads per filter used, whatever the list's size.
 */
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { BY_UID, scanRows } from '../store/scan.ts';
import type { ResourceStore } from '../store/types.ts';
import type { NativeThroughFilter } from '../vocabulary/native.ts';

type FilterValue = string | boolean | readonly string[];

/** The values each `through` filter of the request selects, by filter name; empty when it uses none. */
export async function resolveThroughFilters(
  store: ResourceStore, mapping: ResourceMapping, canonical: Readonly<Record<string, FilterValue>>,
): Promise<Record<string, string[]>> {
  const resolved: Record<string, string[]> = {};
  for (const [name, declared] of Object.entries(mapping.native?.filters ?? {})) {
    const value = canonical[name];
    if (declared.match !== 'through' || value === undefined) continue;
    resolved[name] = await standingFor(store, declared, (Array.isArray(value) ? value : [String(value)]).map(String));
  }
  return resolved;
}

async function standingFor(store: ResourceStore, filter: NativeThroughFilter, wanted: readonly string[]): Promise<string[]> {
  const [named, renamed] = await Promise.all([
    uids(store, { field: `${filter.field}`, value: wanted }, filter.kind),
    uids(store, { field: 'uid', value: wanted }, filter.kind),
  ]);
  const standsForOther = new Set(renamed);
  return [...new Set([...named, ...wanted.filter((value) => !standsForOther.has(value))])];
}

async function uids(store: ResourceStore, where: { field: string; value: readonly string[] }, kind: string): Promise<string[]> {
  const found: string[] = [];
  for await (const page of scanRows(store, { kind, filters: [{ field: where.field, op: 'in', value: where.value }], order: BY_UID })) {
    found.push(...page.map((row) => row.uid));
  }
  return found;
}
