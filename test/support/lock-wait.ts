/**
 * Whether a PostgreSQL session working on a schema's tables waits for a row lock another holds: how a
 * test sees, without timing anything, that a write is held back by a transaction still open.
 */
import pg from 'pg';

/**
 * True once a session with a lock on one of `schema`'s tables waits for a lock; false if `meanwhile`
 * settles first (what was expected to wait went through), which also ends the looking.
 */
export async function waitsOnLock(url: string, schema: string, meanwhile: Promise<unknown>): Promise<boolean> {
  let settled = false;
  meanwhile.then(() => (settled = true), () => (settled = true));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: string }>(`
        select count(*) as n from pg_stat_activity a
        where a.wait_event_type = 'Lock' and exists (
          select 1 from pg_locks l join pg_class c on c.oid = l.relation join pg_namespace n on n.oid = c.relnamespace
          where l.pid = a.pid and n.nspname = $1)`, [schema]);
      if (Number(rows[0]!.n) > 0) return true;
      if (settled) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await client.end();
  }
}
