import { describe, expect, it } from 'vitest';
import { carriedOver, keptWith, rowValues, sinceEarlier, VALUES_PER_READING } from '../../src/translate/reading-memo.ts';
import { parseOrderBy } from '../../src/aip/order-by.ts';
import { windowCarried, windowUnordered } from '../../src/aip/list-window.ts';
import { readListAnswer, rereadListAnswer, type ScannedRows } from '../../src/v1/list-body.ts';
import { prng } from '../support/prng.ts';

describe('keptWith', () => {
  it('makes a value once per reading and key', () => {
    const reading = {};
    let made = 0;
    const make = () => ({ made: ++made });
    const first = keptWith(reading, 'a', make);
    expect(keptWith(reading, 'a', make)).toBe(first);
    expect(keptWith(reading, 'b', make)).toEqual({ made: 2 });
    // Another reading keeps its own, whatever the key.
    expect(keptWith({}, 'a', make)).toEqual({ made: 3 });
  });

  it('keeps a bounded number per reading, dropping the least recently used', () => {
    const reading = {};
    let made = 0;
    const make = () => ++made;
    for (let i = 0; i < VALUES_PER_READING; i++) keptWith(reading, `k${i}`, make);
    // k0 used again: k1 is now the least recently used, and goes when one more is kept.
    expect(keptWith(reading, 'k0', make)).toBe(1);
    keptWith(reading, 'new', make);
    expect(keptWith(reading, 'k0', make)).toBe(1);
    const before = made;
    expect(keptWith(reading, 'k1', make)).toBe(before + 1);
  });
});

describe('carriedOver', () => {
  /** Entries for the rows of a reading: every row whose id is not odd-looking, with its index. */
  const entriesOf = (partial: Array<Record<string, unknown>>) =>
    partial.flatMap((row, at) => (String(row.id).endsWith('x') ? [] : [{ id: String(row.id), at }]));

  it('gives what working out every row again gives, working out only the rows read anew (seeded)', () => {
    let carried = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const next = prng(seed);
      const row = () => ({ id: `${Math.floor(next() * 1e6)}${next() < 0.3 ? 'x' : ''}` });
      const rows = Array.from({ length: Math.floor(next() * 15) }, row);
      const edited = [...rows];
      const at = Math.floor(next() * (rows.length + 1));
      const edit = Math.floor(next() * 3);
      if (edit === 0 && at < rows.length) edited[at] = row();
      else if (edit === 1) edited.splice(at, 0, row(), row());
      else if (at < rows.length) edited.splice(at, 1);
      const before = readListAnswer(Buffer.from(JSON.stringify({ items: rows })), ['id']) as { items: ScannedRows };
      const after = rereadListAnswer(Buffer.from(JSON.stringify({ items: rows })), before, Buffer.from(JSON.stringify({ items: edited })), ['id']) as { items: ScannedRows } | undefined;
      if (!after) continue;
      keptWith(before.items, 'ids', () => entriesOf(before.items.partial));
      const made: number[] = [];
      const result = carriedOver<{ id: string; at: number }>(after.items, 'ids', (i, into) => {
        made.push(i);
        into.push(...entriesOf(after.items.partial).filter((e) => e.at === i));
      }, (entry, i) => ({ ...entry, at: i }));
      expect(result, `seed ${seed}`).toEqual(entriesOf(after.items.partial));
      // Only the rows between the earlier rows kept at either end were worked out.
      expect(made.length, `seed ${seed}`).toBeLessThanOrEqual(Math.max(0, edited.length - Math.min(rows.length, edited.length)) + 2);
      carried++;
    }
    expect(carried).toBeGreaterThan(100);
  });

  it('gives nothing for a reading not made from an earlier one, or when nothing was kept for that one', () => {
    const bytes = Buffer.from(JSON.stringify({ items: [{ id: 'a' }, { id: 'b' }] }));
    const first = readListAnswer(bytes, ['id']) as { items: ScannedRows };
    expect(carriedOver(first.items, 'ids', () => {}, (e: { at: number }) => e)).toBeUndefined();
    const second = rereadListAnswer(bytes, first, Buffer.from(JSON.stringify({ items: [{ id: 'a' }, { id: 'c' }] })), ['id']) as { items: ScannedRows };
    expect(carriedOver(second.items, 'not kept', () => {}, (e: { at: number }) => e)).toBeUndefined();
  });
});

describe('sinceEarlier', () => {
  type Entry = { id: string; key: unknown[]; at: number };
  /** Entries for the rows of a reading: every row whose id is not odd-looking, keyed by id, with its index. */
  const entriesOf = (partial: Array<Record<string, unknown>>): Entry[] =>
    partial.flatMap((row, at) => (String(row.id).endsWith('x') ? [] : [{ id: String(row.id), key: [String(row.id)], at }]));
  const order = parseOrderBy(undefined, { fields: [] });

  it('splits the earlier entries into those still there (each with its entry now) and those removed, and finds those added (seeded)', () => {
    let changed = 0;
    let carried = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const next = prng(seed);
      const row = () => ({ id: `${String(Math.floor(next() * 1e6)).padStart(6, '0')}${next() < 0.3 ? 'x' : ''}` });
      const rows = Array.from({ length: Math.floor(next() * 40) }, row);
      const edited = [...rows];
      for (let edits = 1 + Math.floor(next() * 2); edits > 0; edits--) {
        const at = Math.floor(next() * (edited.length + 1));
        const edit = Math.floor(next() * 3);
        if (edit === 0 && at < edited.length) edited[at] = row();
        else if (edit === 1) edited.splice(at, 0, row());
        else if (at < edited.length) edited.splice(at, 1);
      }
      const bytes = Buffer.from(JSON.stringify({ items: rows }));
      const before = readListAnswer(bytes, ['id']) as { items: ScannedRows };
      const after = rereadListAnswer(bytes, before, Buffer.from(JSON.stringify({ items: edited })), ['id']) as { items: ScannedRows } | undefined;
      if (!after) continue;
      const earlierEntries = keptWith(before.items, 'keyed', () => entriesOf(before.items.partial));
      const request = { order, pageSize: 1 + Math.floor(next() * 8), skip: 0 };
      keptWith(before.items, 'window', () => windowUnordered(earlierEntries, request));
      const entries = entriesOf(after.items.partial);
      const since = sinceEarlier<ReturnType<typeof windowUnordered<Entry>>, Entry>(after.items, 'window', 'keyed', entries)!;
      expect(since, `seed ${seed}`).toBeDefined();
      const { removed, added, now } = since.changed;
      // Every earlier entry is either still there, as the same row, or removed; never both.
      const kept = earlierEntries.filter((e) => now(e) !== undefined);
      for (const e of kept) expect(now(e)!.id, `seed ${seed}`).toBe(e.id);
      expect(kept.length + removed.length, `seed ${seed}`).toBe(earlierEntries.length);
      for (const e of removed) expect(now(e), `seed ${seed}`).toBeUndefined();
      // The entries now are those still there and those added, each once, in row order.
      expect([...kept.map((e) => now(e)!), ...added].sort((a, b) => a.at - b.at), `seed ${seed}`).toEqual(entries);
      if (removed.length + added.length > 0) changed++;
      // And the window cut from the earlier one is the one cut afresh.
      const window = windowCarried(since.value, since.changed, entries.length, request);
      if (window) {
        carried++;
        expect(window, `seed ${seed}`).toEqual(windowUnordered(entries, request));
      }
    }
    expect(changed).toBeGreaterThan(150);
    expect(carried).toBeGreaterThan(100);
  });

  it('gives nothing for a reading not made from an earlier one, or when the earlier one kept nothing under either key', () => {
    const bytes = Buffer.from(JSON.stringify({ items: [{ id: 'a' }, { id: 'b' }] }));
    const first = readListAnswer(bytes, ['id']) as { items: ScannedRows };
    expect(sinceEarlier(first.items, 'window', 'keyed', [])).toBeUndefined();
    keptWith(first.items, 'keyed', () => entriesOf(first.items.partial));
    const second = rereadListAnswer(bytes, first, Buffer.from(JSON.stringify({ items: [{ id: 'a' }, { id: 'c' }] })), ['id']) as { items: ScannedRows };
    expect(sinceEarlier(second.items, 'window', 'keyed', [])).toBeUndefined();
    keptWith(first.items, 'window', () => windowUnordered(entriesOf(first.items.partial), { order, pageSize: 1, skip: 0 }));
    expect(sinceEarlier(second.items, 'window', 'keyed', entriesOf(second.items.partial))).toBeDefined();
  });
});

describe('rowValues', () => {
  const rowsOf = (ids: string[]) => Buffer.from(JSON.stringify({ items: ids.map((id) => ({ id })) }));

  it('makes a row\'s value once a reading, and a reading made from it takes over the values of the rows it took over unchanged', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `row-${i}`);
    const first = readListAnswer(rowsOf(ids), ['id']) as { items: ScannedRows };
    const made: string[] = [];
    const value = (rows: ScannedRows, at: number) => rowValues(rows, 'v', (i) => {
      made.push(String(rows.partial[i]!.id));
      return { id: rows.partial[i]!.id };
    })(at);
    const before = Array.from({ length: 20 }, (_, at) => value(first.items, at));
    expect(value(first.items, 7)).toBe(before[7]);
    expect(made).toHaveLength(20);
    // Row 5 renamed, and a row added after it: the rows after move one place along.
    const changed = [...ids.slice(0, 5), 'row-5, renamed', 'row-new', ...ids.slice(6)];
    const second = rereadListAnswer(rowsOf(ids), first, rowsOf(changed), ['id']) as { items: ScannedRows };
    made.length = 0;
    const after = Array.from({ length: changed.length }, (_, at) => value(second.items, at));
    expect(made).toEqual(['row-5, renamed', 'row-new']);
    expect(after.map((v) => v.id)).toEqual(changed);
    expect(after[4]).toBe(before[4]);
    expect(after[7]).toBe(before[6]);
  });

  it('makes a value again when the kept one no longer fits, in this reading and from the earlier one', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const first = readListAnswer(rowsOf(ids), ['id']) as { items: ScannedRows };
    let version = 1;
    let made = 0;
    const value = (rows: ScannedRows, at: number) => rowValues(rows, 'v', () => ({ version, serial: ++made }), (kept) => kept.version === version)(at);
    const a1 = value(first.items, 0);
    expect(value(first.items, 0)).toBe(a1);
    version = 2;
    const a2 = value(first.items, 0);
    expect(a2).not.toBe(a1);
    expect(a2.version).toBe(2);
    // The fitting value replaced the old one.
    expect(value(first.items, 0)).toBe(a2);
    // A reading made from this one takes over only what fits.
    const b1 = value(first.items, 1);
    const second = rereadListAnswer(rowsOf(ids), first, rowsOf(['a', 'b', 'c', 'x']), ['id']) as { items: ScannedRows };
    expect(value(second.items, 1)).toBe(b1);
    version = 3;
    expect(value(second.items, 0).version).toBe(3);
  });

  it('keeps at most 256 rows a reading; past that it makes each value every time', () => {
    const reading = readListAnswer(rowsOf(Array.from({ length: 300 }, (_, i) => `r${i}`)), ['id']) as { items: ScannedRows };
    let made = 0;
    for (let round = 0; round < 2; round++) {
      const value = rowValues(reading.items, 'v', () => ++made);
      for (let at = 0; at < 300; at++) value(at);
    }
    expect(made).toBe(300 + 44);
  });
});
