/**
 * renderV2 runs a renderer generated per field table (src/translate/compiled-render.ts). It must render every
 * row exactly as the field specs say, which renderV2BySpec works out field by field: the same members, the
 * same values, in the same order (the order is the JSON a client reads). Held over every field table of
 * every resource, nested ones included, on seeded rows whose members are missing, null, of every JSON kind,
 * the table's own enum names, or only inherited; and on v1 values that are not objects at all.
 */
import { describe, expect, it } from 'vitest';
import { MAPPINGS } from '../../mappings/index.ts';
import type { FieldSpec } from '../../src/vocabulary/resource.ts';
import { renderV2, renderV2BySpec } from '../../src/translate/v1-row.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { prng } from '../support/prng.ts';
import { members, randomRow, VALUES } from '../support/v1-rows.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

/** A table and every table nested in it, each with a name to report. */
function tables(fields: Fields, name: string, into: Array<[string, Fields]> = []): Array<[string, Fields]> {
  into.push([name, fields]);
  for (const [key, spec] of Object.entries(fields)) if (spec.fields) tables(spec.fields, `${name}.${key}`, into);
  return into;
}

/** The v1 enum names a table knows: without them, rows would only ever hold unknown names. */
function enumNames(fields: Fields): string[] {
  return Object.values(fields).flatMap((spec) => [...Object.keys(spec.enum?.v1ToV2 ?? {}), ...(spec.fields ? enumNames(spec.fields) : [])]);
}

/** Two renderings alike, down to the order of their members at every level. */
function expectSame(compiled: unknown, reference: unknown, what: string): void {
  expect(compiled, what).toEqual(reference);
  expect(JSON.stringify(compiled), what).toBe(JSON.stringify(reference));
}

describe('the compiled renderers', () => {
  for (const mapping of MAPPINGS) {
    it(`${mapping.name}: render every table as its specs say`, () => {
      const random = prng([...mapping.name].reduce((seed, c) => Math.imul(seed, 37) + c.charCodeAt(0), 23));
      for (const [name, fields] of tables(mapping.fields, mapping.name)) {
        const names = [...members(fields)];
        const values = [...VALUES, ...enumNames(fields), 'toString', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.123456789+02:00', 'not a time', 12345678901234, '-3'];
        for (let n = 0; n < 300; n++) {
          const row = randomRow(names, random, values);
          expectSame(renderV2(fields, row), renderV2BySpec(fields, row), `${name} of ${JSON.stringify(row)}`);
        }
        for (const notAnObject of [null, [], ['x'], 'row', 7] as unknown[]) {
          expectSame(renderV2(fields, notAnObject as Json), renderV2BySpec(fields, notAnObject as Json), `${name} of ${JSON.stringify(notAnObject)}`);
        }
      }
    });
  }

  it('gives every row its own zero map, so changing one rendering changes no other', () => {
    const mapping = MAPPINGS.find((m) => Object.values(m.fields).some((spec) => spec.type === 'map' && !spec.repeated))!;
    const [key] = Object.entries(mapping.fields).find(([, spec]) => spec.type === 'map' && !spec.repeated)!;
    const first = renderV2(mapping.fields, {});
    (first[key] as Json).changed = true;
    expect(renderV2(mapping.fields, {})[key]).toEqual({});
  });
});
