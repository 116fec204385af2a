/**
 * Store over a Kysely database (already migrated): the two halves, and
 * transactions.
 *
 * A transaction is also the ambient executor of the async context it runs in
 * (AsyncLocalStorage): a call made through the outer store from inside `work`
 * joins the transaction instead of waiting for a second connection. On SQLite
 * there is no second connection (the transaction holds the only one), so that
 * call would otherwise wait forever. A nested `transaction` becomes a savepoint:
 * its work rolls back alone if it throws.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';
import { ApiError } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import type { Store } from './types.ts';
import type { Dialect } from './dialect.ts';
import { resourceQueries, type ResourceQueries } from './prepared.ts';
import { Resources } from './resources.ts';
import type { Database } from './schema.ts';
import { Timestamps } from './timestamps.ts';
import { EventOutbox } from './event-outbox.ts';
import { CompareCounters } from './compare-counters.ts';
import type { QueryLog } from './query-log.ts';

interface Scope {
  trx: Kysely<Database>;
  /** False once the transaction ended: work it started and left running falls back to the database. */
  open: boolean;
  savepoints: number;
}

type Views = Pick<Store, 'resources' | 'timestamps'>;

export class KyselyStore implements Store {
  readonly engine: Store['engine'];
  readonly resources: Resources;
  readonly timestamps: Timestamps;
  readonly events: EventOutbox;
  readonly comparisons: CompareCounters;
  readonly queries: Pick<QueryLog, 'subscribe'>;
  readonly #db: Kysely<Database>;
  readonly #dialect: Dialect;
  readonly #scope = new AsyncLocalStorage<Scope>();
  readonly #queries: ResourceQueries;

  constructor(db: Kysely<Database>, dialect: Dialect, queries: Pick<QueryLog, 'subscribe'>) {
    this.#db = db;
    this.queries = queries;
    this.#dialect = dialect;
    this.engine = dialect.engine;
    this.#queries = resourceQueries(db);
    const current = () => {
      const scope = this.#scope.getStore();
      return scope?.open ? scope.trx : this.#db;
    };
    this.resources = new Resources(current, dialect, this.#queries);
    this.timestamps = new Timestamps(current, dialect);
    this.events = new EventOutbox(current, dialect.engine);
    this.comparisons = new CompareCounters(current);
  }

  #views(trx: Kysely<Database>): Views {
    return { resources: new Resources(() => trx, this.#dialect, this.#queries), timestamps: new Timestamps(() => trx, this.#dialect) };
  }

  async transaction<T>(work: (store: Views) => Promise<T>): Promise<T> {
    const scope = this.#scope.getStore();
    if (scope?.open) return this.#savepoint(scope, work);
    return this.#db.transaction().execute(async (trx) => {
      const inner: Scope = { trx, open: true, savepoints: 0 };
      try {
        return await this.#scope.run(inner, () => work(this.#views(trx)));
      } finally {
        inner.open = false;
      }
    }).catch((error: unknown) => {
      throw concurrencyAborted(error) ?? error;
    });
  }

  async #savepoint<T>(scope: Scope, work: (store: Views) => Promise<T>): Promise<T> {
    const name = sql.raw(`v2gw_sp${++scope.savepoints}`);
    await sql`savepoint ${name}`.execute(scope.trx);
    try {
      const result = await work(this.#views(scope.trx));
      await sql`release savepoint ${name}`.execute(scope.trx);
      return result;
    } catch (error) {
      await sql`rollback to savepoint ${name}`.execute(scope.trx);
      await sql`release savepoint ${name}`.execute(scope.trx);
      throw error;
    }
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}

/** PostgreSQL's deadlock_detected and serialization_failure: the transaction was ended for another's sake. */
const CONCURRENCY_FAILURES = new Set(['40P01', '40001']);

/**
 * A transaction PostgreSQL ended because of a concurrent one (two writes each waiting on a row the other
 * holds): nothing of it was written, and the same request sent again may succeed. ABORTED, as AIP-193
 * answers a concurrency conflict, rather than an internal error.
 */
function concurrencyAborted(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !CONCURRENCY_FAILURES.has(code)) return undefined;
  return new ApiError(Code.ABORTED, 'the write met a concurrent write to the same rows and was not made; send it again');
}
