/**
 * The embedded engine: one `node:sqlite` connection in the gateway's process,
 * no server to run. Kysely serialises use of the single connection (its SQLite
 * driver holds a mutex), so a transaction has the connection to itself.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, type LogConfig } from 'kysely';
import { kyselyDatabase, NodeSqliteDialect } from './node-sqlite.ts';
import type { Database } from './schema.ts';
import { TEXT_KEY_FUNCTION, textKey } from './text-key.ts';

export const SQLITE_FILE = 'v2gw.sqlite';

export interface SqliteOptions {
  /**
   * `NORMAL` (default): in WAL mode a commit is appended to the WAL before it
   * returns, so it survives the process being killed; only an OS crash or power
   * loss can lose the last commits. `FULL` also fsyncs the WAL at every commit,
   * which survives power loss at the cost of a disk flush per write.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * How long a writer waits for another process's write lock. node:sqlite is
   * synchronous, so the wait holds the event loop: one process per file is the
   * intended use.
   */
  busyTimeoutMs?: number;
}

/** `:memory:`, or a data directory (created if absent) holding `v2gw.sqlite`. */
export function sqliteFile(location: string): string {
  if (location === ':memory:') return location;
  mkdirSync(location, { recursive: true });
  return join(location, SQLITE_FILE);
}

/** `log` hears of every statement run (query-log.ts). */
export function openSqlite(location: string, options: SqliteOptions = {}, log?: LogConfig): Kysely<Database> {
  const db = new DatabaseSync(sqliteFile(location), { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    if (location !== ':memory:') db.exec('pragma journal_mode = wal');
    db.exec(`pragma synchronous = ${options.synchronous === 'FULL' ? 'full' : 'normal'}`);
    // Sort and index expressions call it (dialect.ts); deterministic, so indexes may.
    db.function(TEXT_KEY_FUNCTION, { deterministic: true }, (value) => textKey(typeof value === 'string' ? value : null));
  } catch (error) {
    db.close();
    throw error;
  }
  return new Kysely<Database>({ dialect: new NodeSqliteDialect({ database: kyselyDatabase(db) }), ...(log ? { log } : {}) });
}
