/**
 * Where the counters live. In memory, per process; or, when replicas share a
 * PostgreSQL store, in one table of (method, key, value) rows that each
 * replica adds its new counts to (an upsert that adds), so the report any
 * replica serves is the sum over all of them.
 */
import type { Pool } from 'pg';
import type { Counters } from './tally.ts';

export interface CounterStore {
  /** Where comparisons count. */
  readonly counters: Counters;
  /** Every replica's counts so far. */
  read(): Promise<Counters>;
  close(): Promise<void>;
}

export function memoryStore(): CounterStore {
  const counters: Counters = new Map();
  return { counters, read: async () => counters, close: async () => {} };
}

const TABLE = 'v2gw_compare_counters';

/** Counts made here are moved to the table every `flushMs`, and before each read. */
export async function postgresStore(url: string, flushMs = 1000): Promise<CounterStore> {
  const { default: pg } = await import('pg');
  const pool: Pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (method text NOT NULL, key text NOT NULL, value bigint NOT NULL, PRIMARY KEY (method, key))`);
  const counters: Counters = new Map();
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    flushing = flushing.then(async () => {
      const methods: string[] = [];
      const keys: string[] = [];
      const values: number[] = [];
      for (const [method, byKey] of counters) {
        for (const [key, value] of byKey) {
          methods.push(method);
          keys.push(key);
          values.push(value);
        }
      }
      counters.clear();
      if (methods.length === 0) return;
      await pool.query(
        `INSERT INTO ${TABLE} (method, key, value) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
         ON CONFLICT (method, key) DO UPDATE SET value = ${TABLE}.value + excluded.value`,
        [methods, keys, values],
      );
    }).catch(() => {
      // A store away for a moment loses these counts, never the gateway's answers.
    });
    return flushing;
  };
  const timer = setInterval(flush, flushMs);
  timer.unref();
  return {
    counters,
    async read() {
      await flush();
      const { rows } = await pool.query<{ method: string; key: string; value: string }>(`SELECT method, key, value FROM ${TABLE}`);
      const out: Counters = new Map();
      for (const row of rows) {
        const byKey = out.get(row.method) ?? new Map<string, number>();
        byKey.set(row.key, Number(row.value));
        out.set(row.method, byKey);
      }
      return out;
    },
    async close() {
      clearInterval(timer);
      await flush();
      await pool.end();
    },
  };
}
