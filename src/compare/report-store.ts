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

/**
 * Counts made here are moved to the table every `flushMs`, and before each read.
 * A named run (`--compare-run`) keeps its rows apart: the method column holds
 * `<run>\t<method>` (a method name has no tab), so a new run starts from zero
 * on the same table. The unnamed run is the method alone.
 */
export async function postgresStore(url: string, flushMs = 1000, run = ''): Promise<CounterStore> {
  const prefix = run ? `${run}\t` : '';
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
          methods.push(prefix + method);
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
      // The unnamed run's rows are those without a tab; a named run's, those with its prefix (stripped).
      const { rows } = await pool.query<{ method: string; key: string; value: string }>(
        prefix ? `SELECT method, key, value FROM ${TABLE} WHERE starts_with(method, $1)` : `SELECT method, key, value FROM ${TABLE} WHERE strpos(method, E'\\t') = 0`,
        prefix ? [prefix] : [],
      );
      const out: Counters = new Map();
      for (const row of rows) {
        const method = row.method.slice(prefix.length);
        const byKey = out.get(method) ?? new Map<string, number>();
        byKey.set(row.key, Number(row.value));
        out.set(method, byKey);
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
