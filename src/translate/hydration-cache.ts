/**
 * v1 rows fetched to hydrate references, kept briefly across requests so a
 * busy list does not look up the same identity again and again. Entries are
 * per caller (v1 decides what each token may see, so one caller's rows must
 * never answer another's), live for a short TTL, and a write through the
 * gateway drops the written resource's entries at once. A replica does not
 * see another replica's writes until the TTL passes; that is the staleness
 * bound.
 */
import type { LRUCache } from 'lru-cache';
import { growingLru } from './growing-lru.ts';
import type { Json } from '../vocabulary/json.ts';

/** A row v1 said does not exist, cached like a found one so misses cost no repeated calls. */
const MISSING = Symbol('missing');
type Entry = Json | typeof MISSING;

export interface HydrationCacheOptions {
  /** 0 disables caching. */
  ttlMs: number;
  maxEntries?: number;
  /** Told of each lookup: whether the cache knew the row. */
  onLookup?: (hit: boolean) => void;
}

export class HydrationCache {
  readonly #rows: LRUCache<string, Map<string, Entry>> | undefined;
  readonly #onLookup: HydrationCacheOptions['onLookup'];

  constructor(options: HydrationCacheOptions) {
    this.#onLookup = options.onLookup;
    if (options.ttlMs <= 0) return;
    this.#rows = growingLru(options.maxEntries ?? 10_000, options.ttlMs);
  }

  /** What the cache knows of one row for this caller (caller-key.ts): the row, null when v1 had none, undefined when unknown. */
  get(resource: string, id: string, caller: string): Json | null | undefined {
    const entry = this.#rows?.get(key(resource, id))?.get(caller);
    this.#onLookup?.(entry !== undefined);
    return entry === MISSING ? null : entry;
  }

  set(resource: string, id: string, caller: string, row: Json | null): void {
    if (!this.#rows) return;
    const k = key(resource, id);
    const byCaller = this.#rows.get(k) ?? new Map<string, Entry>();
    byCaller.set(caller, row ?? MISSING);
    this.#rows.set(k, byCaller);
  }

  /** A write through the gateway changed or removed this resource. */
  invalidate(resource: string, id: string): void {
    this.#rows?.delete(key(resource, id));
  }
}

function key(resource: string, id: string): string {
  return `${resource}\0${id}`;
}

