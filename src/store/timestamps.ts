/**
 * TimestampStore: times v1 does not keep, in their own table. `observe` is two
 * statements whatever the number of uids (the list travels as one parameter),
 * and insert-if-absent is ON CONFLICT DO NOTHING, so replicas sighting the same
 * uid at once agree on whichever sighting committed first.
 */
import { sql } from 'kysely';
import type { ResourceTimes, TimestampStore } from './types.ts';
import type { Dialect } from './dialect.ts';
import type { Executor } from './resources.ts';
import { TIMES } from './schema.ts';

export class Timestamps implements TimestampStore {
  readonly #db: Executor;
  readonly #d: Dialect;

  constructor(db: Executor, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async observe(kind: string, uids: readonly string[], now: string): Promise<Map<string, ResourceTimes>> {
    const times = new Map<string, ResourceTimes>();
    if (uids.length === 0) return times;
    const db = this.#db();
    const source = this.#d.listSource(uids);
    await db
      .insertInto(TIMES)
      .columns(['kind', 'uid', 'create_time', 'update_time'])
      // WHERE true: SQLite cannot otherwise tell an upsert's ON from a join's ON after INSERT … SELECT.
      .expression(sql`select cast(${kind} as text), value, cast(${now} as text), cast(${now} as text) from ${source} as given where true`.$castTo())
      .onConflict((oc) => oc.columns(['kind', 'uid']).doNothing())
      .execute();
    const rows = await db
      .selectFrom(TIMES)
      .select(['uid', 'create_time', 'update_time'])
      .where('kind', '=', kind)
      .where(this.#d.inList(sql.ref('uid'), uids))
      .execute();
    for (const row of rows) times.set(row.uid, { createTime: row.create_time, updateTime: row.update_time });
    return times;
  }

  async created(kind: string, uid: string, now: string): Promise<void> {
    await this.#db()
      .insertInto(TIMES)
      .values({ kind, uid, create_time: now, update_time: now })
      .onConflict((oc) => oc.columns(['kind', 'uid']).doUpdateSet({ create_time: now, update_time: now }))
      .execute();
  }

  async touched(kind: string, uid: string, now: string): Promise<void> {
    await this.#db()
      .insertInto(TIMES)
      .values({ kind, uid, create_time: now, update_time: now })
      .onConflict((oc) => oc.columns(['kind', 'uid']).doUpdateSet({ update_time: now }))
      .execute();
  }

  async forget(kind: string, uid: string): Promise<void> {
    await this.#db().deleteFrom(TIMES).where('kind', '=', kind).where('uid', '=', uid).execute();
  }

  async sweep(kind: string, present: readonly string[]): Promise<number> {
    let query = this.#db().deleteFrom(TIMES).where('kind', '=', kind);
    if (present.length > 0) query = query.where(sql<boolean>`not (${this.#d.inList(sql.ref('uid'), present)})`);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
