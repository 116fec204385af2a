/**
 * What a List works out from one reading of a v1 list, kept with that reading. A reading that the scan
 * memo (v1/list-scan-memo.ts) gives again stands for byte-identical rows, so whatever was worked out from
 * those rows alone, for the same query (which rows match, their sort keys, the page they make), holds
 * again and is not worked out twice. A reading nothing keeps is dropped, and all that was kept with it.
 *
 * Kept values are shared by every request that gets the reading: their users read them, never change them
 * (rowValues' rows are only ever added to).
 */
import type { RowsChanged } from '../aip/list-window.ts';
import { earlierIndex, earlierTail, laterIndex, type ScannedRows } from '../v1/list-body.ts';
// Enough rows for a few pages, not every row of a long list; the scan memo's budget counts them.
import { ROW_VALUES_PER_READING } from '../v1/list-scan-memo.ts';

/** Values kept per reading: for a query or two, the rows lacking kept times, the matching rows and a page. */
const PER_READING = 8;

const KEPT = new WeakMap<object, Map<string, unknown>>();

/** `make()`, or what it made before for this reading and key. */
export function keptWith<T>(reading: object, key: string, make: () => T): T {
  let kept = KEPT.get(reading);
  if (kept === undefined) KEPT.set(reading, (kept = new Map()));
  if (kept.has(key)) {
    const value = kept.get(key) as T;
    // Used again: moved to the end, so the least recently used goes first (a Map iterates in insertion order).
    kept.delete(key);
    kept.set(key, value);
    return value;
  }
  const value = make();
  if (kept.size >= PER_READING) kept.delete(kept.keys().next().value as string);
  kept.set(key, value);
  return value;
}

/** What is kept for this reading under this key, if anything (without making it). */
export function keptValue<T>(reading: object, key: string): T | undefined {
  return KEPT.get(reading)?.get(key) as T | undefined;
}

/** Whether a value is kept for this reading and key (without making one). */
export function isKept(reading: object, key: string): boolean {
  return KEPT.get(reading)?.has(key) ?? false;
}

/** How many values a reading may keep (its least recently used goes first past this). */
export const VALUES_PER_READING = PER_READING;

/**
 * What was worked out row by row for a reading made from an earlier one (v1/list-body.ts,
 * rereadListAnswer), from what was kept for the earlier one under the same key: the entries of the rows
 * it took over as they were (`moved` gives an entry for the row's new index), `make` for the rows read
 * anew. Entries carry their row's index (`at`) and are in row order, one or none a row. Undefined when the
 * reading was not made so, or nothing was kept for the earlier one under this key.
 */
export function carriedOver<E extends { at: number }>(rows: ScannedRows, key: string, make: (at: number, into: E[]) => void, moved: (entry: E, at: number) => E): E[] | undefined {
  const earlier = rows.earlier;
  const before = earlier && keptValue<E[]>(earlier.rows, key);
  if (!earlier || !before) return undefined;
  const made: E[] = [];
  for (let at = earlier.same; at < earlier.tail; at++) make(at, made);
  // The earlier entries with those of the rows read anew swapped in, written into one array of the
  // final size: not grown entry by entry to a thousand when a row or two changed.
  const first = firstAt(before, earlier.same);
  const last = firstAt(before, earlierTail(earlier));
  const entries = new Array<E>(first + made.length + before.length - last);
  let i = 0;
  for (let k = 0; k < first; k++) entries[i++] = before[k]!;
  for (const entry of made) entries[i++] = entry;
  for (let k = last; k < before.length; k++) entries[i++] = earlier.shift === 0 ? before[k]! : moved(before[k]!, laterIndex(earlier, before[k]!.at));
  return entries;
}

/**
 * Values worked out from one row of a reading (say, the row rendered): `make(at)` for row `at`, made
 * once and kept with the reading, and used again while `fits` (what else it was made from is as it
 * was); for a reading made from an earlier one, a row taken over unchanged has the earlier reading's
 * value for it, if it fits. Up to ROW_VALUES_PER_READING rows a reading; past that, values are made and not
 * kept. Asked once a request, then row by row.
 */
export function rowValues<V>(rows: ScannedRows, key: string, make: (at: number) => V, fits: (value: V, at: number) => boolean = () => true): (at: number) => V {
  const kept = keptWith(rows, key, () => new Map<number, V>());
  const earlier = rows.earlier;
  const before = earlier && keptValue<Map<number, V>>(earlier.rows, key);
  return (at) => {
    let value = kept.get(at);
    if (value !== undefined && fits(value, at)) return value;
    value = undefined;
    if (earlier && before) {
      const was = earlierIndex(earlier, at);
      const carried = was >= 0 ? before.get(was) : undefined;
      if (carried !== undefined && fits(carried, at)) value = carried;
    }
    value ??= make(at);
    if (kept.size < ROW_VALUES_PER_READING || kept.has(at)) kept.set(at, value);
    return value;
  };
}

/**
 * For a reading made from an earlier one: the value kept for the earlier one under `key`, and what
 * became of the entries kept for it under `entriesKey` (list-window.ts, RowsChanged), given this
 * reading's `entries` under that key: in row order, one or none a row, each carrying its row's index,
 * as carriedOver makes them. Undefined when the reading was not made so, or either was not kept.
 */
export function sinceEarlier<V, E extends { at: number }>(rows: ScannedRows, key: string, entriesKey: string, entries: readonly E[]): { value: V; changed: RowsChanged<E> } | undefined {
  const earlier = rows.earlier;
  const value = earlier && keptValue<V>(earlier.rows, key);
  const before = earlier && keptValue<readonly E[]>(earlier.rows, entriesKey);
  if (!earlier || value === undefined || !before) return undefined;
  const changed: RowsChanged<E> = {
    removed: before.slice(firstAt(before, earlier.same), firstAt(before, earlierTail(earlier))),
    added: entries.slice(firstAt(entries, earlier.same), firstAt(entries, earlier.tail)),
    now(entry) {
      const at = laterIndex(earlier, entry.at);
      if (at < 0) return undefined;
      const found = entries[firstAt(entries, at)];
      return found?.at === at ? found : undefined;
    },
  };
  return { value, changed };
}

/** Binary search over entries in row order: the index of the first one at row `at` or after it. */
function firstAt(entries: readonly { at: number }[], at: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
