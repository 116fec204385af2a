/**
 * The test run's own PostgreSQL (postgres-server.ts), taken down the branch a fresh machine takes:
 * no V2GW_TEST_PG_URL, and nothing answering where the local server would be (here an unused port).
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './cli-process.ts';
import setup from './postgres-server.ts';

const saved = { url: process.env.V2GW_TEST_PG_URL, probe: process.env.V2GW_TEST_PG_PROBE_URL };
afterEach(() => {
  for (const [name, value] of [['V2GW_TEST_PG_URL', saved.url], ['V2GW_TEST_PG_PROBE_URL', saved.probe]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function query(url: string, sql: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0];
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL of a test run', () => {
  it('uses V2GW_TEST_PG_URL as given, starting nothing', async () => {
    process.env.V2GW_TEST_PG_URL = 'postgres://nobody@127.0.0.1:1/elsewhere';
    expect(await setup()).toBeUndefined();
    expect(process.env.V2GW_TEST_PG_URL).toBe('postgres://nobody@127.0.0.1:1/elsewhere');
  });

  it('when none answers, starts a real PostgreSQL with a `test` database, and removes it after', { timeout: 120_000 }, async () => {
    delete process.env.V2GW_TEST_PG_URL;
    process.env.V2GW_TEST_PG_PROBE_URL = `postgres://postgres@127.0.0.1:${await freePort()}/test`;
    const teardown = await setup();
    expect(teardown).toBeTypeOf('function');
    const url = process.env.V2GW_TEST_PG_URL!;
    expect(url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/test$/);
    const row = await query(url, "select current_database() as db, current_setting('data_directory') as dir, version() as version");
    expect(row.db).toBe('test');
    expect(String(row.version)).toMatch(/^PostgreSQL \d+/);
    const dir = String(row.dir);
    expect(existsSync(dir)).toBe(true);
    await teardown!();
    expect(existsSync(dir)).toBe(false);
    await expect(query(url, 'select 1')).rejects.toThrow();
  });
});
