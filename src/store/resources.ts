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
import type { ResourceQueries, ResourceRow } from './prepared.ts';
import { RESOURCE_COLUMNS, RESOURCES, type Database } from './schema.ts';

export type Executor = () => Kysely<Database>;

function toResource(d: Dialect, row: ResourceRow): StoredResource {
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
  readonly #q: ResourceQueries;

  constructor(db: Executor, dialect: Dialect, queries: ResourceQueries) {
    this.#db = db;
    this.#d = dialect;
    this.#q = queries;
  }

  async insert(r: StoredResource): Promise<void> {
    const result = await this.#q.insert(this.#db(), r.kind, r.uid, r.parent, this.#d.encodeBody(r.body), r.createTime, r.updateTime);
    if (Number(result.numAffectedRows ?? 0) === 0) throw new StoreConflictError(`${r.kind} ${r.uid} already exists`);
  }

  async get(kind: string, uid: string): Promise<StoredResource | undefined> {
    const row = (await this.#q.get(this.#db(), kind, uid)).rows[0];
    return row && toResource(this.#d, row);
  }

  async getForUpdate(kind: string, uid: string): Promise<StoredResource | undefined> {
    if (this.#d.engine !== 'postgres') return this.get(kind, uid);
    const row = await this.#db().selectFrom(RESOURCES).select(RESOURCE_COLUMNS).where('kind', '=', kind).where('uid', '=', uid).forUpdate().executeTakeFirst();
    return row && toResource(this.#d, row as ResourceRow);
  }

  async replace(kind: string, uid: string, body: Json, updateTime: string): Promise<StoredResource | undefined> {
    const row = (await this.#q.replace(this.#db(), this.#d.encodeBody(body), updateTime, kind, uid)).rows[0];
    return row && toResource(this.#d, row);
  }

  async delete(kind: string, uid: string): Promise<boolean> {
    return Number((await this.#q.delete(this.#db(), kind, uid)).numAffectedRows ?? 0) > 0;
  }

  async list(query: StoreListQuery): Promise<StoreListResult> {
    // Without uid the order is not total, and a keyset cursor could skip or repeat rows.
    if (!query.order.some((key) => key.field === 'uid')) throw new TypeError('store: a list order must include uid');
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
    if (query.lock === 'share' && d.engine === 'postgres') page = page.forShare();
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
