/**
 * The v1 adapter of the backend port: v2beta1 operations as v1 calls, for any
 * mapping. List (fetch all, filter, order, window; the page rendered through
 * the render stage), Get (List by id), rows by id (v1-rows-by-id.ts), Create,
 * Update (read-modify-write of v1's whole-resource PUT) and Delete. Its rows
 * are v1's own; `rows` declares how they become v2 documents.
 */
import { ApiError, invalidField, notFound } from '../aip/errors.ts';
import { resourceNotEmpty } from '../operation/rules.ts';
import { ownValue } from '../aip/names.ts';
import { sortKey, windowCarried, windowOrdered, windowUnordered, type CutWindow, type Keyed, type ReadField } from '../aip/list-window.ts';
import type { OrderKey } from '../aip/order-by.ts';
import type { PageCursor } from '../aip/page-token.ts';
import { Code } from '../rpc-status.ts';
import { deterministicRootUid, isChildOf } from '../uidp.ts';
import type { V1Client } from '../v1/client.ts';
import { uidpPath } from '../uidp.ts';
import { jsonKind, unreadable, v1ListRows } from '../v1/errors.ts';
import { ScannedRows } from '../v1/list-body.ts';
import { ListScanMemo } from '../v1/list-scan-memo.ts';
import { callerOf } from './caller-key.ts';
import { carriedOver, isKept, keptValue, keptWith, rowValues, sinceEarlier } from './reading-memo.ts';
import type { ResourceTimes, TimestampStore } from '../store/types.ts';
import type { BackendPort, Created, KeptTimesByUid, Page, Patch, RenderRows, RequestContext, RowConversion } from './backend.ts';
import type { CustomMethod, RequestPages, V1Access } from '../vocabulary/custom-method.ts';
import { IDS_PER_CALL, v1RowsById } from './v1-rows-by-id.ts';
import { referencesToFill, type Carries } from '../vocabulary/references.ts';
import { HydrationCache } from './hydration-cache.ts';
import { WalkCache } from './walk-cache.ts';
import { applyKeptTimes, KeptTimes, withKeptTime } from './kept-times.ts';
import type { ListQuery } from './list-query.ts';
import type { FieldSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { v1CollectionPath, v1UidKey, type MappingRegistry } from './registry.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import { renderV2, v1MembersOf, v2PathReader } from './v1-row.ts';
import { restoreV1Paths, toV1, writeV1Path } from './v1-body.ts';

export interface V1BackendOptions {
  v1: V1Client;
  registry: MappingRegistry;
  maxFanOut: number;
  /** Where the times v1 does not supply are kept; without it they render as v1 gives them (null). */
  times?: TimestampStore;
  /** Rows fetched for hydration, reused across requests for a short while. */
  cache?: HydrationCache;
  /** The order of a walk's matching rows, kept from its first page for its later pages. */
  walks?: WalkCache;
  /** v1 lists read before, reused when v1 answers the same bytes again. */
  scans?: ListScanMemo;
  now?: () => number;
  /** Told of each page's lookups in the kept-times cache (for metrics). */
  onKeptTimesLookup?: (hits: number, misses: number) => void;
}

/** Rows asked of v1 per page when v1 pages a list itself; fixed, so a position inside a v1 page stays valid. */
const V1_PAGE = 100;

export class V1Backend implements BackendPort {
  readonly #v1: V1Client;
  readonly #registry: MappingRegistry;
  readonly #maxFanOut: number;
  readonly #cache: HydrationCache;
  readonly #walks: WalkCache;
  readonly #scans: ListScanMemo;
  readonly #times: KeptTimes;

  /** v1 rows become v2 documents by the mapping's renames (render/v1-row.ts), with the times the gateway keeps. */
  readonly rows: RowConversion<Json> = {
    mode: 'translate',
    documents: (mapping, rows, _ctx, times) => this.#documents(mapping, rows, times),
    target: (kind, row) => renderV2(this.#registry.get(kind).fields, row),
    carries: v1Carries,
  };

  constructor(options: V1BackendOptions) {
    this.#v1 = options.v1;
    this.#registry = options.registry;
    this.#maxFanOut = options.maxFanOut;
    this.#cache = options.cache ?? new HydrationCache({ ttlMs: 0 });
    this.#walks = options.walks ?? new WalkCache({ ttlMs: 0, maxBytes: 0 });
    this.#scans = options.scans ?? new ListScanMemo({ maxBytes: 0 });
    this.#times = new KeptTimes(options.times, options.now, options.onKeptTimesLookup);
  }

  async list(mapping: ResourceMapping, query: ListQuery, ctx: RequestContext, render: RenderRows<Json>): Promise<Page> {
    const request = { mapping, ctx, render, ...query };
    return mapping.v1.paging ? this.#listV1Paged(request) : this.#listAll(request);
  }

  /**
   * v1 cannot page: fetch everything, then filter, order and window here. The
   * first page keeps the walk's order (walk-cache.ts), so later pages fetch
   * only their own rows by id.
   */
  async #listAll(request: ListRequest): Promise<Page> {
    const { mapping, params, filters, order, cursor, fingerprint, ctx, render } = request;
    if (cursor && mapping.v1.idsParam) {
      const walk = this.#walks.get(mapping.name, fingerprint, callerOf(ctx));
      if (walk) return this.#laterPage(request, walk);
    }
    const uidKey = v1UidKey(mapping);
    const paths = [...filters.fields, ...order.map((k) => k.field)];
    // Each row is read only as far as filters and order need; the page's rows alone are read whole, and rendered.
    const { rows: all, whole, reading } = await this.#listScanned(mapping, filters.v1Query, ctx, listMembers(mapping, paths, uidKey));
    // The uids are listed only when a sweep is due (once a minute at most), not for every page.
    if (Object.keys(filters.v1Query).length === 0) await this.#times.sweep(mapping, () => all.map((r) => String(r[uidKey])));
    // A reading v1 gave before (byte for byte, list-scan-memo.ts) keeps what was worked out from its rows alone.
    const lackingKey = `lacking\0${mapping.name}`;
    const lacking = reading ? keptWith(reading, lackingKey, () => {
      // Made from an earlier reading in which no row lacked a time (rereadListAnswer): only the rows read anew can.
      const earlier = reading.earlier;
      if (earlier && keptValue<readonly string[]>(earlier.rows, lackingKey)?.length === 0) return this.#times.lacking(mapping, all.slice(earlier.same, earlier.tail), uidKey);
      return this.#times.lacking(mapping, all, uidKey);
    }) : this.#times.lacking(mapping, all, uidKey);
    // Unless the query reads a kept time (its filters or order), which rows match, their keys and the page
    // they make follow from the rows and the query alone.
    const memo = lacking.length === 0 || !readsKeptTime(mapping, paths) ? reading : undefined;
    const derive = <T>(key: string, make: () => T): T => (memo ? keptWith(memo, key, make) : make());
    // Every lacking row's kept times are read, which records the rows first seen, when the query reads them
    // or the reading is new; a reading met before has had its rows recorded, and only its page needs them.
    const recorded = `recorded\0${mapping.name}`;
    const allTimes = !memo || !isKept(memo, recorded);
    const times = allTimes ? await this.#times.forUids(mapping, lacking) : undefined;
    if (memo && allTimes) keptWith(memo, recorded, () => true);

    // The page is selected without sorting every row (windowUnordered).
    const read = v2Reader(mapping, paths, times, uidKey);
    const keyedKey = `keyed\0${fingerprint}`;
    const keyed = derive(keyedKey, () => {
      const match = (at: number, into: ListedRow[]): void => {
        const v1 = all[at]!;
        if (filters.matchesWith(v1, read)) into.push({ row: String(v1[uidKey]), key: sortKey(v1, order, read), at });
      };
      // Made from an earlier reading (a list that changed in some rows): only the rows read anew are matched.
      const carried = memo && carriedOver<ListedRow>(memo, keyedKey, match, (entry, at) => ({ ...entry, at }));
      if (carried) return carried;
      const matching: ListedRow[] = [];
      for (let at = 0; at < all.length; at++) match(at, matching);
      return matching;
    });
    const windowKey = `window\0${fingerprint}\0${params.pageSize}\0${params.skip}\0${cursor ? JSON.stringify(cursor) : ''}`;
    const windowRequest = { order, pageSize: params.pageSize, skip: params.skip, cursor };
    const window = derive(windowKey, () => {
      // Made from an earlier reading that cut this window: only the rows read anew are weighed against its page.
      const since = memo && sinceEarlier<CutWindow<ListedRow>, ListedRow>(memo, windowKey, keyedKey, keyed);
      return (since && windowCarried(since.value, since.changed, keyed.length, windowRequest)) ?? windowUnordered(keyed, windowRequest);
    });
    // Kept in v1's order; the walk's first later page sorts it (a copy, when kept with the reading).
    if (window.next && mapping.v1.idsParam) this.#walks.set(mapping.name, fingerprint, callerOf(ctx), keyed, order, memo !== undefined);
    const pageTimes = times ?? (lacking.length === 0 ? undefined : await this.#times.forUids(mapping, this.#times.lacking(mapping, window.page.map((row) => all[row.at]!), uidKey)));
    let page: Json[];
    if (memo && referencesToFill(mapping, v1Carries).length === 0) {
      // Rows that render from their bytes and kept times alone (no reference to look up) are rendered
      // once a reading, and taken over by a reading made from it: a page asked for again, or cut again
      // from a list changed elsewhere, renders only the rows it has not rendered before. A rendering
      // serves again only with the same kept times: a write through any replica may move a row's
      // updateTime without changing v1's bytes.
      const timesOf = (at: number): ResourceTimes | undefined => pageTimes?.get(String(all[at]![uidKey]));
      const rendered = rowValues(
        memo,
        `rendered\0${mapping.name}`,
        (at) => {
          const rowTimes = timesOf(at);
          return { times: rowTimes, document: v1Document(mapping, whole(at), rowTimes) };
        },
        (kept, at) => sameTimes(kept.times, timesOf(at)),
      );
      page = window.page.map((row) => rendered(row.at).document);
    } else {
      page = await render(mapping, window.page.map((row) => whole(row.at)), ctx, pageTimes);
    }
    // What this reading could take over from the one it was made from is taken: that one may go.
    reading?.forgetEarlier();

    return { items: page, ...(window.next ? { next: window.next } : {}), total: window.total, skipped: window.skipped };
  }

  /** A later page of a known walk: its window from the kept order, its rows fetched by id (a row gone since is left out). */
  async #laterPage({ mapping, params, order, cursor, ctx, render }: ListRequest, walk: readonly Keyed<string>[]): Promise<Page> {
    const window = windowOrdered(walk, { order, pageSize: params.pageSize, skip: params.skip, cursor });
    const fetched = await this.#fetchRows(mapping, window.page, ctx);
    const uidKey = v1UidKey(mapping);
    const byUid = new Map(fetched.map((row) => [String(row[uidKey]), row]));
    const rows = window.page.map((uid) => byUid.get(uid)).filter((row): row is Json => row !== undefined);
    return { items: await render(mapping, rows, ctx), ...(window.next ? { next: window.next } : {}), total: window.total, skipped: window.skipped };
  }

  /**
   * v1 pages this list itself: walk its pages in its order, applying here only
   * the filters v1 was not given, until the page is full. The page token
   * holds v1's token for the v1 page being read and how far into it this page
   * got, so the next page resumes exactly there.
   */
  async #listV1Paged({ mapping, params, filters, order, cursor, ctx, render }: ListRequest): Promise<Page> {
    const paging = mapping.v1.paging!;
    const v1Order = v1OrderFor(order, paging.orderBy);
    let position = cursor ? positionFrom(cursor) : { token: '', index: 0 };
    let toSkip = params.skip;
    const skipped = (cursor?.skipped ?? 0) + params.skip;
    const read = v2Reader(mapping, filters.fields, undefined, v1UidKey(mapping));
    const page: Json[] = [];
    let next: { token: string; index: number } | undefined;
    let v1Total: unknown;

    for (let walked = 0; ; walked++) {
      if (walked >= this.#maxFanOut) {
        // Filters v1 does not know can leave whole v1 pages empty; a short page with a token beats a long wait.
        next = position;
        break;
      }
      const answer = await this.#v1.call<{ items?: unknown; nextPageToken?: unknown; totalCount?: unknown }>({
        method: 'GET',
        path: v1CollectionPath(mapping),
        query: { ...filters.v1Query, [paging.pageSize]: String(V1_PAGE), [paging.orderParam]: v1Order, ...(position.token ? { [paging.pageToken]: position.token } : {}) },
        authorization: ctx.authorization,
      }, ctx);
      v1Total = answer.totalCount;
      const items = v1ListRows(answer) as Json[];
      const v1Next = typeof answer.nextPageToken === 'string' ? answer.nextPageToken : '';
      let i = position.index;
      for (; i < items.length && page.length < params.pageSize; i++) {
        if (!filters.matchesWith(items[i]!, read)) continue;
        if (toSkip > 0) toSkip--;
        else page.push(items[i]!);
      }
      if (page.length === params.pageSize) {
        if (i < items.length) next = { token: position.token, index: i };
        else if (v1Next) next = { token: v1Next, index: 0 };
        break;
      }
      if (!v1Next) break;
      position = { token: v1Next, index: 0 };
    }

    // v1's count holds only when v1 applied every filter; totalCount is optional in v2, so it is left out otherwise.
    const total = !filters.localOnly && (typeof v1Total === 'string' || typeof v1Total === 'number') ? Number(v1Total) : undefined;
    return {
      items: await render(mapping, page, ctx),
      ...(next ? { next: { after: [next.token, next.index], skipped } } : {}),
      ...(total !== undefined ? { total } : {}),
      skipped,
    };
  }

  read(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    return this.#fetchRow(mapping, uid, ctx);
  }

  readByIds(wanted: ReadonlyMap<string, readonly string[]>, ctx: RequestContext): Promise<Map<string, Map<string, Json>>> {
    return v1RowsById({ v1: this.#v1, registry: this.#registry, maxFanOut: this.#maxFanOut, cache: this.#cache }, wanted, ctx);
  }

  async create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext): Promise<Created<Json>> {
    const created = await this.#v1.call<Json>(
      {
        method: 'POST',
        path: joinPath(v1CollectionPath(mapping), parent),
        ...(mapping.v1.createQuery ? { query: mapping.v1.createQuery } : {}),
        body: toV1(mapping.fields, value),
        authorization: ctx.authorization,
      },
      ctx,
    );
    const uid = v1RowUid(mapping, created);
    this.#changed(mapping.name, uid);
    await this.#times.created(mapping, uid);
    return { row: await this.#writtenRow(mapping, created, ctx) };
  }

  async update(mapping: ResourceMapping, uid: string, patch: Patch, ctx: RequestContext): Promise<Json> {
    const row = await this.#fetchRow(mapping, uid, ctx);
    if (patch.paths.length === 0) return row;
    // The merge is in v2 document space, onto the row as v2 renders it (without references, which are output only).
    const { document, keep } = patch.apply(renderV2(mapping.fields, row));

    // Start from v1's own row so fields v2 does not show (or shows as output-only) survive the PUT.
    const before = projectRow(row, mapping.v1.writeShape);
    const put = structuredClone(before);
    for (const path of patch.paths) writeV1Path(mapping.fields, put, path, getPath(document, path));
    // What kept its value is v1's own, byte for byte (a secret v2 never shows included).
    restoreV1Paths(mapping.fields, before, put, keep);
    const written = await this.#v1.call<Json>(
      { method: 'PUT', path: joinPath(v1CollectionPath(mapping), uid), body: put, authorization: ctx.authorization },
      ctx,
    );
    this.#changed(mapping.name, uid);
    await this.#times.touched(mapping, uid);
    return this.#writtenRow(mapping, written, ctx);
  }

  async delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<void> {
    const guarded = mapping.delete?.refuseWhileParentOf ?? [];
    if (guarded.length > 0) await this.#refuseIfParent(mapping, uid, guarded, ctx);
    try {
      await this.#v1.call({ method: 'DELETE', path: joinPath(v1CollectionPath(mapping), uid), authorization: ctx.authorization }, ctx);
    } catch (error) {
      if (!(mapping.delete?.idempotent && error instanceof ApiError && error.code === Code.NOT_FOUND)) throw error;
    } finally {
      this.#changed(mapping.name, uid);
    }
    await this.#times.forget(mapping, uid);
  }

  async batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], _singular: string, ctx: RequestContext): Promise<Json[]> {
    const method = mapping.methods!.batchCreate!;
    const v1Items = values.map((value) => toV1(mapping.fields, value));
    // v1's batch endpoint is one call, so the batch is as atomic as v1 makes it.
    const answer = await this.#v1.call<Json>({
      method: 'POST', path: joinPath(`/${mapping.service}/v1/${method.v1Collection}`, parent), body: v1Items, authorization: ctx.authorization,
    }, ctx);
    const uidKey = v1UidKey(mapping);
    const created = v1ListRows({ items: Object.values(answer).find(Array.isArray) }).map((row) => v1RowUid(mapping, row as Json));
    for (const uid of created) {
      this.#changed(mapping.name, uid);
      await this.#times.created(mapping, uid);
    }
    const rows = mapping.v1.rereadAfterWrite ? await this.#fetchRows(mapping, created, ctx) : [];
    const byUid = new Map(rows.map((row) => [String(row[uidKey]), row]));
    return created.map((uid) => byUid.get(uid)).filter((row): row is Json => row !== undefined);
  }

  async lookup(mapping: ResourceMapping, params: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json> {
    const method = mapping.methods!.lookup!;
    const values = Object.keys(method.params).map((name) => params[name]!);
    const v1Query = Object.fromEntries(Object.entries(method.params).map(([name, v1Key]) => [v1Key, params[name]!]));
    try {
      const found = await this.#v1.call<Json>(
        { method: 'GET', path: `/${mapping.service}/v1/${method.v1Path}`, query: v1Query, authorization: ctx.authorization },
        ctx,
      );
      return { uid: v1RowUid(mapping, found) };
    } catch (error) {
      if (!(error instanceof ApiError && error.code === Code.NOT_FOUND)) throw error;
      // v2 answers with the uid the resource will get once it exists; v1 has no such notion, so the gateway derives one.
      return { uid: deterministicRootUid(mapping.name, ...values) };
    }
  }

  custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages, render: RenderRows<Json>): Promise<Json> {
    if (!method.translate) throw new Error('a custom method without a translate implementation was bound in translate mode');
    return method.translate(request, this.#access(ctx, pages, render), ctx);
  }

  // ---- helpers -----------------------------------------------------------

  /** A write through the gateway: the resource's cached row and its collection's kept walks no longer hold. */
  #changed(resource: string, uid: string): void {
    this.#cache.invalidate(resource, uid);
    this.#walks.invalidate(resource);
  }

  /** What a custom method may do over v1, for one request. */
  #access(ctx: RequestContext, pages: RequestPages, render: RenderRows<Json>): V1Access {
    return {
      pages,
      call: (call) => this.#v1.call({ ...call, authorization: ctx.authorization }, ctx),
      render: async (name, row) => (await render(this.#registry.get(name), [row], ctx))[0]!,
      row: (name, uid) => this.#fetchRow(this.#registry.get(name), uid, ctx),
      changed: (name, uid) => this.#changed(name, uid),
    };
  }

  /**
   * A whole v1 list, each row with only the given members (`undefined`: every row whole), any row
   * whole on demand (v1/list-body.ts), and the scan's reading when it was scanned (list-scan-memo.ts).
   */
  async #listScanned(mapping: ResourceMapping, query: Json, ctx: RequestContext, members: ListMembers | undefined): Promise<{ rows: Json[]; whole: (i: number) => Json; reading?: ScannedRows }> {
    if (members) {
      const path = v1CollectionPath(mapping);
      const scope = callerOf(ctx);
      const request = `${path}\u0000${JSON.stringify(query)}`;
      const likely = this.#scans.likely(members.values, members.presence, scope, request);
      const answer = await this.#v1.call<{ items?: unknown }>(
        { method: 'GET', path, query: query as Record<string, string>, authorization: ctx.authorization, likely },
        ctx,
        (answer) => this.#scans.read(answer, members.values, members.presence, scope, request),
      );
      const scanned = answer.items;
      if (scanned instanceof ScannedRows) return { rows: scanned.partial, whole: (i) => scanned.whole(i), reading: scanned };
      const rows = v1ListRows(answer) as Json[];
      return { rows, whole: (i) => rows[i]! };
    }
    const rows = await this.#listV1(mapping, query, ctx);
    return { rows, whole: (i) => rows[i]! };
  }

  async #listV1(mapping: ResourceMapping, query: Json, ctx: RequestContext): Promise<Json[]> {
    const answer = await this.#v1.call<{ items?: unknown }>(
      { method: 'GET', path: v1CollectionPath(mapping), query: query as Record<string, string>, authorization: ctx.authorization },
      ctx,
    );
    return v1ListRows(answer) as Json[];
  }

  /** v1 has no Get: list by id, and treat an empty answer as NOT_FOUND. */
  async #fetchRow(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    const uidKey = v1UidKey(mapping);
    const rows = await this.#listV1(mapping, { [mapping.v1.idParam]: uid }, ctx);
    // Match the id ourselves: a v1 that ignored the filter must not make us answer with another row.
    const row = rows.find((r) => r[uidKey] === uid);
    if (!row) {
      await this.#times.forget(mapping, uid);
      throw notFound(mapping.resourceType, uid);
    }
    return row;
  }

  /** The row a write answers: v1's answer, or the row read back where v1 answers in another shape. */
  async #writtenRow(mapping: ResourceMapping, written: Json, ctx: RequestContext): Promise<Json> {
    let row = written;
    if (mapping.v1.rereadAfterWrite) {
      row = await this.#fetchRow(mapping, v1RowUid(mapping, written), ctx);
      for (const key of mapping.v1.createAnswerOnly ?? []) if (written[key] !== undefined) row = { ...row, [key]: written[key] };
    }
    return row;
  }

  /** Rows by id in one v1 call per chunk (the ids filter), or one call per id when v1 has no such filter. */
  async #fetchRows(mapping: ResourceMapping, uids: readonly string[], ctx: RequestContext): Promise<Json[]> {
    if (uids.length === 0) return [];
    const idsParam = mapping.v1.idsParam;
    if (!idsParam) return Promise.all(uids.map((uid) => this.#fetchRow(mapping, uid, ctx)));
    // A chunk of ids per call keeps the query string well inside v1's header limits (a page may hold 200).
    const chunks: string[][] = [];
    for (let i = 0; i < uids.length; i += IDS_PER_CALL) chunks.push(uids.slice(i, i + IDS_PER_CALL));
    return (await Promise.all(chunks.map((chunk) => this.#listV1(mapping, { [idsParam]: chunk }, ctx)))).flat();
  }

  /** The rows as v2 documents, kept times set (`times` when the caller already has them). */
  #documents(mapping: ResourceMapping, rows: readonly Json[], times?: KeptTimesByUid): Json[] | Promise<Json[]> {
    const uidKey = v1UidKey(mapping);
    const render = (found: KeptTimesByUid | undefined) => rows.map((row) => v1Document(mapping, row, found?.get(String(row[uidKey]))));
    if (times) return render(times);
    const lacking = this.#times.lacking(mapping, rows, uidKey);
    // v1 gave every time it should have (a Get, most answers): no store lookup, and no await for one.
    return lacking.length > 0 ? this.#times.forUids(mapping, lacking).then(render) : render(undefined);
  }

  async #refuseIfParent(mapping: ResourceMapping, uid: string, children: readonly string[], ctx: RequestContext): Promise<void> {
    // A resource v1 has no equivalent of has no rows there to count.
    const inV1 = children.filter((name) => !this.#registry.get(name).nativeOnly);
    const counts = await Promise.all(inV1.map(async (name) => {
      const child = this.#registry.get(name);
      const childOf = Object.values(child.filters).find((f) => f.op === 'childOf' && f.v1);
      const rows = await this.#listV1(child, childOf?.v1 ? { [childOf.v1]: uid } : {}, ctx);
      const uidKey = v1UidKey(child);
      return [name, rows.filter((r) => typeof r[uidKey] === 'string' && isChildOf(r[uidKey] as string, uid)).length] as const;
    }));
    const refusal = resourceNotEmpty(mapping, uid, Object.fromEntries(counts));
    if (refusal) throw refusal;
  }

}

/** A v1 row of a list as its window sees it: uid and sort key, and where the row sits in v1's answer. */
interface ListedRow extends Keyed<string> {
  at: number;
}

/**
 * The members of v1 rows a List reads of every row: the uid and what `paths` render from, and the
 * kept times' sources, read only for whether they are blank when nothing else reads them
 * (list-body.ts). Undefined when a path renders from the whole row.
 */
function listMembers(mapping: ResourceMapping, paths: readonly string[], uidKey: string): ListMembers | undefined {
  const values = new Set([uidKey]);
  for (const path of paths) {
    const of = v1MembersOf(mapping.fields, path);
    if (!of) return undefined;
    for (const member of of) values.add(member);
  }
  const presence = new Set<string>();
  for (const source of KeptTimes.sources(mapping)) {
    // A dotted source is read inside its member's value, which is then read whole.
    (source.includes('.') ? values : presence).add(source.split('.')[0]!);
  }
  return { values: [...values], presence: [...presence].filter((member) => !values.has(member)) };
}

interface ListMembers {
  values: string[];
  presence: string[];
}

/** Whether any of these v2 paths renders a time the gateway keeps (kept-times.ts), which changes apart from v1's rows. */
function readsKeptTime(mapping: ResourceMapping, paths: readonly string[]): boolean {
  return paths.some((path) => ownValue(mapping.fields, path.split('.')[0]!)?.kept !== undefined);
}

/** Reads the v2 paths a List's filters and order need straight off v1 rows, as rendered with their kept times. */
function v2Reader(mapping: ResourceMapping, paths: readonly string[], times: Map<string, ResourceTimes> | undefined, uidKey: string): ReadField<Json> {
  const kept = times && ((spec: FieldSpec, value: unknown, v1: Json) => withKeptTime(spec, value, times.get(String(v1[uidKey]))));
  const readers = new Map(paths.map((path) => [path, v2PathReader(mapping.fields, path, kept)]));
  return (row, path) => readers.get(path)?.(row);
}

interface ListRequest extends ListQuery {
  mapping: ResourceMapping;
  ctx: RequestContext;
  /** The render stage, for the page's rows. */
  render: RenderRows<Json>;
}

/** v1's order enum value for a v2 order, which must be one field (and the uid tiebreak v1 applies itself). */
function v1OrderFor(order: readonly OrderKey[], table: Readonly<Record<string, string>>): string {
  const [first, ...rest] = order;
  const value = table[`${first!.field} ${first!.desc ? 'desc' : 'asc'}`];
  if (!value || rest.some((k) => k.field !== 'uid' || k.desc)) {
    throw invalidField('order_by', `this list is ordered by v1, which takes one of: ${Object.keys(table).join(', ')}`);
  }
  return value;
}

function positionFrom(cursor: PageCursor): { token: string; index: number } {
  const [token, index] = cursor.after;
  if (typeof token !== 'string' || typeof index !== 'number') throw invalidField('page_token', 'is not a page token of this list');
  return { token, index };
}

function joinPath(collection: string, uidp: string): string {
  return uidp ? `${collection}/${uidpPath(uidp)}` : collection;
}

/** The PUT body from a list row: the row itself, or the declared projection when PUT takes another shape. */
function projectRow(row: Json, shape: Readonly<Record<string, string>> | undefined): Json {
  if (!shape) return structuredClone(row);
  return Object.fromEntries(Object.entries(shape).map(([key, path]) => [key, structuredClone(getPath(row, path))]));
}

/** The id of a row v1 answered for a write or a lookup: one that lacks it, as a string, is no answer the gateway can use. */
function v1RowUid(mapping: ResourceMapping, row: Json): string {
  const key = v1UidKey(mapping);
  const value = row[key];
  if (typeof value === 'string' && value !== '') return value;
  throw unreadable(200, `\`${key}\` is ${value === undefined ? 'missing' : value === '' ? 'empty' : `a ${jsonKind(value)}`} where the new row's id belongs`);
}

/** What v1's rows carry themselves: every field with a v1 source (a reference fills the others). */
const v1Carries: Carries = (spec) => spec.v1 !== null;

/** A v1 row as its v2 document: the mapping's renames, blank times set from `times`. */
function v1Document(mapping: ResourceMapping, row: Json, times: ResourceTimes | undefined): Json {
  return applyKeptTimes(mapping, renderV2(mapping.fields, row), times);
}

function sameTimes(a: ResourceTimes | undefined, b: ResourceTimes | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.createTime === b.createTime && a.updateTime === b.updateTime);
}
