/**
 * The store's one entry point: a location picks the engine, and the schema is
 * migrated before the store is handed out.
 *
 * - `postgres://…` / `postgresql://…`: PostgreSQL, shared by replicas.
 * - `:memory:`: the embedded engine with nothing on disk (tests, demos).
 * - anything else: a data directory (created if absent) holding `v2gw.sqlite`.
 */
import type { Store } from './types.ts';
import { postgresDialect, sqliteDialect } from './dialect.ts';
import { KyselyStore } from './kysely-store.ts';
import { migrate } from './migrations.ts';
import { QueryLog } from './query-log.ts';
import type { PostgresOptions } from './postgres.ts';
import type { SqliteOptions } from './sqlite.ts';

export type OpenStoreOptions = PostgresOptions & SqliteOptions;

export const isPostgresUrl = (location: string): boolean => /^postgres(?:ql)?:\/\//i.test(location);

export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const postgres = isPostgresUrl(location);
  const dialect = postgres ? postgresDialect : sqliteDialect;
  // Each engine's driver is loaded only when used: a sidecar on SQLite never loads pg.
  const queries = new QueryLog();
  const db = postgres
    ? (await import('./postgres.ts')).openPostgres(location, options, queries.log)
    : (await import('./sqlite.ts')).openSqlite(location, options, queries.log);
  try {
    await migrate(db, dialect, postgres ? (options.schema ?? 'public') : undefined);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return new KyselyStore(db, dialect, queries);
}
