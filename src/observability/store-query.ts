/**
 * What the store reports of each statement it ran (store/query-log.ts), as the query-time metric and
 * the trace read it. Declared here, beside its readers, so observability imports nothing of the store.
 */
export interface StoreQuery {
  /** `SELECT`, `INSERT`, `UPDATE`, `DELETE`, `BEGIN`, …: the statement's first keyword (`OTHER` for any other). */
  operation: string;
  /** The table the statement names first, if any. */
  table: string | undefined;
  /** Its duration in milliseconds. */
  durationMs: number;
  /** When it ended, on the performance.now() clock. */
  endedAt: number;
  /** Why it failed (the driver's error code, else the error's class), or undefined when it did not. */
  error: string | undefined;
}
