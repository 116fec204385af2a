/**
 * The store's tables as Kysely sees them. Column names are snake_case SQL;
 * the mapping to the contract's camelCase lives in the modules that read rows.
 */
import type { Generated } from 'kysely';

export const RESOURCES = 'v2gw_resources';
export const TIMES = 'v2gw_times';

export interface ResourcesTable {
  kind: string;
  uid: string;
  parent: string;
  /** TEXT holding JSON in SQLite, `json` in PostgreSQL; the dialect encodes and decodes it. */
  body: unknown;
  create_time: string;
  update_time: string;
}

/** The columns a StoredResource is read from (the table also has generated sort columns). */
export const RESOURCE_COLUMNS = ['kind', 'uid', 'parent', 'body', 'create_time', 'update_time'] as const;

export interface TimesTable {
  kind: string;
  uid: string;
  create_time: string;
  update_time: string;
}

/** The events outbox and the keys that sign deliveries (event-outbox.ts). */
export const EVENT_DELIVERIES = 'v2gw_event_deliveries';
export const EVENT_KEYS = 'v2gw_event_keys';

export interface EventDeliveriesTable {
  seq: Generated<number>;
  event_id: string;
  subscription: string;
  sink: string;
  grp: string;
  attributes: string;
  data: string;
  attempts: number;
  state: string;
  next_ms: number;
  lease_until_ms: number;
  first_ms: number;
}

export interface EventKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_ms: number;
}

/** The live comparison's counters, per run (compare-counters.ts). */
export const COMPARE_COUNTERS = 'v2gw_compare_counters';

export interface CompareCountersTable {
  /** `--compare-run`; '' for the unnamed run. */
  run: string;
  method: string;
  key: string;
  /** bigint in PostgreSQL, read back as text. */
  value: number | string;
}

export interface Database {
  [RESOURCES]: ResourcesTable;
  [TIMES]: TimesTable;
  [EVENT_DELIVERIES]: EventDeliveriesTable;
  [EVENT_KEYS]: EventKeysTable;
  [COMPARE_COUNTERS]: CompareCountersTable;
}
