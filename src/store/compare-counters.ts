/**
 * ComparisonCounterStore: the live comparison's counters (compare/report-store.ts)
 * as rows of (run, method, key, value). `add` is an upsert that adds, so
 * replicas sharing a PostgreSQL store each add their new counts and any of
 * them reads the sum; the embedded store keeps them across restarts the same way.
 */
import type { ComparisonCounterStore } from './types.ts';
import type { Executor } from './resources.ts';
import { COMPARE_COUNTERS } from './schema.ts';

export class CompareCounters implements ComparisonCounterStore {
  readonly #db: Executor;

  constructor(db: Executor) {
    this.#db = db;
  }

  async add(run: string, method: string, counts: ReadonlyMap<string, number>): Promise<void> {
    const rows = [...counts].map(([key, value]) => ({ run, method, key, value }));
    if (rows.length === 0) return;
    await this.#db()
      .insertInto(COMPARE_COUNTERS)
      .values(rows)
      .onConflict((oc) => oc.columns(['run', 'method', 'key']).doUpdateSet((eb) => ({ value: eb(eb.ref(`${COMPARE_COUNTERS}.value`), '+', eb.ref('excluded.value')) })))
      .execute();
  }

  async read(run: string): Promise<Map<string, Map<string, number>>> {
    const rows = await this.#db().selectFrom(COMPARE_COUNTERS).select(['method', 'key', 'value']).where('run', '=', run).execute();
    const out = new Map<string, Map<string, number>>();
    for (const row of rows) {
      const byKey = out.get(row.method) ?? new Map<string, number>();
      // PostgreSQL's bigint arrives as text.
      byKey.set(row.key, Number(row.value));
      out.set(row.method, byKey);
    }
    return out;
  }
}
