/**
 * The comparison's counters as a table of the store (migration 0004): counts
 * add up per run, method and key, runs are kept apart, and they outlive the
 * process on both engines. A PostgreSQL database that already had the table
 * the comparison used to make itself keeps its rows, each in its run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ENGINES, PG_URL, postgresEngine } from './engines.ts';

const counts = (entries: Record<string, number>) => new Map(Object.entries(entries));
const plain = (read: Map<string, Map<string, number>>) => Object.fromEntries([...read].map(([method, byKey]) => [method, Object.fromEntries(byKey)]));

describe.each(ENGINES.map((make) => [make().name, make] as const))('comparison counters: %s', (_name, make) => {
  const engine = make();
  afterAll(() => engine.cleanup());

  it('adds counts to those already kept, each run apart, and keeps them after the store is closed', async () => {
    const place = await engine.fresh();
    const first = await place.open();
    await first.comparisons.add('', 'Get', counts({ compared: 2, 'sig\ta.b': 1 }));
    await first.comparisons.add('', 'Get', counts({ compared: 3 }));
    await first.comparisons.add('cut-1', 'Get', counts({ compared: 7 }));
    await first.comparisons.add('', 'List', counts({ errors: 1 }));
    await first.close();
    const again = await place.open();
    try {
      expect(plain(await again.comparisons.read(''))).toEqual({ Get: { compared: 5, 'sig\ta.b': 1 }, List: { errors: 1 } });
      expect(plain(await again.comparisons.read('cut-1'))).toEqual({ Get: { compared: 7 } });
      expect(plain(await again.comparisons.read('cut-2'))).toEqual({});
    } finally {
      await again.close();
    }
  });
});

describe('comparison counters: the table the comparison used to make itself', () => {
  const engine = postgresEngine();
  afterAll(() => engine.cleanup());

  it('keeps its rows, a named run\'s split from its method, and adds to them', async () => {
    const place = await engine.fresh();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`create schema ${place.options.schema}`);
      await client.query(`create table ${place.options.schema}.v2gw_compare_counters (method text not null, key text not null, value bigint not null, primary key (method, key))`);
      await client.query(`insert into ${place.options.schema}.v2gw_compare_counters values ('Get', 'compared', 4), (E'cut-1\\tGet', 'compared', 9), (E'cut-1\\tGet', E'sig\\tx', 2)`);
    } finally {
      await client.end();
    }
    const store = await place.open();
    try {
      await store.comparisons.add('cut-1', 'Get', counts({ compared: 1 }));
      expect(plain(await store.comparisons.read(''))).toEqual({ Get: { compared: 4 } });
      expect(plain(await store.comparisons.read('cut-1'))).toEqual({ Get: { compared: 10, 'sig\tx': 2 } });
    } finally {
      await store.close();
    }
  });
});
