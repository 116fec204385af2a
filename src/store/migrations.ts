/**
 * Versioned schema migrations, run at open by Kysely's Migrator (names sort in
 * the order they apply; an applied migration is never edited, a change is a
 * new one). The Migrator holds a lock while it runs: PostgreSQL's is an
 * advisory lock, so replicas starting together migrate once; SQLite's is the
 * write lock of the BEGIN IMMEDIATE transaction the migrations run in.
 */
import { sql, type Kysely } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import { textKeyTerm, type Dialect } from './dialect.ts';
import { RESOURCES, TIMES } from './schema.ts';
import { TEXT_KEY_FUNCTION, TEXT_KEY_SQL_BODY } from './text-key.ts';

export const MIGRATION_TABLE = 'v2gw_migration';
export const MIGRATION_LOCK_TABLE = 'v2gw_migration_lock';

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

export function migrationProvider(d: Dialect): MigrationProvider {
  return { getMigrations: async () => ({ '0001_initial': initial(d) }) };
}
