/**
 * Migration 0004: the comparison's counters (compare-counters.ts) become a table
 * of the store. Before it, the comparison made `v2gw_compare_counters` itself on
 * a PostgreSQL store, as (method, key, value) with a named run's rows keyed
 * `<run>\t<method>`. That table is kept with its rows: made if absent in the old
 * shape, then given a `run` column filled by splitting the old key on its tab,
 * and a primary key that includes it. The embedded store never had the table.
 */
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from './dialect.ts';
import { COMPARE_COUNTERS } from './schema.ts';

export function compareCounters(d: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (d.engine === 'sqlite') {
        await db.schema
          .createTable(COMPARE_COUNTERS)
          .addColumn('run', d.textType, (c) => c.notNull())
          .addColumn('method', d.textType, (c) => c.notNull())
          .addColumn('key', d.textType, (c) => c.notNull())
          .addColumn('value', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${COMPARE_COUNTERS}_pk`, ['run', 'method', 'key'])
          .execute();
        return;
      }
      const table = sql.table(COMPARE_COUNTERS);
      await sql`create table if not exists ${table} (method text not null, key text not null, value bigint not null, primary key (method, key))`.execute(db);
      await sql`alter table ${table} add column run text not null default ''`.execute(db);
      // The old key first: a run's row and the unnamed run's row of one method meet on (method, key) once split.
      await sql`alter table ${table} drop constraint ${sql.ref(`${COMPARE_COUNTERS}_pkey`)}`.execute(db);
      await sql`update ${table} set run = split_part(method, E'\t', 1), method = substr(method, strpos(method, E'\t') + 1) where strpos(method, E'\t') > 0`.execute(db);
      await sql`alter table ${table} add constraint ${sql.ref(`${COMPARE_COUNTERS}_pkey`)} primary key (run, method, key)`.execute(db);
    },
  };
}
