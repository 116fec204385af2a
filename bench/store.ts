/**
 * Store micro-benchmark, both engines, one process each (so RSS is the
 * engine's): open (fresh, then again), 10,000 single-row inserts, gets, and
 * walking all 10,000 rows in keyset pages of 50 by uid and by name (asc, and
 * desc — which ends with `uid asc`, so mixed directions); each page also counts
 * the total, as the contract has it. Times are wall clock per operation.
 *
 * `raw` is the floor under the embedded engine, measured in the same run: bare
 * `node:sqlite` (same pragmas, a primary key and nothing else: no query
 * builder, no sort columns, no count), so a loaded machine's figures can be
 * read as ratios.
 *
 *   node bench/store.ts                     all three (PostgreSQL at V2GW_BENCH_PG_URL or the local one)
 *   node bench/store.ts raw|sqlite|postgres one, in this process
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, type OpenStoreOptions, type OrderKey, type Store, type StoredResource } from '../src/index.ts';

const ROWS = 10_000;
const PAGE = 50;
const GETS = 2_000;
const PG_URL = process.env.V2GW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = 'a'.repeat(40);
const WORDS = ['alpha', 'Beta', 'gamma', 'délta', 'epsilon', 'Zeta', 'eta', 'théta', 'iota', 'kappa'];

function resource(i: number): StoredResource {
  const uid = `${ROOT}/${(i * 2654435761 % 2 ** 32).toString(16).padStart(16, '0')}`;
  const name = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i % 97}`;
  const now = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
  return { kind: 'groups', uid, parent: ROOT, body: { uid, name, description: 'x'.repeat(120), roles: ['viewer'] }, createTime: now, updateTime: now };
}

const fmt = (n: number) => n.toFixed(n < 10 ? 1 : 0);

async function withPg(work: (client: import('pg').Client) => Promise<unknown>): Promise<void> {
  // Loaded here only: the SQLite figures are for a process that never loads pg.
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const value = await work();
  return [value, Number(process.hrtime.bigint() - start) / 1e6];
}

async function walk(store: Store, order: OrderKey[]): Promise<{ pages: number; ms: number }> {
  let after: unknown[] | undefined;
  let pages = 0;
  const [, ms] = await timed(async () => {
    for (;;) {
      const page = await store.resources.list({ kind: 'groups', filters: [{ field: 'uid', op: 'descendantOf', value: ROOT }], order, skip: 0, limit: PAGE, ...(after ? { after } : {}) });
      pages++;
      if (!page.more) break;
      const last = page.rows[page.rows.length - 1]!;
      after = order.map((k) => (k.field === 'uid' ? last.uid : (last.body as Record<string, unknown>)[k.field] ?? null));
    }
  });
  return { pages, ms };
}

async function run(engine: 'sqlite' | 'postgres'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-bench-'));
  const location = engine === 'sqlite' ? dir : PG_URL;
  const options: OpenStoreOptions = engine === 'postgres' ? { schema: `v2gw_bench_${process.pid}` } : {};
  try {
    const [first, openFresh] = await timed(() => openStore(location, options));
    await first.close();
    const [store, openAgain] = await timed(() => openStore(location, options));
    const rssOpenMb = process.memoryUsage().rss / 2 ** 20;
    const rows = Array.from({ length: ROWS }, (_, i) => resource(i));
    const [, insertMs] = await timed(async () => {
      for (const r of rows) await store.resources.insert(r);
    });
    // PostgreSQL plans from statistics that autovacuum keeps in a live database; a
    // table filled a moment ago has none yet, so gather them as autovacuum would.
    if (engine === 'postgres') await withPg((client) => client.query(`vacuum analyze ${options.schema}.v2gw_resources`));
    const [, getMs] = await timed(async () => {
      for (let i = 0; i < GETS; i++) await store.resources.get('groups', rows[(i * 7919) % ROWS]!.uid);
    });
    const byUid = await walk(store, [{ field: 'uid', desc: false }]);
    const byName = await walk(store, [{ field: 'name', desc: false }, { field: 'uid', desc: false }]);
    const byNameDesc = await walk(store, [{ field: 'name', desc: true }, { field: 'uid', desc: false }]);
    const rssMb = process.memoryUsage().rss / 2 ** 20;
    await store.close();
    const perPage = (w: { pages: number; ms: number }) => fmt((w.ms * 1000) / w.pages);
    console.log(
      `${engine.padEnd(8)} open ${fmt(openFresh)} ms (fresh, migrating) / ${fmt(openAgain)} ms (again); ` +
        `insert ${fmt((insertMs * 1000) / ROWS)} µs; get ${fmt((getMs * 1000) / GETS)} µs; ` +
        `page of ${PAGE} of ${ROWS}: by uid ${perPage(byUid)} µs, by name ${perPage(byName)} µs, by name desc ${perPage(byNameDesc)} µs; ` +
        `RSS ${fmt(rssOpenMb)} MB open, ${fmt(rssMb)} MB at the end`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (engine === 'postgres') await withPg((client) => client.query(`drop schema if exists ${options.schema} cascade`));
  }
}

/** Bare node:sqlite: the same rows, inserts, gets and uid pages, nothing else. */
async function runRaw(): Promise<void> {
  const { DatabaseSync } = await import('node:sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-bench-'));
  try {
    const [db, openMs] = await timed(async () => {
      const db = new DatabaseSync(join(dir, 'raw.sqlite'));
      db.exec('pragma journal_mode = wal; pragma synchronous = normal');
      db.exec('create table r (kind text, uid text, parent text, body text, create_time text, update_time text, primary key (kind, uid))');
      return db;
    });
    const rows = Array.from({ length: ROWS }, (_, i) => resource(i));
    const insert = db.prepare('insert into r values (?, ?, ?, ?, ?, ?)');
    const [, insertMs] = await timed(async () => {
      for (const r of rows) insert.run(r.kind, r.uid, r.parent, JSON.stringify(r.body), r.createTime, r.updateTime);
    });
    const get = db.prepare('select * from r where kind = ? and uid = ?');
    const [, getMs] = await timed(async () => {
      for (let i = 0; i < GETS; i++) JSON.parse((get.get('groups', rows[(i * 7919) % ROWS]!.uid) as { body: string }).body);
    });
    const page = db.prepare('select * from r where kind = ? and uid > ? order by uid limit ?');
    let pages = 0;
    const [, pageMs] = await timed(async () => {
      for (let after = ''; ; pages++) {
        const got = page.all('groups', after, PAGE + 1) as { uid: string; body: string }[];
        for (const r of got.slice(0, PAGE)) JSON.parse(r.body);
        if (got.length <= PAGE) break;
        after = got[PAGE - 1]!.uid;
      }
    });
    const rssMb = process.memoryUsage().rss / 2 ** 20;
    db.close();
    console.log(
      `raw      open ${fmt(openMs)} ms; insert ${fmt((insertMs * 1000) / ROWS)} µs; get ${fmt((getMs * 1000) / GETS)} µs; ` +
        `page of ${PAGE} of ${ROWS}: by uid ${fmt((pageMs * 1000) / (pages + 1))} µs; RSS ${fmt(rssMb)} MB at the end`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.argv[2];
if (only === 'raw') {
  await runRaw();
} else if (only === 'sqlite' || only === 'postgres') {
  await run(only);
} else {
  for (const engine of ['raw', 'sqlite', 'postgres']) {
    spawnSync(process.execPath, [fileURLToPath(import.meta.url), engine], { stdio: 'inherit' });
  }
}
