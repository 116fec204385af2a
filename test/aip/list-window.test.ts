import { describe, it, expect } from 'vitest';
import { compareKeys, sortKey, windowCarried, windowRows, windowUnordered, type CutWindow, type Keyed, type ReadField, type RowsChanged, type Window } from '../../src/aip/list-window.ts';
import { parseOrderBy, type OrderKey } from '../../src/aip/order-by.ts';
import { PageTokenCodec, pageTokenKey, type PageCursor } from '../../src/aip/page-token.ts';
import { ORDER_BY_NAME_AND_TIME } from '../../mappings/common.ts';
import { prng } from '../support/prng.ts';

interface Row {
  uid: string;
  name?: string | null;
  createTime?: string | null;
}

const read: ReadField<Row> = (row, field) => (row as unknown as Record<string, unknown>)[field];
const order = (text?: string) => parseOrderBy(text, ORDER_BY_NAME_AND_TIME);
const uids = (rows: readonly Row[]) => rows.map((r) => r.uid);


/** A cursor as it comes back from a token: JSON in, JSON out. */
const viaJson = (cursor: PageCursor): PageCursor => JSON.parse(JSON.stringify(cursor)) as PageCursor;

/** Follows `next` from the first page to the last, with no changes in between. */
function walk(rows: readonly Row[], orderKeys: readonly OrderKey[], pageSize: number, skip = 0): Window<Row>[] {
  const pages: Window<Row>[] = [];
  let cursor: PageCursor | undefined;
  for (let i = 0; i < 1000; i++) {
    const w = windowRows(rows, { order: orderKeys, pageSize, skip, cursor }, read);
    pages.push(w);
    if (!w.next) return pages;
    cursor = viaJson(w.next);
  }
  throw new Error('pagination did not terminate');
}

// 12 rows: names with ties, uids deliberately not in name order.
const ROWS: Row[] = [
  { uid: 'u07', name: 'bravo', createTime: '2024-01-07T00:00:00.000Z' },
  { uid: 'u03', name: 'alpha', createTime: '2024-01-03T00:00:00.000Z' },
  { uid: 'u11', name: 'charlie', createTime: '2024-01-11T00:00:00.000Z' },
  { uid: 'u01', name: 'bravo', createTime: '2024-01-01T00:00:00.000Z' },
  { uid: 'u05', name: 'alpha', createTime: '2024-01-05T00:00:00.000Z' },
  { uid: 'u09', name: 'delta', createTime: '2024-01-09T00:00:00.000Z' },
  { uid: 'u02', name: 'charlie', createTime: '2024-01-02T00:00:00.000Z' },
  { uid: 'u12', name: 'alpha', createTime: '2024-01-12T00:00:00.000Z' },
  { uid: 'u04', name: 'echo', createTime: '2024-01-04T00:00:00.000Z' },
  { uid: 'u10', name: 'bravo', createTime: '2024-01-10T00:00:00.000Z' },
  { uid: 'u06', name: 'delta', createTime: '2024-01-06T00:00:00.000Z' },
  { uid: 'u08', name: 'echo', createTime: '2024-01-08T00:00:00.000Z' },
];
const BY_NAME_ASC = ['u03', 'u05', 'u12', 'u01', 'u07', 'u10', 'u02', 'u11', 'u06', 'u09', 'u04', 'u08'];
const BY_NAME_DESC = ['u04', 'u08', 'u06', 'u09', 'u02', 'u11', 'u01', 'u07', 'u10', 'u03', 'u05', 'u12'];

describe('windowRows ordering', () => {
  it('orders by uid ascending by default', () => {
    const w = windowRows(ROWS, { order: order(undefined), pageSize: 100, skip: 0 }, read);
    expect(uids(w.page)).toEqual([...uids(ROWS)].sort());
  });

  it('orders by name ascending, ties broken by uid ascending', () => {
    expect(uids(windowRows(ROWS, { order: order('name'), pageSize: 100, skip: 0 }, read).page)).toEqual(BY_NAME_ASC);
  });

  it('orders by name descending, ties still broken by uid ascending', () => {
    expect(uids(windowRows(ROWS, { order: order('name desc'), pageSize: 100, skip: 0 }, read).page)).toEqual(BY_NAME_DESC);
  });

  it('orders by uid descending when asked', () => {
    expect(uids(windowRows(ROWS, { order: order('uid desc'), pageSize: 100, skip: 0 }, read).page)).toEqual([...uids(ROWS)].sort().reverse());
  });

  it('orders `created_at desc` newest first', () => {
    const w = windowRows(ROWS, { order: order('created_at desc'), pageSize: 100, skip: 0 }, read);
    expect(uids(w.page)).toEqual(['u12', 'u11', 'u10', 'u09', 'u08', 'u07', 'u06', 'u05', 'u04', 'u03', 'u02', 'u01']);
  });

  it('orders by several keys', () => {
    const w = windowRows(ROWS, { order: order('name desc, created_at desc'), pageSize: 100, skip: 0 }, read);
    expect(uids(w.page)).toEqual(['u08', 'u04', 'u09', 'u06', 'u11', 'u02', 'u10', 'u07', 'u01', 'u12', 'u05', 'u03']);
  });

  it('sorts null and absent values first ascending, last descending', () => {
    const rows: Row[] = [
      { uid: 'c', name: 'x' },
      { uid: 'b' },
      { uid: 'e', name: '' },
      { uid: 'a', name: null },
      { uid: 'd', name: 'A' },
    ];
    expect(uids(windowRows(rows, { order: order('name'), pageSize: 10, skip: 0 }, read).page)).toEqual(['a', 'b', 'e', 'd', 'c']);
    expect(uids(windowRows(rows, { order: order('name desc'), pageSize: 10, skip: 0 }, read).page)).toEqual(['c', 'd', 'e', 'a', 'b']);
  });

  it('does not reorder the caller\'s array', () => {
    const copy = [...ROWS];
    windowRows(copy, { order: order('name'), pageSize: 5, skip: 0 }, read);
    expect(copy).toEqual(ROWS);
  });
});

describe('windowRows pages', () => {
  it('takes page_size rows and reports the total across pages', () => {
    const w = windowRows(ROWS, { order: order('name'), pageSize: 5, skip: 0 }, read);
    expect(uids(w.page)).toEqual(BY_NAME_ASC.slice(0, 5));
    expect(w.total).toBe(12);
    expect(w.skipped).toBe(0);
    expect(w.next).toBeDefined();
  });

  it('walks every row exactly once, in order, with `next` absent exactly on the last page', () => {
    for (const pageSize of [1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 200]) {
      const pages = walk(ROWS, order('name'), pageSize);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(ROWS.length / pageSize)));
      pages.forEach((p, i) => {
        expect(p.next === undefined).toBe(i === pages.length - 1);
        expect(p.total).toBe(12);
        if (i < pages.length - 1) expect(p.page).toHaveLength(pageSize);
      });
      expect(pages.flatMap((p) => uids(p.page))).toEqual(BY_NAME_ASC);
    }
  });

  it('has no `next` when the last page is exactly full', () => {
    const pages = walk(ROWS, order('name'), 6);
    expect(pages).toHaveLength(2);
    expect(pages[1]!.page).toHaveLength(6);
    expect(pages[1]!.next).toBeUndefined();
  });

  it('answers an empty list with one empty last page', () => {
    const w = windowRows([] as Row[], { order: order('name'), pageSize: 10, skip: 0 }, read);
    expect(w).toEqual({ page: [], total: 0, skipped: 0 });
    expect('next' in w).toBe(false);
  });

  it('the cursor is the sort key of the last row served (uid last)', () => {
    const w = windowRows(ROWS, { order: order('name desc'), pageSize: 3, skip: 0 }, read);
    expect(w.next).toEqual({ after: ['delta', 'u06'], skipped: 0 });
  });

  it('resumes after a cursor even when that row no longer exists', () => {
    const first = windowRows(ROWS, { order: order('name'), pageSize: 4, skip: 0 }, read);
    expect(uids(first.page)).toEqual(['u03', 'u05', 'u12', 'u01']);
    const without = ROWS.filter((r) => r.uid !== 'u01' && r.uid !== 'u07');
    const second = windowRows(without, { order: order('name'), pageSize: 4, skip: 0, cursor: viaJson(first.next!) }, read);
    expect(uids(second.page)).toEqual(['u10', 'u02', 'u11', 'u06']);
    expect(second.total).toBe(10);
  });

  it('a row inserted before the cursor is not served; one inserted after it is', () => {
    const first = windowRows(ROWS, { order: order('name'), pageSize: 4, skip: 0 }, read);
    const grown = [...ROWS, { uid: 'u00', name: 'aardvark' }, { uid: 'u99', name: 'bravo' }];
    const rest = walk(grown, order('name'), 100);
    expect(rest[0]!.total).toBe(14);
    const second = windowRows(grown, { order: order('name'), pageSize: 100, skip: 0, cursor: first.next }, read);
    expect(uids(second.page)).toEqual(['u07', 'u10', 'u99', 'u02', 'u11', 'u06', 'u09', 'u04', 'u08']);
  });

  it('a cursor past the end answers an empty last page', () => {
    const w = windowRows(ROWS, { order: order('name'), pageSize: 5, skip: 0, cursor: { after: ['zzz', 'u99'], skipped: 0 } }, read);
    expect(w.page).toEqual([]);
    expect(w.next).toBeUndefined();
    expect(w.total).toBe(12);
  });
});

describe('windowRows skip', () => {
  it('omits the first N rows (after ordering) and echoes N as skipped', () => {
    const w = windowRows(ROWS, { order: order('name'), pageSize: 3, skip: 4 }, read);
    expect(uids(w.page)).toEqual(BY_NAME_ASC.slice(4, 7));
    expect(w.skipped).toBe(4);
    expect(w.total).toBe(12);
    expect(w.next).toEqual({ after: ['charlie', 'u02'], skipped: 4 });
  });

  it('a page with fewer than page_size rows left holds only the remainder, and is the last', () => {
    const w = windowRows(ROWS, { order: order('name'), pageSize: 5, skip: 9 }, read);
    expect(uids(w.page)).toEqual(BY_NAME_ASC.slice(9));
    expect(w.next).toBeUndefined();
  });

  it('skipping everything answers an empty last page with the total intact', () => {
    for (const skip of [12, 13, 1000]) {
      const w = windowRows(ROWS, { order: order('name'), pageSize: 5, skip }, read);
      expect(w.page).toEqual([]);
      expect(w.next).toBeUndefined();
      expect(w.total).toBe(12);
      expect(w.skipped).toBe(skip);
    }
  });

  it('skipped accumulates across pages when skip is re-sent with each token', () => {
    const pages = walk(ROWS, order('name'), 3, 1);
    // page 1: skip 1 → rows 1..3; page 2: after row 3, skip 1 → rows 5..7; page 3: after row 7, skip 1 → rows 9..11.
    expect(pages.map((p) => uids(p.page))).toEqual([
      BY_NAME_ASC.slice(1, 4),
      BY_NAME_ASC.slice(5, 8),
      BY_NAME_ASC.slice(9, 12),
    ]);
    expect(pages.map((p) => p.skipped)).toEqual([1, 2, 3]);
    expect(pages.map((p) => p.next?.skipped)).toEqual([1, 2, undefined]);
  });

  it('a token with skip 0 after a skipping first page keeps the earlier count', () => {
    const first = windowRows(ROWS, { order: order('name'), pageSize: 2, skip: 5 }, read);
    const second = windowRows(ROWS, { order: order('name'), pageSize: 2, skip: 0, cursor: viaJson(first.next!) }, read);
    expect(uids(second.page)).toEqual(BY_NAME_ASC.slice(7, 9));
    expect(second.skipped).toBe(5);
  });
});

describe('windowRows with page tokens', () => {
  it('walks all pages through sealed and opened tokens', () => {
    const codec = new PageTokenCodec(pageTokenKey('list window test key'));
    const keys = order('created_at desc');
    const seen: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 20; i++) {
      const cursor = token ? codec.open(token, 'fp') : undefined;
      const w = windowRows(ROWS, { order: keys, pageSize: 5, skip: 0, cursor }, read);
      seen.push(...uids(w.page));
      if (!w.next) break;
      token = codec.seal('fp', w.next);
    }
    expect(seen).toEqual(['u12', 'u11', 'u10', 'u09', 'u08', 'u07', 'u06', 'u05', 'u04', 'u03', 'u02', 'u01']);
  });
});

describe('sortKey and compareKeys', () => {
  it('reads the order fields in order, absent as null', () => {
    expect(sortKey({ uid: 'x', name: 'n' }, order('created_at desc, name'), read)).toEqual([null, 'n', 'x']);
  });

  it('applies each key\'s direction', () => {
    const keys = order('name desc');
    expect(Math.sign(compareKeys(['a', 'u1'], ['b', 'u1'], keys))).toBe(1);
    expect(Math.sign(compareKeys(['a', 'u1'], ['a', 'u2'], keys))).toBe(-1);
    expect(compareKeys(['a', 'u1'], ['a', 'u1'], keys)).toBe(0);
  });
});

describe('keyset property: changes between pages never repeat or lose a surviving row', () => {
  const NAMES = ['alpha', 'bravo', 'charlie', 'delta', null, 'Alpha', 'b'];
  const ORDERS = ['name', 'name desc', 'uid', 'uid desc', 'created_at desc', 'name desc, created_at', 'createTime, name desc'];

  function randomRow(rand: () => number, uid: string): Row {
    const row: Row = { uid };
    const name = NAMES[Math.floor(rand() * NAMES.length)];
    if (name !== null || rand() < 0.5) row.name = name; // sometimes absent, sometimes null
    // few distinct times, so ties are common
    if (rand() < 0.85) row.createTime = `2024-01-0${1 + Math.floor(rand() * 4)}T00:00:00.000Z`;
    return row;
  }

  it('holds for 300 seeded random runs', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = prng(seed);
      const orderKeys = order(ORDERS[seed % ORDERS.length]);
      const pageSize = 1 + Math.floor(rand() * 7);
      let nextUid = 0;
      const freshUid = () => `r${String(Math.floor(rand() * 1e6)).padStart(6, '0')}-${nextUid++}`;

      let rows: Row[] = Array.from({ length: Math.floor(rand() * 40) }, () => randomRow(rand, freshUid()));
      const initial = new Set(uids(rows));
      const deleted = new Set<string>();
      const served: Row[] = [];
      const servedCount = new Map<string, number>();

      let cursor: PageCursor | undefined;
      let pages = 0;
      for (;;) {
        const w = windowRows(rows, { order: orderKeys, pageSize, skip: 0, cursor }, read);
        pages++;
        expect(w.total).toBe(rows.length);
        expect(w.page.length).toBeLessThanOrEqual(pageSize);
        if (w.next) expect(w.page).toHaveLength(pageSize);
        for (const row of w.page) {
          served.push(row);
          servedCount.set(row.uid, (servedCount.get(row.uid) ?? 0) + 1);
        }
        if (!w.next) break;
        if (pages > 500) throw new Error(`seed ${seed}: pagination did not terminate`);
        cursor = viaJson(w.next);

        // Mutate between pages (only for a while, so the walk ends): delete some rows, insert others.
        if (pages < 30) {
          const deletions = Math.floor(rand() * 3);
          for (let d = 0; d < deletions && rows.length > 0; d++) {
            const victim = rows[Math.floor(rand() * rows.length)]!;
            deleted.add(victim.uid);
            rows = rows.filter((r) => r !== victim);
          }
          const insertions = Math.floor(rand() * 3);
          for (let n = 0; n < insertions; n++) rows.push(randomRow(rand, freshUid()));
        }
      }

      // Every row present from the first page to the last appears exactly once.
      for (const uid of initial) {
        if (!deleted.has(uid)) expect(servedCount.get(uid), `seed ${seed}: ${uid}`).toBe(1);
      }
      // No row, inserted or deleted, ever appears twice.
      for (const [uid, count] of servedCount) expect(count, `seed ${seed}: ${uid} served ${count} times`).toBe(1);
      // The concatenation of all pages is strictly increasing in the requested order.
      for (let i = 1; i < served.length; i++) {
        const prev = sortKey(served[i - 1]!, orderKeys, read);
        const cur = sortKey(served[i]!, orderKeys, read);
        expect(compareKeys(prev, cur, orderKeys), `seed ${seed} at ${i}`).toBeLessThan(0);
      }
    }
  });

  it('without changes, a random walk serves exactly the sorted rows (seeded)', () => {
    for (let seed = 1000; seed < 1100; seed++) {
      const rand = prng(seed);
      const orderKeys = order(ORDERS[seed % ORDERS.length]);
      const rows = Array.from({ length: Math.floor(rand() * 30) }, (_, i) => randomRow(rand, `id${String(i).padStart(3, '0')}`));
      const pageSize = 1 + Math.floor(rand() * 9);
      const all = windowRows(rows, { order: orderKeys, pageSize: 10_000, skip: 0 }, read);
      expect(walk(rows, orderKeys, pageSize).flatMap((p) => uids(p.page))).toEqual(uids(all.page));
    }
  });
});

describe('windowUnordered: the same window as sorting first, without sorting every row', () => {
  const keyedRows = (rows: readonly Row[], orderKeys: readonly OrderKey[]): Keyed<Row>[] => rows.map((row) => ({ row, key: sortKey(row, orderKeys, read) }));
  /** windowUnordered's page as rows, to compare with windowRows (the sort-first oracle). */
  const unordered = (rows: readonly Row[], request: Parameters<typeof windowRows<Row>>[1]): Window<Row> => {
    const { after: _after, ...w } = windowUnordered(keyedRows(rows, request.order), request);
    return { ...w, page: w.page.map((k) => k.row) };
  };

  it('takes the first page by name, ties broken by uid, with its cursor and total', () => {
    const w = unordered(ROWS, { order: order('name'), pageSize: 5, skip: 0 });
    expect(uids(w.page)).toEqual(BY_NAME_ASC.slice(0, 5));
    expect(w.total).toBe(12);
    expect(w.next).toEqual({ after: ['bravo', 'u07'], skipped: 0 });
  });

  it('takes a descending page', () => {
    expect(uids(unordered(ROWS, { order: order('name desc'), pageSize: 4, skip: 0 }).page)).toEqual(BY_NAME_DESC.slice(0, 4));
    expect(uids(unordered(ROWS, { order: order('uid desc'), pageSize: 3, skip: 0 }).page)).toEqual(['u12', 'u11', 'u10']);
  });

  it('resumes strictly after the cursor: the row at a page boundary is neither repeated nor dropped', () => {
    for (const text of ['name', 'name desc', 'uid desc', 'created_at desc, name']) {
      for (const pageSize of [1, 2, 5, 11, 12, 13]) {
        const served: string[] = [];
        let cursor: PageCursor | undefined;
        for (let i = 0; i < 100; i++) {
          const w = unordered(ROWS, { order: order(text), pageSize, skip: 0, cursor });
          served.push(...uids(w.page));
          if (!w.next) break;
          cursor = viaJson(w.next);
        }
        expect(served, `${text}, page_size ${pageSize}`).toEqual(uids(windowRows(ROWS, { order: order(text), pageSize: 100, skip: 0 }, read).page));
      }
    }
  });

  it('has no next when the last page is exactly full, and answers an empty page past the end', () => {
    const first = unordered(ROWS, { order: order('name'), pageSize: 6, skip: 0 });
    const last = unordered(ROWS, { order: order('name'), pageSize: 6, skip: 0, cursor: first.next });
    expect(uids(last.page)).toEqual(BY_NAME_ASC.slice(6));
    expect(last.next).toBeUndefined();
    expect(unordered(ROWS, { order: order('name'), pageSize: 6, skip: 0, cursor: { after: ['zzz', 'u99'], skipped: 0 } })).toEqual({ page: [], total: 12, skipped: 0 });
  });

  it('keeps rows with equal keys in their input order, as the stable sort does', () => {
    const twins: Row[] = [{ uid: 'b', name: 'x' }, { uid: 'a', name: 'x' }, { uid: 'a', name: 'x' }, { uid: 'c', name: 'x' }, { uid: 'a', name: 'x' }];
    const w = windowUnordered(keyedRows(twins, order('name')), { order: order('name'), pageSize: 2, skip: 0 });
    expect(w.page.map((k) => twins.indexOf(k.row))).toEqual([1, 2]);
  });

  it('equals windowRows for 1,000 seeded random lists, orders, page sizes, skips and cursors (ties common)', () => {
    const NAMES = ['alpha', 'bravo', null, 'Alpha', 'b'];
    const ORDERS = ['name', 'name desc', 'uid', 'uid desc', 'created_at desc', 'name desc, created_at', 'createTime, name desc'];
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = prng(seed);
      const orderKeys = order(ORDERS[seed % ORDERS.length]);
      const rows: Row[] = Array.from({ length: Math.floor(rand() * 80) }, (_, i) => {
        const row: Row = { uid: `u${String(Math.floor(rand() * 40)).padStart(2, '0')}-${i % 3}` };
        const name = NAMES[Math.floor(rand() * NAMES.length)];
        if (name !== null || rand() < 0.5) row.name = name;
        if (rand() < 0.8) row.createTime = `2024-01-0${1 + Math.floor(rand() * 3)}T00:00:00.000Z`;
        return row;
      });
      const pageSize = 1 + Math.floor(rand() * 12);
      const skip = rand() < 0.3 ? Math.floor(rand() * 20) : 0;
      // A cursor at a row's own key (a page boundary), between keys, or none.
      const at = rows[Math.floor(rand() * rows.length)];
      const cursor = at && rand() < 0.7 ? { after: sortKey(at, orderKeys, read), skipped: 1 } : undefined;
      const request = { order: orderKeys, pageSize, skip, cursor };
      expect(unordered(rows, request), `seed ${seed}`).toEqual(windowRows(rows, request, read));
      // `after` counts every row after the cursor, skipped or paged or not.
      const after = windowRows(rows, { order: orderKeys, pageSize: 10_000, skip: 0, cursor }, read).page.length;
      expect(windowUnordered(keyedRows(rows, orderKeys), request).after, `seed ${seed}`).toBe(after);
    }
  });
});

describe('windowCarried: the window after some rows changed, from the window before', () => {
  type Entry = Keyed<Row> & { at: number };
  const NAMES = ['alpha', 'bravo', null, 'Alpha', 'b'];
  const ORDERS = ['name', 'name desc', 'uid', 'uid desc', 'created_at desc', 'name desc, created_at'];

  function randomRow(rand: () => number, i: number): Row {
    const row: Row = { uid: `u${String(Math.floor(rand() * 60)).padStart(2, '0')}-${i % 3}` };
    const name = NAMES[Math.floor(rand() * NAMES.length)];
    if (name !== null || rand() < 0.5) row.name = name;
    if (rand() < 0.8) row.createTime = `2024-01-0${1 + Math.floor(rand() * 3)}T00:00:00.000Z`;
    return row;
  }

  /** The entries of the rows that match (a filter drops about one in five), in row order, as a List keeps them. */
  function entriesOf(rows: readonly Row[], orderKeys: readonly OrderKey[], matches: (row: Row) => boolean): Entry[] {
    const entries: Entry[] = [];
    rows.forEach((row, at) => {
      if (matches(row)) entries.push({ row, key: sortKey(row, orderKeys, read), at });
    });
    return entries;
  }

  /** `rows` with `count` rows from `same` replaced by `added`, and what became of the earlier entries. */
  function change(before: readonly Entry[], after: readonly Entry[], same: number, count: number, added: number): RowsChanged<Entry> {
    const shift = added - count;
    const byAt = new Map(after.map((entry) => [entry.at, entry]));
    return {
      removed: before.filter((e) => e.at >= same && e.at < same + count),
      added: after.filter((e) => e.at >= same && e.at < same + added),
      now: (e) => (e.at < same ? byAt.get(e.at) : e.at >= same + count ? byAt.get(e.at + shift) : undefined),
    };
  }

  it('equals windowUnordered over the changed rows, change after change, for 1,000 seeded lists, whenever it answers', () => {
    let answered = 0;
    let declined = 0;
    for (let seed = 1; seed <= 1000; seed++) {
      const rand = prng(seed);
      const orderKeys = order(ORDERS[seed % ORDERS.length]);
      const matches = (row: Row): boolean => !row.uid.startsWith('u1');
      let rows: Row[] = Array.from({ length: Math.floor(rand() * 60) }, (_, i) => randomRow(rand, i));
      const pageSize = 1 + Math.floor(rand() * 12);
      const skip = rand() < 0.1 ? 1 + Math.floor(rand() * 5) : 0;
      const at = rows[Math.floor(rand() * rows.length)];
      const cursor = at && rand() < 0.5 ? { after: sortKey(at, orderKeys, read), skipped: 2 } : undefined;
      const request = { order: orderKeys, pageSize, skip, cursor };
      let entries = entriesOf(rows, orderKeys, matches);
      let window: CutWindow<Entry> = windowUnordered(entries, request);
      for (let step = 0; step < 4; step++) {
        const same = Math.floor(rand() * (rows.length + 1));
        const count = Math.min(rows.length - same, Math.floor(rand() * 3));
        const fresh = Array.from({ length: Math.floor(rand() * 3) }, (_, i) => randomRow(rand, 100 + step * 10 + i));
        const next = [...rows.slice(0, same), ...fresh, ...rows.slice(same + count)];
        const nextEntries = entriesOf(next, orderKeys, matches);
        const expected = windowUnordered(nextEntries, request);
        const carried = windowCarried(window, change(entries, nextEntries, same, count, fresh.length), nextEntries.length, request);
        if (carried) {
          answered++;
          expect(carried, `seed ${seed}, step ${step}`).toEqual(expected);
        } else {
          declined++;
          // It declines only when it must: the request skips, or a row of the earlier page went.
          const gone = window.page.some((e) => e.at >= same && e.at < same + count);
          expect(skip > 0 || gone, `seed ${seed}, step ${step}: declined without cause`).toBe(true);
        }
        rows = next;
        entries = nextEntries;
        window = carried ?? expected;
      }
    }
    // Most changes miss the page: the carried window is the common case, not the exception.
    expect(answered).toBeGreaterThan(declined * 2);
  });

  it('a row of the earlier page changed: declines, since the row after the page is not known', () => {
    const entries = entriesOf(ROWS, order('name'), () => true);
    const earlier = windowUnordered(entries, { order: order('name'), pageSize: 3, skip: 0 });
    const first = earlier.page[0]!.at;
    const changed = change(entries, entries, first, 1, 1);
    expect(windowCarried(earlier, changed, entries.length, { order: order('name'), pageSize: 3, skip: 0 })).toBeUndefined();
  });

  it('a row added ahead of the page moves into it, and the last row of the page moves out', () => {
    const request = { order: order('name'), pageSize: 3, skip: 0 };
    const entries = entriesOf(ROWS, order('name'), () => true);
    const earlier = windowUnordered(entries, request);
    expect(uids(earlier.page.map((e) => e.row))).toEqual(['u03', 'u05', 'u12']);
    const rows = [...ROWS, { uid: 'u00', name: 'alpha' }];
    const now = entriesOf(rows, order('name'), () => true);
    const carried = windowCarried(earlier, change(entries, now, ROWS.length, 0, 1), now.length, request)!;
    expect(uids(carried.page.map((e) => e.row))).toEqual(['u00', 'u03', 'u05']);
    expect(carried.total).toBe(13);
    expect(carried.after).toBe(13);
    expect(carried.next).toEqual({ after: ['alpha', 'u05'], skipped: 0 });
  });
});
