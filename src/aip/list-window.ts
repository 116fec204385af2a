/**
 * List windowing over rows already filtered: order → resume after the cursor →
 * skip → take a page. The cursor is a keyset position (the sort values of the
 * last row served), not an offset, so rows added or removed between pages never
 * make a surviving row repeat or vanish.
 */
import { compareValues } from './value-order.ts';
import type { OrderKey } from './order-by.ts';
import type { PageCursor } from './page-token.ts';
import { TopK } from './top-k.ts';

export interface WindowRequest {
  order: readonly OrderKey[];
  pageSize: number;
  skip: number;
  cursor?: PageCursor | undefined;
}

export interface Window<T> {
  page: T[];
  /** Rows matching the query across all pages. */
  total: number;
  /** Rows skipped by `skip` so far, across pages. */
  skipped: number;
  /** Where the next page starts; absent on the last page. */
  next?: PageCursor;
}

export type ReadField<T> = (row: T, field: string) => unknown;

export function sortKey<T>(row: T, order: readonly OrderKey[], read: ReadField<T>): unknown[] {
  // A loop, not order.map with a closure: this runs for every row of a v1 list.
  const key = new Array<unknown>(order.length);
  for (let i = 0; i < order.length; i++) key[i] = read(row, order[i]!.field) ?? null;
  return key;
}

export function compareKeys(a: readonly unknown[], b: readonly unknown[], order: readonly OrderKey[]): number {
  return compareKeysAt(a, 0, b, 0, order);
}

/** compareKeys of the keys held in `a` from `aFrom` and in `b` from `bFrom` (keys held side by side in one array). */
export function compareKeysAt(a: readonly unknown[], aFrom: number, b: readonly unknown[], bFrom: number, order: readonly OrderKey[]): number {
  for (let i = 0; i < order.length; i++) {
    const c = compareValues(a[aFrom + i], b[bFrom + i]);
    if (c !== 0) return order[i]!.desc ? -c : c;
  }
  return 0;
}

/** A row with its sort key, in a total order (the order ends with `uid`). */
export interface Keyed<T> {
  row: T;
  key: unknown[];
}

/** The rows sorted by the order, each with its key: what a window is cut from. */
export function orderRows<T>(rows: readonly T[], order: readonly OrderKey[], read: ReadField<T>): Keyed<T>[] {
  return sortKeyed(rows.map((row) => ({ row, key: sortKey(row, order, read) })), order);
}

/** Puts keyed rows in order, in place; rows with equal keys keep their places (the sort is stable). */
export function sortKeyed<K extends { key: unknown[] }>(keyed: K[], order: readonly OrderKey[]): K[] {
  return keyed.sort((x, y) => compareKeys(x.key, y.key, order));
}

export function windowRows<T>(rows: readonly T[], request: WindowRequest, read: ReadField<T>): Window<T> {
  return windowOrdered(orderRows(rows, request.order, read), request);
}

/**
 * One page of rows already in order: resume strictly after the cursor's key,
 * skip, cut. The same window whether the rows were just sorted or kept from an
 * earlier page of the walk.
 */
export function windowOrdered<T>(keyed: readonly Keyed<T>[], request: WindowRequest): Window<T> {
  let start = 0;
  const after = request.cursor?.after;
  if (after && after.length === request.order.length) {
    start = firstAfter(keyed, after, request.order);
  }
  start += request.skip;
  const skipped = (request.cursor?.skipped ?? 0) + request.skip;
  const end = Math.min(start + request.pageSize, keyed.length);
  const slice = start < keyed.length ? keyed.slice(start, end) : [];
  const window: Window<T> = { page: slice.map((k) => k.row), total: keyed.length, skipped };
  if (end < keyed.length && slice.length > 0) {
    window.next = { after: slice[slice.length - 1]!.key, skipped };
  }
  return window;
}

/** A window cut by windowUnordered, with how many rows came after the cursor (windowCarried needs it). */
export interface CutWindow<K> extends Window<K> {
  /** Rows after the cursor, the page's among them. */
  after: number;
}

/**
 * The window windowOrdered cuts from the rows once sorted, taken from the rows
 * in any order without sorting them: the rows after the cursor are counted and
 * only the first `skip + pageSize` of them kept (top-k.ts), then put in order.
 * Rows with equal keys keep their input order, as the stable sort keeps them,
 * so the two agree row for row. The page holds the keyed entries themselves,
 * so a caller can carry more than the row in them.
 */
export function windowUnordered<K extends { key: unknown[] }>(keyed: readonly K[], request: WindowRequest): CutWindow<K> {
  const { order } = request;
  const rows: KeyedByIndex = {
    count: keyed.length,
    compare: (a, b) => compareKeys(keyed[a]!.key, keyed[b]!.key, order),
    compareTo: (a, key) => compareKeys(keyed[a]!.key, key, order),
    key: (a) => keyed[a]!.key,
  };
  const window = windowUnorderedAt(rows, request);
  return { ...window, page: window.page.map((i) => keyed[i]!) };
}

/**
 * Rows and their sort keys held by index (however they are held: an entry a row, or keys by column),
 * compared in the request's order.
 */
export interface KeyedByIndex {
  readonly count: number;
  /** Row `a`'s key against row `b`'s. */
  compare(a: number, b: number): number;
  /** Row `a`'s key against `key`. */
  compareTo(a: number, key: readonly unknown[]): number;
  /** Row `a`'s key (for the next page's cursor). */
  key(a: number): unknown[];
}

/** windowUnordered over rows held by index: the page is their indices. */
export function windowUnorderedAt(rows: KeyedByIndex, request: WindowRequest): CutWindow<number> {
  const { skip, pageSize } = request;
  const cut = cutOf(request);
  const first = new TopK(Math.min(skip + pageSize, rows.count), (a, b) => rows.compare(a, b) || a - b);
  let after = 0;
  for (let i = 0; i < rows.count; i++) {
    if (cut && rows.compareTo(i, cut) <= 0) continue;
    after++;
    first.offer(i);
  }
  return cutWindowBy(first.sorted().slice(skip), rows.count, after, request, (i) => rows.key(i));
}

/**
 * How the rows a window was cut from changed since: the entries of rows gone or changed (`removed`,
 * as they were), those of rows new or changed (`added`, as they are now), and, for an entry of a row
 * still there as it was, its entry now (undefined for a removed one).
 */
export interface RowsChanged<K> {
  removed: readonly K[];
  added: readonly K[];
  now(entry: K): K | undefined;
}

/**
 * The window windowUnordered would cut now, from the one it cut before the rows changed (`earlier`,
 * for the same request) and the change, without looking at the rows that stayed: a list polled while
 * it changes in a row or two costs those rows, not a thousand comparisons.
 *
 * It holds because every row after the cursor that the earlier page left out comes after the page's
 * last row: so long as none of the page's rows went, the page now is the first of the earlier page
 * and the rows added. Undefined when a row of the earlier page was removed (the row after it is not
 * known), or when the request skips (the rows skipped were not kept): windowUnordered then cuts it.
 * Entries are ordered by key, then by their row's place (`at`), as windowUnordered orders them.
 */
export function windowCarried<K extends { key: unknown[]; at: number }>(earlier: CutWindow<K>, changed: RowsChanged<K>, total: number, request: WindowRequest): CutWindow<K> | undefined {
  if (request.skip !== 0) return undefined;
  const { order } = request;
  const cut = cutOf(request);
  const candidates: K[] = [];
  for (const entry of earlier.page) {
    const now = changed.now(entry);
    if (now === undefined) return undefined;
    candidates.push(now);
  }
  let after = earlier.after;
  for (const entry of changed.removed) if (!cut || compareKeys(entry.key, cut, order) > 0) after--;
  for (const entry of changed.added) {
    if (cut && compareKeys(entry.key, cut, order) <= 0) continue;
    after++;
    candidates.push(entry);
  }
  const first = new TopK(Math.min(request.pageSize, candidates.length), (a, b) => compareKeys(candidates[a]!.key, candidates[b]!.key, order) || candidates[a]!.at - candidates[b]!.at);
  for (let i = 0; i < candidates.length; i++) first.offer(i);
  return cutWindow(first.sorted().map((i) => candidates[i]!), total, after, request);
}

/** The cursor's key, when it is one for this order. */
function cutOf(request: WindowRequest): readonly unknown[] | undefined {
  const after = request.cursor?.after;
  return after && after.length === request.order.length ? after : undefined;
}

/** A window of `page`, the rows after the cursor having been `after` of `total`. */
function cutWindow<K extends { key: unknown[] }>(page: K[], total: number, after: number, request: WindowRequest): CutWindow<K> {
  return cutWindowBy(page, total, after, request, (entry) => entry.key);
}

/** cutWindow of rows whose keys `keyOf` reads. */
function cutWindowBy<K>(page: K[], total: number, after: number, request: WindowRequest, keyOf: (row: K) => unknown[]): CutWindow<K> {
  const skipped = (request.cursor?.skipped ?? 0) + request.skip;
  const window: CutWindow<K> = { page, total, skipped, after };
  if (request.skip + request.pageSize < after && page.length > 0) {
    window.next = { after: keyOf(page[page.length - 1]!), skipped };
  }
  return window;
}

/** Binary search: index of the first row strictly after `after` in this order. */
function firstAfter(keyed: readonly { key: unknown[] }[], after: readonly unknown[], order: readonly OrderKey[]): number {
  let lo = 0;
  let hi = keyed.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(keyed[mid]!.key, after, order) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
