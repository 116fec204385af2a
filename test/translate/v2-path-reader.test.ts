/**
 * v2PathReader (src/translate/v1-row.ts) reads one v2 path of a v1 row as rendering the row and reading the
 * path would (`getPath(renderV2(fields, row), path)`), for every field of every resource and every path
 * a List filters or orders by. A List runs it on every row of v1's list, and it takes a shorter road for
 * plain string fields; this holds the road to the rendering over seeded rows whose members are missing,
 * null, of every JSON kind, or only inherited.
 */
import { describe, expect, it } from 'vitest';
import { MAPPINGS } from '../../mappings/index.ts';
import { getPath } from '../../src/vocabulary/json.ts';
import { renderV2, v2ColumnReader, v2PathReader } from '../../src/translate/v1-row.ts';
import { readListAnswer, ScannedRows } from '../../src/v1/list-body.ts';
import { prng } from '../support/prng.ts';
import { members, randomRow } from '../support/v1-rows.ts';

/** Every top-level, filtered or ordered path of a mapping: what a List reads off its rows. */
function queriedPaths(mapping: (typeof MAPPINGS)[number]): Set<string> {
  return new Set<string>([
    ...Object.keys(mapping.fields),
    ...Object.values(mapping.filters).flatMap((f) => (f.field ? [f.field] : [])),
    ...mapping.orderBy.fields,
    ...Object.values(mapping.orderBy.aliases ?? {}),
  ]);
}

describe('v2PathReader', () => {
  for (const mapping of MAPPINGS) {
    const paths = queriedPaths(mapping);
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

  for (const mapping of MAPPINGS) {
    const paths = queriedPaths(mapping);
    it(`${mapping.name}: read by column off a scanned list, every path reads as off the row (v2ColumnReader)`, () => {
      const random = prng([...mapping.name].reduce((seed, c) => Math.imul(seed, 37) + c.charCodeAt(0), 23));
      const names = [...members(mapping.fields)];
      // As v1 sends them: JSON, so only own members, and a row read back is what JSON.parse makes of it.
      const rows = Array.from({ length: 300 }, () => JSON.parse(JSON.stringify(randomRow(names, random))) as Record<string, unknown>);
      const scanned = (readListAnswer(Buffer.from(JSON.stringify({ items: rows })), names) as { items: unknown }).items;
      expect(scanned).toBeInstanceOf(ScannedRows);
      const column = (name: string) => (scanned as ScannedRows).column(name);
      // An adjustment that reads the row it adjusts for (as a kept time reads its uid): by index, the same row.
      const marked = (value: unknown, row: unknown) => (value === undefined ? undefined : [value, row]);
      for (const path of paths) {
        const byRow = v2PathReader(mapping.fields, path);
        const byColumn = v2ColumnReader(mapping.fields, path, column);
        const adjustedByRow = v2PathReader(mapping.fields, path, (_spec, value, v1) => marked(value, JSON.stringify(v1)));
        const adjustedByColumn = v2ColumnReader(mapping.fields, path, column, (_spec, value, at) => marked(value, JSON.stringify(rows[at])));
        // A path read from the whole row has no column to read from.
        if (byColumn === undefined || adjustedByColumn === undefined) continue;
        for (let at = 0; at < rows.length; at++) {
          expect(byColumn(at), `${path} of ${JSON.stringify(rows[at])}`).toEqual(byRow(rows[at]!));
          expect(adjustedByColumn(at), `${path} of ${JSON.stringify(rows[at])}, adjusted`).toEqual(adjustedByRow(rows[at]!));
        }
      }
    });
  }
});
