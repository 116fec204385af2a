/**
 * Versioned schema migrations, run at open by Kysely's Migrator (names sort in
 * the order they apply; an applied migration is never edited, a change is a
 * new one). The Migrator holds a lock while it runs: PostgreSQL's is an
 * advisory lock, so replicas starting together migrate once; SQLite's is the
 * write lock of the BEGIN IMMEDIATE transaction the migrations run in.
 */
import { sql, type ColumnDefinitionBuilder, type Expression, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { textKeyTerm, type Dialect } from './dialect.ts';
import { sortColumns } from './fields.ts';
import { RESOURCES, TIMES, type Database } from './schema.ts';
import { eventOutbox } from './event-outbox-migration.ts';
import { compareCounters } from './compare-counters-migration.ts';
import { TEXT_KEY_FUNCTION, TEXT_KEY_SQL_BODY } from './text-key.ts';

const MIGRATION_TABLE = 'v2gw_migration';
const MIGRATION_LOCK_TABLE = 'v2gw_migration_lock';

function initial(d: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (d.engine === 'postgres') {
        // Immutable, so indexes may use it; SQLite has the same function registered on its connection.
        await sql`create or replace function ${sql.raw(TEXT_KEY_FUNCTION)}(text) returns text
          language sql immutable parallel safe as ${sql.lit(TEXT_KEY_SQL_BODY)}`.execute(db);
      }
      await db.schema
        .createTable(RESOURCES)
        .addColumn('kind', d.textType, (c) => c.notNull())
        .addColumn('uid', d.textType, (c) => c.notNull())
        .addColumn('parent', d.textType, (c) => c.notNull())
        .addColumn('body', d.bodyType, (c) => c.notNull())
        .addColumn('create_time', d.textType, (c) => c.notNull())
        .addColumn('update_time', d.textType, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${RESOURCES}_pk`, ['kind', 'uid'])
        .execute();
      // countChildren and childOf.
      await db.schema.createIndex(`${RESOURCES}_parent`).on(RESOURCES).columns(['kind', 'parent']).execute();
      // order_by=createTime / updateTime, the keyset's tie-break included.
      await db.schema.createIndex(`${RESOURCES}_create`).on(RESOURCES).columns(['kind', 'create_time', 'uid']).execute();
      await db.schema.createIndex(`${RESOURCES}_update`).on(RESOURCES).columns(['kind', 'update_time', 'uid']).execute();
      // order_by=name: the very sort terms list() orders by (order.ts), so a keyset page is an
      // index range, not a sort of every row. They must stay identical to the query's.
      const name = ['name'];
      await sql`create index ${sql.ref(`${RESOURCES}_name`)} on ${sql.table(RESOURCES)}
        (kind, ${d.rank(name)}, ${d.number(name)}, ${textKeyTerm(d, name)}, uid)`.execute(db);

      await db.schema
        .createTable(TIMES)
        .addColumn('kind', d.textType, (c) => c.notNull())
        .addColumn('uid', d.textType, (c) => c.notNull())
        .addColumn('create_time', d.textType, (c) => c.notNull())
        .addColumn('update_time', d.textType, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${TIMES}_pk`, ['kind', 'uid'])
        .execute();
    },
  };
}

/**
 * `name`'s sort terms as generated columns (virtual in SQLite, stored in
 * PostgreSQL, which has no other kind), indexed in place of 0001's expression
 * index: SQLite seeks a keyset cursor's row-value comparison on columns only,
 * and walked the whole index from its start for every page.
 */
function sortColumnsForName(d: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      const path = ['name'];
      const [rank, number, key] = sortColumns('name');
      const generated = (c: ColumnDefinitionBuilder, expr: Expression<unknown>) =>
        d.engine === 'postgres' ? c.generatedAlwaysAs(expr).stored() : c.generatedAlwaysAs(expr);
      await db.schema.alterTable(RESOURCES).addColumn(rank, 'integer', (c) => generated(c, d.rank(path))).execute();
      await db.schema.alterTable(RESOURCES).addColumn(number, 'numeric', (c) => generated(c, d.number(path))).execute();
      await db.schema.alterTable(RESOURCES).addColumn(key, d.textType, (c) => generated(c, textKeyTerm(d, path))).execute();
      await db.schema.dropIndex(`${RESOURCES}_name`).execute();
      await db.schema.createIndex(`${RESOURCES}_name`).on(RESOURCES).columns(['kind', rank, number, key, 'uid']).execute();
    },
  };
}

function migrationProvider(d: Dialect): MigrationProvider {
  return { getMigrations: async () => ({ '0001_initial': initial(d), '0002_name_sort_columns': sortColumnsForName(d), '0003_event_outbox': eventOutbox(d), '0004_compare_counters': compareCounters(d) }) };
}

/** Brings the schema to the latest version; `schema` is PostgreSQL's, where the migration tables live too. */
export async function migrate(db: Kysely<Database>, dialect: Dialect, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider(dialect),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`store: migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

