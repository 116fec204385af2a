/**
 * Opening PostgreSQL stores while other sessions change the database's other
 * schemas, as replicas and parallel test files do. Kysely's own introspector,
 * which the Migrator asks whether its tables exist, read every schema and
 * failed with `schema "…" does not exist` whenever someone else's schema was
 * dropped during that query.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_URL, postgresEngine } from './engines.ts';

const OPENINGS = 20;

describe('store on PostgreSQL: opening among other sessions', () => {
  const engine = postgresEngine();
  afterAll(() => engine.cleanup());

  it(`opens ${OPENINGS} fresh schemas at once while other schemas are created and dropped`, async () => {
    const places = await Promise.all(Array.from({ length: OPENINGS }, () => engine.fresh()));
    let stop = false;
    // Two sessions creating and dropping schemas of their own (with a serial table, as
    // any application's would have) until every opening has settled.
    const churn = async (n: number) => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        for (let i = 0; !stop; i++) {
          const schema = `v2gw_churn_${process.pid}_${n}_${i}`;
          await client.query(`create schema ${schema}; create table ${schema}.t (id serial primary key, v text)`);
          await client.query(`drop schema ${schema} cascade`);
        }
      } finally {
        await client.end();
      }
    };
    const churners = [churn(0), churn(1)];
    const opened = await Promise.allSettled(places.map(async (place) => (await place.open()).close()));
    stop = true;
    await Promise.all(churners);
    const failures = opened.flatMap((r) => (r.status === 'rejected' ? [String(r.reason instanceof Error ? r.reason.message : r.reason)] : []));
    expect(failures).toEqual([]);

    // Each place was migrated and holds a working store.
    const store = await places[0]!.open();
    try {
      const row = { kind: 'groups', uid: 'a', parent: '', body: { name: 'x' }, createTime: '2024-01-01T00:00:00.000Z', updateTime: '2024-01-01T00:00:00.000Z' };
      await store.resources.insert(row);
      expect(await store.resources.get('groups', 'a')).toEqual(row);
    } finally {
      await store.close();
    }
  });
});
