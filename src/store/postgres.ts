/**
 * The shared engine: a `pg` pool to a PostgreSQL database that several gateway
 * replicas use at once. The store lives in one schema (`public` unless told
 * otherwise), which every pooled connection has as its search_path.
 */
import {
  Kysely,
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type LogConfig,
  type PostgresDialectConfig,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from 'kysely/migration';
import pg from 'pg';
import type { Database } from './schema.ts';

export interface PostgresOptions {
  /** Schema holding the store's tables; created if absent. Default `public`. */
  schema?: string;
  /** Most connections this process holds. Default 10. */
  poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** `log` hears of every statement run (query-log.ts). */
export function openPostgres(url: string, options: PostgresOptions = {}, log?: LogConfig): Kysely<Database> {
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
  return new Kysely<Database>({ dialect: new SchemaPostgresDialect({ pool }, schema), ...(log ? { log } : {}) });
}

/** PostgreSQL as Kysely has it, but `db.introspection` sees the store's schema only. */
class SchemaPostgresDialect extends PostgresDialect {
  readonly #schema: string;

  constructor(config: PostgresDialectConfig, schema: string) {
    super(config);
    this.#schema = schema;
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaIntrospector(db, this.#schema);
  }
}

interface ColumnRow {
  table: string;
  table_type: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: boolean;
}

/**
 * The Migrator asks `db.introspection.getTables()` whether its tables exist.
 * Kysely's PostgresIntrospector answers by reading every schema in the
 * database and calling `has_schema_privilege(nspname, …)` and
 * `pg_get_serial_sequence('schema.table', …)` on each row: functions that look
 * the name up again in the current catalog, not in the query's snapshot. A
 * schema another session drops while that query runs (another replica's or
 * test's cleanup) is still in the snapshot but gone by name, and the query
 * fails with `schema "…" does not exist`, naming a schema that is not ours.
 * This one reads only the store's schema and resolves nothing by name, so
 * other sessions' DDL cannot fail it.
 */
class SchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<any>;
  readonly #schema: string;

  constructor(db: Kysely<any>, schema: string) {
    this.#db = db;
    this.#schema = schema;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db);
    return rows.map(({ name }) => ({ name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    // Serial and identity columns both own their sequence through pg_depend, as pg_get_serial_sequence finds it.
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, c.relkind as table_type, a.attname as column, a.attnotnull as not_null,
        a.atthasdef as has_default, t.typname as type, tns.nspname as type_schema,
        col_description(c.oid, a.attnum) as column_description,
        exists (
          select from pg_catalog.pg_depend d join pg_catalog.pg_class s on s.oid = d.objid and s.relkind = 'S'
          where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass
            and d.refobjid = c.oid and d.refobjsubid = a.attnum and d.deptype in ('a', 'i')
        ) as auto_incrementing
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type t on t.oid = a.atttypid
      join pg_catalog.pg_namespace tns on tns.oid = t.typnamespace
      where ns.nspname = ${this.#schema} and c.relkind in ('r', 'v', 'p', 'f')
        and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.#db);
    const internal = options.withInternalKyselyTables ? [] : [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (internal.includes(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: this.#schema, isView: row.table_type === 'v', isForeign: row.table_type === 'f', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing,
        comment: row.column_description ?? undefined,
      });
    }
    return [...tables.values()];
  }
}
