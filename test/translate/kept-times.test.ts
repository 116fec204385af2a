/**
 * KeptTimes.lackingIn (src/translate/kept-times.ts) over a scanned v1 list: the rows lacking a time are
 * found from the list's columns (each time's member read for whether it is blank, a dotted source inside
 * its member), and must be exactly the rows found by reading each row whole, whatever the uid and the
 * times hold: absent, null, empty, of another JSON kind, or nested.
 */
import { describe, expect, it } from 'vitest';
import groups from '../../mappings/groups.ts';
import { KeptTimes } from '../../src/translate/kept-times.ts';
import type { TimestampStore } from '../../src/store/types.ts';
import { rowsOfArray, type Json, type RowsByIndex } from '../../src/vocabulary/json.ts';
import type { ResourceMapping } from '../../src/vocabulary/resource.ts';
import { readListAnswer, ScannedRows } from '../../src/v1/list-body.ts';
import { prng } from '../support/prng.ts';

/** Only whether there is a store matters to lackingIn. */
const STORE = {} as TimestampStore;

const VALUES: readonly unknown[] = [undefined, null, '', '2025-01-02T03:04:05.678Z', 0, true, {}, [], { created: '' }, { created: null }, { created: 'x' }, { other: 'x' }];
const UIDS: readonly unknown[] = [undefined, null, '', 7, 'a/b', 'c/d', 'e/f'];

/** Groups, and the same with a time kept from inside a member (`meta.created`) and one v1 never has. */
const MAPPINGS: readonly ResourceMapping[] = [
  groups,
  { ...groups, fields: { uid: { v1: 'id' }, createTime: { v1: 'meta.created', kept: 'createTime' }, updateTime: { v1: null, kept: 'updateTime' } } },
];

/** The rows as a scanned list, its times' members read as a List reads them (with-scanner.ts: blank or not, or whole when dotted). */
function scannedRows(rows: readonly Json[], mapping: ResourceMapping): RowsByIndex {
  const sources = KeptTimes.sources(mapping);
  const values = ['id', ...sources.filter((s) => s.includes('.')).map((s) => s.split('.')[0]!)];
  const presence = sources.filter((s) => !s.includes('.'));
  const items = (readListAnswer(Buffer.from(JSON.stringify({ items: rows })), values, presence) as { items: unknown }).items;
  expect(items).toBeInstanceOf(ScannedRows);
  const scanned = items as ScannedRows;
  return { count: scanned.count, row: (i) => scanned.row(i), column: (name) => scanned.column(name) };
}

describe('KeptTimes.lackingIn', () => {
  for (const mapping of MAPPINGS) {
    it(`${KeptTimes.sources(mapping).join(', ')}: the rows lacking a time read by column are those read row by row`, () => {
      const random = prng(KeptTimes.sources(mapping).join().length);
      const pick = <T>(of: readonly T[]): T => of[Math.floor(random() * of.length)]!;
      const kept = new KeptTimes(STORE);
      for (let n = 0; n < 50; n++) {
        const rows = Array.from({ length: 1 + Math.floor(random() * 40) }, () => {
          const row: Json = {};
          const uid = pick(UIDS);
          if (uid !== undefined) row.id = uid;
          for (const member of ['createdAt', 'updatedAt', 'meta', 'createTime', 'updateTime']) {
            const value = pick(VALUES);
            if (value !== undefined) row[member] = value;
          }
          return row;
        });
        const byRow = kept.lackingIn(mapping, rowsOfArray(rows), 'id');
        expect(kept.lackingIn(mapping, scannedRows(rows, mapping), 'id'), JSON.stringify(rows)).toEqual(byRow);
      }
    });
  }
});
