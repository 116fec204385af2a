/**
 * Every statement the store runs, reported as it ends: its operation (the
 * SQL keyword), its table, how long it took and whether it failed. Kysely
 * hands each query to the `log` function its instance was built with; this is
 * that function, passing each report on to whoever listens (the query-time
 * metric, the trace). Only the statement's shape is read, never its
 * parameters: nothing a caller sent reaches a listener.
 */
import type { LogEvent } from 'kysely';
import { failureType } from '../observability/error-type.ts';
import type { StoreQuery } from '../observability/store-query.ts';

/** OpenTelemetry's `db.system.name` for each engine. */
export const DB_SYSTEM_NAME = { sqlite: 'sqlite', postgres: 'postgresql' } as const;

export type QueryListener = (query: StoreQuery) => void;

/** Bounded: one of these names, or OTHER, so a metric label stays small whatever runs. */
const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'CREATE', 'ALTER', 'DROP', 'PRAGMA']);

/** The operation and first table of a statement, from its text (Kysely quotes identifiers; parameters are placeholders). */
export function statementShape(sql: string): { operation: string; table: string | undefined } {
  const keyword = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
  const table = /\b(?:from|into|update|table)\s+"?(\w+)"?/i.exec(sql)?.[1];
  return { operation: OPERATIONS.has(keyword) ? keyword : 'OTHER', table };
}

export class QueryLog {
  readonly #listeners = new Set<QueryListener>();

  /** Tells `listener` of every query from now on; the function returned stops it. */
  subscribe(listener: QueryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Kysely's `log` option. */
  readonly log = (event: LogEvent): void => {
    if (this.#listeners.size === 0) return;
    const query: StoreQuery = {
      ...statementShape(event.query.sql),
      durationMs: event.queryDurationMillis,
      endedAt: performance.now(),
      error: event.level === 'error' ? failureType(event.error) : undefined,
    };
    for (const listener of this.#listeners) listener(query);
  };
}
