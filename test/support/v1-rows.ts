/**
 * Seeded v1 rows for the property tests of rendering (v2-path-reader, compiled-render): each member a
 * field table reads, present or missing, null, of every JSON kind, or only inherited.
 */
import type { FieldSpec } from '../../src/vocabulary/resource.ts';
import type { Json } from '../../src/vocabulary/json.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

export const VALUES: readonly unknown[] = [undefined, null, '', 'a/b', 'group-1', 0, 7, -1.5, true, false, {}, { a: 1 }, [], ['x'], [1, 'y'], '2026-01-02T03:04:05.678Z', 'ROLE_KIND_UNSPECIFIED'];

/** The v1 members a field table renders from, nested tables included (their members are looked up on the same row or below it). */
export function members(fields: Fields, into = new Set<string>()): Set<string> {
  for (const [key, spec] of Object.entries(fields)) {
    const source = spec.v1 === undefined ? key : spec.v1;
    if (typeof source === 'string' && source !== '.') into.add(source.split('.')[0]!);
    into.add(key);
    if (spec.fields) members(spec.fields, into);
  }
  return into;
}

/** A row of those members, each drawn from `values` (VALUES unless told). */
export function randomRow(names: readonly string[], random: () => number, values: readonly unknown[] = VALUES): Json {
  // Now and then a row whose members are inherited, not its own: no renderer may read them.
  const row: Json = random() < 0.1 ? Object.create(Object.fromEntries(names.map((n) => [n, 'inherited']))) : {};
  for (const name of names) {
    const value = values[Math.floor(random() * values.length)];
    if (value !== undefined) row[name] = value;
  }
  return row;
}
