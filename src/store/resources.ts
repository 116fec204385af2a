/**
 * ResourceStore over whichever Kysely executor is current (the database, or
 * the transaction a caller is inside). One code path for both engines; the
 * dialect supplies the few expressions that differ.
 */
import { sql, type Kysely } from 'kysely';
import type { Json, ResourceStore, StoredResource, StoreListQuery, StoreListResult } from './types.ts';
import { StoreConflictError } from './types.ts';
import type { Dialect } from './dialect.ts';
import { filterCondition } from './filters.ts';
import { pageColumnRef } from './index-hints.ts';
import { afterCondition, cursorTermValues, orderByClause, sortTerms } from './order.ts';
import { RESOURCE_COLUMNS, RESOURCES, type Database, type ResourcesTable } from './schema.ts';

export type Executor = () => Kysely<Database>;

function toResource(d: Dialect, row: Pick<ResourcesTable, (typeof RESOURCE_COLUMNS)[number]>): StoredResource {
  return {
    kind: row.kind,
    uid: row.uid,
    parent: row.parent,
    body: d.decodeBody(row.body),
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

export class Resources implements ResourceStore {
  readonly #db: Executor;
  readonly #d: Dialect;

  constructor(db: Executor, dialect: Dialect) {
    this.#db = db;
    this.#d = dialect;
  }

  async insert(r: StoredResource): Promise<void> {
    // ON CONFLICT DO NOTHING rather than catching a unique violation: in PostgreSQL
    // an error would abort the caller's whole transaction.
    const result = await this.#db()
      .insertInto(RESOURCES)
      .values({
        kind: r.kind,
        uid: r.uid,
        parent: r.parent,
        body: this.#d.encodeBody(r.body),
        create_time: r.createTime,
        update_time: r.updateTime,
      })
      .onConflict((oc) => oc.columns(['kind', 'uid']).doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) {
      throw new StoreConflictError(`${r.kind} ${r.uid} already exists`);
    }
  }

  async get(kind: string, uid: string): Promise<StoredResource | undefined> {
    const row = await this.#db().selectFrom(RESOURCES).select(RESOURCE_COLUMNS).where('kind', '=', kind).where('uid', '=', uid).executeTakeFirst();
    return row && toResource(this.#d, row);
  }

  async replace(kind: string, uid: string, body: Json, updateTime: string): Promise<StoredResource | undefined> {
    const row = await this.#db()
      .updateTable(RESOURCES)
      .set({ body: this.#d.encodeBody(body), update_time: updateTime })
      .where('kind', '=', kind)
      .where('uid', '=', uid)
      .returning(RESOURCE_COLUMNS)
      .executeTakeFirst();
    return row && toResource(this.#d, row);
  }

  async delete(kind: string, uid: string): Promise<boolean> {
    const result = await this.#db().deleteFrom(RESOURCES).where('kind', '=', kind).where('uid', '=', uid).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async list(query: StoreListQuery): Promise<StoreListResult> {
    const d = this.#d;
    const pageColumn = pageColumnRef(d, query.order, query.after !== undefined);
    let counted = this.#db().selectFrom(RESOURCES).where('kind', '=', query.kind);
    let page = this.#db().selectFrom(RESOURCES).select(RESOURCE_COLUMNS).where('kind', '=', query.kind);
    for (const filter of query.filters) {
      counted = counted.where(filterCondition(d, filter));
      page = page.where(filterCondition(d, filter, pageColumn));
    }
    const terms = sortTerms(d, query.order);
    if (query.after) page = page.where(afterCondition(terms, cursorTermValues(query.order, query.after)));
    // One row past the page tells whether more follow.
    const rows = await page.orderBy(orderByClause(terms)).limit(query.limit + 1).offset(query.skip).execute();
    const more = rows.length > query.limit;
    // A first page that holds the last match has counted them already (most lists are
    // short); otherwise COUNT reads every match's index entry.
    const total = !query.after && !more && rows.length > 0
      ? query.skip + rows.length
      : Number((await counted.select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
    return { rows: rows.slice(0, query.limit).map((row) => toResource(d, row)), total, more };
  }

  async countChildren(parent: string, kinds: readonly string[]): Promise<Record<string, number>> {
    const counts: Record<string, number> = Object.fromEntries(kinds.map((k) => [k, 0]));
    if (kinds.length === 0) return counts;
    const rows = await this.#db()
      .selectFrom(RESOURCES)
      .select(['kind', sql<number | string>`count(*)`.as('n')])
      .where('parent', '=', parent)
      .where('kind', 'in', [...kinds])
      .groupBy('kind')
      .execute();
    for (const row of rows) counts[row.kind] = Number(row.n);
    return counts;
  }
}
