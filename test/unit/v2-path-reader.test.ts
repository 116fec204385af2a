/**
 * v2PathReader (src/engine/shape.ts) reads one v2 path of a v1 row as rendering the row and reading the
 * path would (`getPath(renderV2(fields, row), path)`), for every field of every resource and every path
 * a List filters or orders by. A List runs it on every row of v1's list, and it takes a shorter road for
 * plain string fields; this holds the road to the rendering over seeded rows whose members are missing,
 * null, of every JSON kind, or only inherited.
 */
import { describe, expect, it } from 'vitest';
import { MAPPINGS } from '../../mappings/index.ts';
import { getPath, renderV2, v2PathReader, type Json } from '../../src/engine/shape.ts';
import type { FieldSpec } from '../../src/engine/mapping.ts';
import { prng } from '../support/prng.ts';

const VALUES: readonly unknown[] = [undefined, null, '', 'a/b', 'group-1', 0, 7, -1.5, true, false, {}, { a: 1 }, [], ['x'], [1, 'y'], '2026-01-02T03:04:05.678Z', 'ROLE_KIND_UNSPECIFIED'];

/** The v1 members a field table renders from, nested tables included (their members are looked up on the same row or below it). */
function members(fields: Readonly<Record<string, FieldSpec>>, into = new Set<string>()): Set<string> {
  for (const [key, spec] of Object.entries(fields)) {
    const source = spec.lookup ? spec.lookup.by : spec.v1 === undefined ? key : spec.v1;
    if (typeof source === 'string' && source !== '.') into.add(source.split('.')[0]!);
    into.add(key);
    if (spec.fields) members(spec.fields, into);
  }
  return into;
}

function randomRow(names: readonly string[], random: () => number): Json {
  // Now and then a row whose members are inherited, not its own: neither road may read them.
  const row: Json = random() < 0.1 ? Object.create(Object.fromEntries(names.map((n) => [n, 'inherited']))) : {};
  for (const name of names) {
    const value = VALUES[Math.floor(random() * VALUES.length)];
    if (value !== undefined) row[name] = value;
  }
  return row;
}

describe('v2PathReader', () => {
  for (const mapping of MAPPINGS) {
    const paths = new Set<string>([
      ...Object.keys(mapping.fields),
      ...Object.values(mapping.filters).flatMap((f) => (f.field ? [f.field] : [])),
      ...mapping.orderBy.fields,
      ...Object.values(mapping.orderBy.aliases ?? {}),
    ]);
    it(`${mapping.name}: reads every filtered, ordered or top-level path as its rendering has it`, () => {
      // A seed of each resource's own, so a failing case replays.
      const random = prng([...mapping.name].reduce((seed, c) => Math.imul(seed, 31) + c.charCodeAt(0), 17));
      const names = [...members(mapping.fields)];
      const readers = [...paths].map((path) => [path, v2PathReader(mapping.fields, path)] as const);
      for (let n = 0; n < 300; n++) {
        const row = randomRow(names, random);
        const rendered = renderV2(mapping.fields, row);
        for (const [path, read] of readers) expect(read(row), `${path} of ${JSON.stringify(row)}`).toEqual(getPath(rendered, path));
      }
    });
  }
});
