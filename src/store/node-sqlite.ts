/**
 * `node:sqlite` behind Kysely's SQLite dialect, which was written for
 * better-sqlite3: the database and statement shapes it needs (`prepare`,
 * `reader`, `all`/`run`/`iterate` taking an array), plus two adjustments.
 *
 * - Transactions begin IMMEDIATE: Kysely sends a plain (deferred) BEGIN, and a
 *   deferred transaction that reads before it writes fails with SQLITE_BUSY,
 *   without waiting, if another connection (another process) wrote in between.
 *   Taking the write lock up front makes it wait for busy_timeout instead.
 * - The adapter declares transactional DDL, which SQLite has, so the Migrator
 *   runs migrations inside that BEGIN IMMEDIATE: two processes opening one file
 *   migrate one after the other, not both at once.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { SqliteAdapter, SqliteDialect, type DialectAdapter, type SqliteDatabase, type SqliteStatement } from 'kysely';

const STATEMENT_CACHE = 64;

function bindable(values: readonly unknown[]): SQLInputValue[] {
  return values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v === undefined ? null : (v as SQLInputValue)));
}

function adaptStatement(statement: StatementSync): SqliteStatement {
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...bindable(parameters)),
    run: (parameters) => statement.run(...bindable(parameters)),
    iterate: (parameters) => statement.iterate(...bindable(parameters)),
  };
}

/** Kysely's view of one DatabaseSync, with prepared statements reused by SQL text. */
export function kyselyDatabase(db: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(text: string) {
      const source = text === 'begin' ? 'begin immediate' : text;
      let statement = cache.get(source);
      if (statement) {
        // Refresh its place: the cache evicts the least recently used.
        cache.delete(source);
      } else {
        statement = adaptStatement(db.prepare(source));
        if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      }
      cache.set(source, statement);
      return statement;
    },
  };
}

class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlAdapter();
  }
}
