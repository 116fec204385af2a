/**
 * The shared engine: a `pg` pool to a PostgreSQL database that several gateway
 * replicas use at once. The store lives in one schema (`public` unless told
 * otherwise), which every pooled connection has as its search_path.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export interface PostgresOptions {
  /** Schema holding the store's tables; created if absent. Default `public`. */
  schema?: string;
  /** Most connections this process holds. Default 10. */
  poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function openPostgres(url: string, options: PostgresOptions = {}): Kysely<Database> {
  const schema = options.schema ?? 'public';
  // Plain lower-case identifiers only: the name travels unquoted inside a libpq options string.
  if (!SCHEMA_NAME.test(schema)) throw new TypeError(`store: "${schema}" is not a plain schema name`);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A startup parameter, so it holds on every connection from the first query.
    options: `-c search_path=${schema}`,
  });
  // An idle client's error (the server went away) must not crash the process;
  // the pool drops that client and the next query gets a fresh one.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
