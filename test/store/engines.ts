/**
 * Both engines as the store tests see them: each `fresh()` is a new, empty
 * place to open a store at (a temporary data directory; a PostgreSQL schema of
 * its own), and `cleanup()` removes them all. PostgreSQL comes from
 * V2GW_TEST_PG_URL, which the run's globalSetup (support/postgres-server.ts)
 * sets: the local server CI runs, else one started for the run; when it does
 * not answer, its tests fail with a message saying so, they are never skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type OpenStoreOptions } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';

export const PG_URL = process.env.V2GW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Place {
  /** What `openStore` takes to reach this place (a child process can too). */
  location: string;
  options: OpenStoreOptions;
  /** Opens a store here; opening the same place again reaches the same data. */
  open(): Promise<Store>;
}

export interface Engine {
  name: 'sqlite' | 'postgres';
  fresh(): Promise<Place>;
  cleanup(): Promise<void>;
}

export function sqliteEngine(): Engine {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'v2gw-store-'));
      dirs.push(dir);
      return { location: dir, options: {}, open: () => openStore(dir) };
    },
    async cleanup() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function reachPostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL} (${error instanceof Error ? error.message : String(error)}). ` +
        'The PostgreSQL store tests need a server: start the local one (.ci/run does) or set V2GW_TEST_PG_URL.',
    );
  } finally {
    await client.end().catch(() => {});
  }
}

export function postgresEngine(): Engine {
  const schemas: string[] = [];
  let reached: Promise<void> | undefined;
  const prefix = `v2gw_test_${process.pid}_${Date.now().toString(36)}`;
  return {
    name: 'postgres',
    async fresh() {
      reached ??= reachPostgres();
      await reached;
      const options: OpenStoreOptions = { schema: `${prefix}_${schemas.length}`, poolSize: 4 };
      schemas.push(options.schema!);
      return { location: PG_URL, options, open: () => openStore(PG_URL, options) };
    },
    async cleanup() {
      if (schemas.length === 0) return;
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        for (const schema of schemas.splice(0)) await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

export const ENGINES: readonly (() => Engine)[] = [sqliteEngine, postgresEngine];
