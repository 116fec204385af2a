/**
 * The times v1 does not supply, from the store, for rendering: which rows need
 * them, fetched in one call per list, and set into the rendered resources. A
 * resource created or changed through the gateway gets the time of that
 * write; one first met in a v1 answer gets the time it was first seen, kept
 * stable from then on. v1's own value always wins where v1 has one.
 */
import type { ResourceTimes, TimestampStore } from '../store/types.ts';
import { TimesCache } from './times-cache.ts';
import type { FieldSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { getPath, rowsOfArray, type Json, type RowsByIndex } from '../vocabulary/json.ts';

/** How often, at most, an unfiltered list may sweep a kind's records of vanished resources. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Kept times are read far more than written: a list of 1,000 groups would ask
 * the store for 1,000 of them on every page. They are cached in the process;
 * this process's own writes update the cache, and another replica's update
 * shows here after at most this long.
 */
const CACHE_TTL_MS = 10_000;
const CACHE_ENTRIES = 50_000;

type Kept = [key: string, spec: FieldSpec & { kept: 'createTime' | 'updateTime' }];

/** Each mapping's kept fields, listed once rather than once per row. */
const KEPT = new WeakMap<ResourceMapping, readonly Kept[]>();

function keptFields(mapping: ResourceMapping): readonly Kept[] {
  let kept = KEPT.get(mapping);
  if (!kept) {
    kept = Object.entries(mapping.fields).filter((entry): entry is Kept => entry[1].kept !== undefined);
    KEPT.set(mapping, kept);
  }
  return kept;
}

const SOURCES = new WeakMap<ResourceMapping, readonly string[]>();

export class KeptTimes {
  readonly #store: TimestampStore | undefined;
  readonly #now: () => number;
  readonly #lastSweep = new Map<string, number>();
  readonly #cache = new TimesCache<ResourceTimes>(CACHE_ENTRIES, CACHE_TTL_MS);
  readonly #onLookup: ((hits: number, misses: number) => void) | undefined;

  constructor(store: TimestampStore | undefined, now: () => number = Date.now, onLookup?: (hits: number, misses: number) => void) {
    this.#store = store;
    this.#now = now;
    this.#onLookup = onLookup;
  }

  #stamp(): string {
    return new Date(this.#now()).toISOString();
  }

  /** The uids of the rows that lack a time v1 should have given (none when nothing is kept). Pure. */
  lacking(mapping: ResourceMapping, rows: readonly Json[], uidKey: string): readonly string[] {
    return this.lackingIn(mapping, rowsOfArray(rows), uidKey);
  }

  /** `lacking` of rows read one at a time (a List's reading of v1's list). Pure. */
  lackingIn(mapping: ResourceMapping, rows: RowsByIndex, uidKey: string): readonly string[] {
    const sources = KeptTimes.sources(mapping);
    if (!this.#store || sources.length === 0) return [];
    const uids: string[] = [];
    const byColumn = lackingByColumn(rows, sources, uidKey, uids);
    if (byColumn) return byColumn;
    // Indexed loops: a List runs this over every row of v1's list, and for-of with destructuring
    // allocated iterators per row here (300 KB a 1,000-row List in an allocation profile).
    for (let r = 0; r < rows.count; r++) {
      const row = rows.row(r);
      const uid = row[uidKey];
      if (typeof uid !== 'string' || uid === '') continue;
      for (let s = 0; s < sources.length; s++) {
        if (isBlank(getPath(row, sources[s]!))) {
          uids.push(uid);
          break;
        }
      }
    }
    return uids;
  }

  /** The kept times of these resources (from `lacking`), recording first sightings; undefined for none. */
  async forUids(mapping: ResourceMapping, uids: readonly string[]): Promise<Map<string, ResourceTimes> | undefined> {
    if (!this.#store || uids.length === 0) return undefined;
    const times = new Map<string, ResourceTimes>();
    const unknown: string[] = [];
    const now = this.#cache.now();
    for (const uid of uids) {
      const cached = this.#cache.get(mapping.name, uid, now);
      if (cached) times.set(uid, cached);
      else unknown.push(uid);
    }
    this.#onLookup?.(uids.length - unknown.length, unknown.length);
    if (unknown.length > 0) {
      for (const [uid, kept] of await this.#store.observe(mapping.name, unknown, this.#stamp())) {
        times.set(uid, kept);
        this.#cache.set(mapping.name, uid, kept);
      }
    }
    return times;
  }

  /** Where in a v1 row `lacking` reads each kept time, to tell whether it is blank (the row's key, or a dotted path). */
  static sources(mapping: ResourceMapping): readonly string[] {
    let sources = SOURCES.get(mapping);
    if (!sources) {
      sources = keptFields(mapping).map(([key, spec]) => spec.v1 ?? key);
      SOURCES.set(mapping, sources);
    }
    return sources;
  }

  async created(mapping: ResourceMapping, uid: string): Promise<void> {
    if (!this.#store || keptFields(mapping).length === 0) return;
    this.#cache.delete(mapping.name, uid);
    await this.#store.created(mapping.name, uid, this.#stamp());
  }

  async touched(mapping: ResourceMapping, uid: string): Promise<void> {
    if (!this.#store || keptFields(mapping).length === 0) return;
    this.#cache.delete(mapping.name, uid);
    await this.#store.touched(mapping.name, uid, this.#stamp());
  }

  async forget(mapping: ResourceMapping, uid: string): Promise<void> {
    if (!this.#store || keptFields(mapping).length === 0) return;
    this.#cache.delete(mapping.name, uid);
    await this.#store.forget(mapping.name, uid);
  }

  /**
   * After a complete v1 list: records of resources v1 no longer has are dropped (now and then, not on
   * every list). `present` lists the uids v1 has; it is called only when a sweep is due.
   */
  async sweep(mapping: ResourceMapping, present: () => readonly string[]): Promise<void> {
    if (!this.#store || keptFields(mapping).length === 0) return;
    const now = this.#now();
    if (now - (this.#lastSweep.get(mapping.name) ?? 0) < SWEEP_INTERVAL_MS) return;
    this.#lastSweep.set(mapping.name, now);
    await this.#store.sweep(mapping.name, present());
    // What was swept is gone from v1, so nothing asks for it again; the cache needs no pass of its own.
  }
}


/**
 * `lackingIn` read off the rows' columns (RowsByIndex.column), without a row object a row: each source's
 * value is its member's, or read inside it (a dotted source), as getPath reads it off the row. Undefined
 * when the rows hold the uid or a source's member not so.
 */
function lackingByColumn(rows: RowsByIndex, sources: readonly string[], uidKey: string, uids: string[]): string[] | undefined {
  if (!rows.column) return undefined;
  const ids = rows.column(uidKey);
  if (!ids) return undefined;
  const columns: (readonly unknown[])[] = [];
  const inside: (string | undefined)[] = [];
  for (const source of sources) {
    const dot = source.indexOf('.');
    const column = rows.column(dot < 0 ? source : source.slice(0, dot));
    if (!column) return undefined;
    columns.push(column);
    inside.push(dot < 0 ? undefined : source.slice(dot + 1));
  }
  for (let r = 0; r < rows.count; r++) {
    const uid = ids[r];
    if (typeof uid !== 'string' || uid === '') continue;
    for (let s = 0; s < columns.length; s++) {
      const rest = inside[s];
      if (isBlank(rest === undefined ? columns[s]![r] : getPath(columns[s]![r], rest))) {
        uids.push(uid);
        break;
      }
    }
  }
  return uids;
}

/** Sets kept times into a rendered resource where it shows none. */
export function applyKeptTimes(mapping: ResourceMapping, v2: Json, times: ResourceTimes | undefined): Json {
  if (!times) return v2;
  for (const [key, spec] of keptFields(mapping)) {
    if (key in v2) v2[key] = withKeptTime(spec, v2[key], times);
  }
  return v2;
}

/**
 * One rendered field's value with its kept time where it shows none: applyKeptTimes for one
 * field (undefined is a field left out of the document, which stays out).
 */
export function withKeptTime(spec: FieldSpec, value: unknown, times: ResourceTimes | undefined): unknown {
  return spec.kept && times && value !== undefined && isBlank(value) ? times[spec.kept] : value;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}
