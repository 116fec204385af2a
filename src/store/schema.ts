/**
 * The store's tables as Kysely sees them. Column names are snake_case SQL;
 * the mapping to the contract's camelCase lives in the modules that read rows.
 */
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

export interface Database {
  [RESOURCES]: ResourcesTable;
  [TIMES]: TimesTable;
}
