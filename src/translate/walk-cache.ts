/**
 * What the first page of a walk over an unpaged v1 list learned, kept for the
 * walk's later pages: every matching row's sort key and uid, in order. A later
 * page then cuts its window from that order and fetches only its own rows by
 * id, instead of fetching, rendering, filtering and sorting the whole v1 list
 * again — a walk of N pages costs one full v1 fetch, not N.
 *
 * Entries are per caller (v1 decides what each token sees; only a digest of the
 * token is kept) and per query (the page token's fingerprint: resource,
 * filters, order). They live `ttlMs` from the first page, and any write
 * through the gateway to the resource drops its walks at once. Within the TTL
 * a walk sees rows as they are now but in the membership and order of its first
 * page: a row created elsewhere since is not in it, one deleted since is left
 * out of its page, one changed since keeps its place. Bounded by bytes (an
 * estimate of each entry's keys), not by count.
 *
 * A first page need not sort every row to serve its own (list-window.ts selects
 * it), so a walk may be kept in v1's order with the order it asks for; the
 * first later page that reads it sorts it, once. Nor need it make an object of
 * every row: a walk may be kept as its rows are held by column (WalkRows), and
 * the first later page that reads it makes its entries then. Most walks end on
 * their first page.
 */
import { LRUCache } from 'lru-cache';
import { sortKeyed, type Keyed } from '../aip/list-window.ts';
import type { OrderKey } from '../aip/order-by.ts';

export interface WalkCacheOptions {
  /** 0 disables the cache. */
  ttlMs: number;
  maxBytes: number;
  /** Told of each later page's lookup: whether the walk was known. */
  onLookup?: (hit: boolean) => void;
}

/** Per-entry overhead in the estimate: the array slot, the object, the key array. */
const ENTRY_BYTES = 96;

/** A walk's rows held by index (translate/v1-list/matched-rows.ts): each one's uid and its key's values. */
export interface WalkRows {
  readonly count: number;
  /** How many values a key has. */
  readonly width: number;
  uid(i: number): string;
  keyAt(i: number, m: number): unknown;
}

interface Walk {
  rows: Keyed<string>[];
  /** The rows as they were kept, until a later page reads the walk and they are made entries (`rows`). */
  held?: WalkRows | undefined;
  /** The order the rows are still to be put in; absent once they are in it. */
  unsorted?: readonly OrderKey[] | undefined;
  /** The shared rows the walk was set from (see set): copied before they are sorted, and known when set again. */
  source?: readonly Keyed<string>[] | undefined;
  /** Its size in the cache's budget, worked out once. */
  bytes: number;
}

export class WalkCache {
  readonly #walks: LRUCache<string, Walk> | undefined;
  readonly #onLookup: WalkCacheOptions['onLookup'];
  /** Keys of the walks of each resource, to drop them all when it is written. */
  readonly #byResource = new Map<string, Set<string>>();

  constructor(options: WalkCacheOptions) {
    this.#onLookup = options.onLookup;
    if (options.ttlMs <= 0 || options.maxBytes <= 0) return;
    this.#walks = new LRUCache({
      ttl: options.ttlMs,
      maxSize: options.maxBytes,
      dispose: (_walk, key) => this.#forgetKey(key),
    });
  }

  /** False when switched off (`ttlMs` or `maxBytes` 0): it keeps no walk. */
  get enabled(): boolean {
    return this.#walks !== undefined;
  }

  /** The walk of this query for this caller (caller-key.ts), put in order if it is not yet. */
  get(resource: string, fingerprint: string, caller: string): readonly Keyed<string>[] | undefined {
    if (!this.#walks) return undefined;
    const walk = this.#walks.get(key(resource, fingerprint, caller));
    this.#onLookup?.(walk !== undefined);
    if (walk?.held) {
      walk.rows = entriesOf(walk.held);
      walk.held = undefined;
    }
    if (walk?.unsorted) {
      // Shared rows are copied before the sort, here rather than when kept: most walks end on their first page.
      walk.rows = sortKeyed(walk.source ? walk.rows.slice() : walk.rows, walk.unsorted);
      walk.unsorted = undefined;
    }
    return walk?.rows;
  }

  /**
   * Keeps a walk's rows: in order, or (given `unsorted`) in any order, to be put in that order when first
   * read. `shared` rows (kept with a reading of v1's list, reading-memo.ts, and read by other requests)
   * are copied before that sort, since the walk sorts its own; set again from the same shared rows, the
   * walk kept is the same walk, its time started again. Rows held by index (WalkRows) are the walk's
   * own, never shared.
   */
  set(resource: string, fingerprint: string, caller: string, rows: Keyed<string>[] | WalkRows, unsorted?: readonly OrderKey[], shared = false): void {
    if (!this.#walks) return;
    const k = key(resource, fingerprint, caller);
    const kept = shared ? this.#walks.peek(k) : undefined;
    const walk: Walk =
      kept !== undefined && kept.source === rows
        ? kept
        : Array.isArray(rows)
          ? { rows, unsorted, source: shared ? rows : undefined, bytes: walkBytes(rows) }
          : { rows: [], held: rows, unsorted, bytes: heldBytes(rows as WalkRows) };
    this.#walks.set(k, walk, { size: walk.bytes });
    if (this.#walks.has(k)) {
      const keys = this.#byResource.get(resource) ?? new Set<string>();
      keys.add(k);
      this.#byResource.set(resource, keys);
    }
  }

  /** A write through the gateway changed the resource's collection: its walks no longer hold. */
  invalidate(resource: string): void {
    for (const k of [...(this.#byResource.get(resource) ?? [])]) this.#walks?.delete(k);
    this.#byResource.delete(resource);
  }

  #forgetKey(k: string): void {
    const resource = k.slice(0, k.indexOf('\0'));
    const keys = this.#byResource.get(resource);
    keys?.delete(k);
    if (keys?.size === 0) this.#byResource.delete(resource);
  }
}

/** A walk's size in the budget, estimated from its keys. */
function walkBytes(rows: readonly Keyed<string>[]): number {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) bytes += ENTRY_BYTES + 2 * rows[i]!.row.length + keyBytes(rows[i]!.key);
  return Math.max(1, bytes);
}

/** walkBytes of rows held by index. */
function heldBytes(rows: WalkRows): number {
  let bytes = 0;
  for (let i = 0; i < rows.count; i++) {
    bytes += ENTRY_BYTES + 2 * rows.uid(i).length;
    for (let m = 0; m < rows.width; m++) bytes += valueBytes(rows.keyAt(i, m));
  }
  return Math.max(1, bytes);
}

/** A sort key's size, roughly: strings at two bytes a character, anything else a slot. */
function keyBytes(key: readonly unknown[]): number {
  let bytes = 0;
  for (const value of key) bytes += valueBytes(value);
  return bytes;
}

function valueBytes(value: unknown): number {
  return typeof value === 'string' ? 16 + 2 * value.length : 16;
}

/** Rows held by index as the walk's entries. */
function entriesOf(rows: WalkRows): Keyed<string>[] {
  const entries = new Array<Keyed<string>>(rows.count);
  for (let i = 0; i < rows.count; i++) {
    const key = new Array<unknown>(rows.width);
    for (let m = 0; m < rows.width; m++) key[m] = rows.keyAt(i, m);
    entries[i] = { row: rows.uid(i), key };
  }
  return entries;
}

function key(resource: string, fingerprint: string, caller: string): string {
  return `${resource}\0${fingerprint}\0${caller}`;
}
