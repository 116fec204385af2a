/**
 * The native store's contract. Two engines implement it (embedded SQLite via
 * `node:sqlite`, and PostgreSQL) behind one query builder, and one conformance
 * suite holds them to it. Callers speak v2 terms only: resource kinds are
 * mapping names, documents are v2 JSON, field paths are v2 paths.
 */
import type { OrderKey } from '../aip/order-by.ts';
import type { QueryListener } from './query-log.ts';
import type { EventOutboxStore } from './event-outbox.ts';

export type Json = Record<string, unknown>;

/** One v2 resource as the store keeps it. */
export interface StoredResource {
  /** The mapping name, e.g. `groups`. */
  kind: string;
  uid: string;
  /** The parent UIDP; '' for roots and flat uids. */
  parent: string;
  /** The v2 document as served, output-only fields included. */
  body: Json;
  /** RFC 3339, millisecond precision, UTC (`…T…:…:….mmmZ`), so text order is time order. */
  createTime: string;
  updateTime: string;
}

export type StoreFilterOp = 'eq' | 'in' | 'descendantOf' | 'childOf' | 'ancestorOf' | 'inRoot' | 'gte' | 'contains'
  /** The uid is one of the values or descends from one; '' among them takes in the flat rows (parent ''), e.g. built-in roles. */
  | 'within';

export interface StoreFilter {
  /** A v2 path into the body (`name`, `claimMatch.issuer`); `uid`, `parent`, `createTime`, `updateTime` are columns. */
  field: string;
  op: StoreFilterOp;
  value: string | boolean | readonly string[];
}

export interface StoreListQuery {
  kind: string;
  filters: readonly StoreFilter[];
  /** Always ends with `uid`, so the order is total. */
  order: readonly OrderKey[];
  /** Keyset cursor: the sort values of the last row already served, in `order` order. */
  after?: readonly unknown[];
  skip: number;
  limit: number;
  /**
   * Inside `transaction`: the rows read stay as read until it ends, so a replica changing or deleting
   * one at the same time waits for it (PostgreSQL: FOR SHARE; SQLite's write transactions already
   * exclude each other). What a judgement made inside a write reads (policy/no-escalation.ts).
   */
  lock?: 'share';
}

export interface StoreListResult {
  rows: StoredResource[];
  /** Rows matching the filters, ignoring cursor, skip and limit. */
  total: number;
  /** More rows follow the last one returned. */
  more: boolean;
}

/** Thrown by `insert` when the uid is taken. */
export class StoreConflictError extends Error {}

export interface ResourceStore {
  insert(resource: StoredResource): Promise<void>;
  get(kind: string, uid: string): Promise<StoredResource | undefined>;
  /**
   * `get` for a read-modify-write inside `transaction`: the row stays locked
   * until the transaction ends, so a replica changing it at the same time waits
   * instead of overwriting this change (PostgreSQL: FOR UPDATE; SQLite's
   * write transactions already exclude each other).
   */
  getForUpdate(kind: string, uid: string): Promise<StoredResource | undefined>;
  /** Replaces body and updateTime; undefined when there is no such row. */
  replace(kind: string, uid: string, body: Json, updateTime: string): Promise<StoredResource | undefined>;
  /** True when a row was removed. */
  delete(kind: string, uid: string): Promise<boolean>;
  list(query: StoreListQuery): Promise<StoreListResult>;
  /** Rows of each kind whose parent is `parent`. */
  countChildren(parent: string, kinds: readonly string[]): Promise<Record<string, number>>;
}

/** Times the v1 backend does not supply, kept for resources seen through the gateway. */
export interface ResourceTimes {
  createTime: string;
  updateTime: string;
}

export interface TimestampStore {
  /** Returns the kept times of each uid, first recording `now` for uids never seen before (stable thereafter). */
  observe(kind: string, uids: readonly string[], now: string): Promise<Map<string, ResourceTimes>>;
  /** A create through the gateway: both times are `now` (overwrites any earlier sighting). */
  created(kind: string, uid: string, now: string): Promise<void>;
  /** An update through the gateway: updateTime becomes `now` (createTime recorded now if never seen). */
  touched(kind: string, uid: string, now: string): Promise<void>;
  forget(kind: string, uid: string): Promise<void>;
  /** After a complete, unfiltered v1 list of `kind`: forgets uids of that kind not in `present`. Returns how many. */
  sweep(kind: string, present: readonly string[]): Promise<number>;
}

/** The live comparison's counters by (method, key), kept per run so replicas sharing the store add up. */
export interface ComparisonCounterStore {
  /** Adds `counts` (key → how many more) to the run's counters of `method`. */
  add(run: string, method: string, counts: ReadonlyMap<string, number>): Promise<void>;
  /** The run's counters so far, by method then key. */
  read(run: string): Promise<Map<string, Map<string, number>>>;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  readonly resources: ResourceStore;
  readonly timestamps: TimestampStore;
  /** Events to deliver and the keys that sign them; inside `transaction`, it writes in that transaction. */
  readonly events: EventOutboxStore;
  /** The live comparison's counters (`run` '' is the unnamed run). */
  readonly comparisons: ComparisonCounterStore;
  /**
   * Runs `work` atomically: everything it wrote commits together or not at all. One PostgreSQL ends for
   * a concurrent one's sake (a deadlock, a serialization failure) rejects with ABORTED: send it again.
   */
  transaction<T>(work: (store: Pick<Store, 'resources' | 'timestamps'>) => Promise<T>): Promise<T>;
  /** Every statement the store runs, as it ends (timing for metrics and traces); the function returned stops listening. */
  readonly queries: { subscribe(listener: QueryListener): () => void };
  /** Resolves when the database answers a trivial query (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
